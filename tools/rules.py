"""Register the rules of the claims in reproduce/rules.csv (nbs/92_report: "Rules registered before the results").

`python tools/rules.py`            append every committed claim's and budget row's rule not registered yet (same text), with
                                   the commit it is registered at (HEAD) and the time; a registered rule is never rewritten.
`python tools/rules.py --check`    exit 1 and list the committed rules that are not registered.
`python tools/rules.py --planned FILE`  register the rules of runs still to come, from a CSV with the columns of rules.csv
                                   (experiment, profile, task, claim, budget, rule, plan: the seeds, precision and steps
                                   of the runs to come): commit them before starting the runs."""
import argparse, subprocess, sys, time
from pathlib import Path
from headprune_nb.reproduce import reproduce_dir, read_csv, write_csv
from headprune_nb.report import RULES, RULE_COLS, rule_key, registered_rules, finished_results, _rows_of

def current() -> list[dict]:
    "The rules of every committed claim and budget row (with a rule), as rules.csv rows without commit and time."
    rows = _rows_of(finished_results(("cpu", "full")), ("claims.csv", "budgets.csv"))
    return [dict(experiment=r["experiment"], profile=r["profile"], task=r.get("task", "") or "", claim=r["claim"],
                 budget=str(r.get("budget", "")) if r.get("phase") == "budget" else "", rule=r["rule"]) for r in rows if r.get("rule")]

def missing(rows, rules) -> list[dict]:
    seen, out = set(), []
    for r in rows:
        k = rule_key(dict(r, phase="budget" if r["budget"] else ""))
        plan = r.get("plan", "") or ""                       # a rule registered again for new runs: a row of its own
        if (k, r["rule"], plan) in seen or any(x["rule"] == r["rule"] and (x.get("plan") or "") == plan for x in rules.get(k, [])):
            continue
        seen.add((k, r["rule"], plan)); out.append(r)
    return out

def main(argv=None):
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--check", action="store_true"); a.add_argument("--planned")
    args = a.parse_args(argv)
    path, rules = reproduce_dir() / RULES, registered_rules()
    rows = read_csv(Path(args.planned)) if args.planned else current()
    if args.planned and rows and (miss := [k for k in RULE_COLS[:6] if k not in rows[0]]):
        raise ValueError(f"{args.planned} has no {miss[0]!r} column; give it the columns {', '.join(RULE_COLS[:6])}")
    new = missing(rows, rules)
    if args.check:
        for r in new: print(f"not registered: {r['experiment']} {r['profile']} {r['task']} {r['claim']!r} {r['budget']}", file=sys.stderr)
        return 1 if new else 0
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=reproduce_dir()).stdout.strip()
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    old = read_csv(path) if path.exists() else []
    write_csv(path, [{k: r.get(k, "") for k in RULE_COLS} for r in old] + [dict(r, commit=head, registered_utc=now) for r in new])
    print(f"{len(new)} rule(s) registered at {head[:10]} ({now}); {len(old)} were registered before")
    return 0

def cli(argv=None) -> int:
    "`main`; a damaged rules.csv, claims.csv or --planned file: one line naming it (exit 2), never a traceback."
    try: return main(argv)
    except (ValueError, KeyError, OSError) as e:
        why = f"no {e.args[0]!r} field (a damaged file?)" if isinstance(e, KeyError) else e
        print(f"tools/rules.py: error: {why}", file=sys.stderr)
        return 2

if __name__ == "__main__": sys.exit(cli())
