"""The power plan: for every committed cpu claim, the seeds it needs to decide (nbs/93b_power) and what they cost.

Reads each committed cpu experiment's claims.csv (its point, interval, seeds and seed spread) and, for the cost of one
more seed, the seconds its records took per seed (`RunRecord.timings["seconds"]`, the median over the seeds past the
main one) plus the training of a new baseline per task (`baselines.csv`'s train_seconds): a claim is planned where the
seeds it needs are affordable. Writes reproduce/power.csv (read by `headprune report`).

    python tools/power.py                 # -> reproduce/power.csv
"""
import re, statistics, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "reproduce" / "results" / "cpu"
OUT = ROOT / "reproduce" / "power.csv"
FULL = {"sst2": 872, "rte": 277, "mnli_proxy": 9832, "multi30k": 1000}   # each cpu task's whole evaluation split
COLS = ("experiment", "task", "claim", "verdict", "point", "lo", "hi", "seeds", "seed_sd", "needs_seeds", "plan",
        "training", "hours_per_seed", "hours_to_plan", "trained")
UNDER = "not decided: under-trained"


def baseline_hours() -> dict:
    "{task: hours to train one seed's baseline} (the committed fp32 seed 0, 2 cores)."
    from headprune_nb.store import read_csv
    return {r["task"]: float(r["train_seconds"]) / 3600 for r in read_csv(RESULTS / "baselines" / "baselines.csv")}


def record_seconds(r) -> float:
    """Seconds a record's run took: `timings["seconds"]`, else what it recorded of its training and decoding (a
    lottery's rounds, a ticket's training and translation)."""
    num = lambda v: v if isinstance(v, (int, float)) else 0
    if num(r.timings.get("seconds")): return r.timings["seconds"]
    rounds = r.timings.get("round_train_seconds")
    return (sum(map(num, rounds)) if isinstance(rounds, list) else 0) + sum(
        num(r.extra.get(k)) for k in ("train_seconds", "decode_seconds"))


def seed_hours(folder: Path) -> tuple[dict, set]:
    """({task: hours one more seed's runs take}, {tasks whose runs start from the task's baseline}): median over seeds
    past the main one of the records' seconds (`record_seconds`; else the main's), its seed folders' records
    included; a seed whose records kept no time is unknown, not free, and a task with none known is left out."""
    from headprune_nb.runs import read_records
    per, on_base = {}, set()
    for sub in (d / s for d in (folder, *sorted(folder.glob("seed[0-9]*"))) for s in ("scores", "records")):
        for r in read_records(sub) if sub.exists() else []:
            per.setdefault(r.key.task, {}).setdefault(r.key.seed, 0.0)
            per[r.key.task][r.key.seed] += record_seconds(r) / 3600
            if r.key.method == "fit": on_base.add(r.key.task)
    known = lambda ss: [h for s, h in ss.items() if s != 0 and h > 0] or [h for s, h in ss.items() if s == 0 and h > 0]
    return {t: statistics.median(k) for t, ss in per.items() if (k := known(ss))}, on_base


def phase_steps(row: dict) -> int:
    "The steps of a claims or budget row's training phase, read from its `budget` ('47 steps', '400'); 0: none given."
    return int(m[1]) if (m := re.match(r"(\d+)", str(row.get("budget", "")))) else 0


def failures() -> dict:
    """{(method, task): (steps, run, shown)}: the longest phase at which a run of that method on that task failed its
    convergence test, over every committed cpu claim and budget row (a run's method: its name's first word)."""
    from headprune_nb.power import training_needed
    from headprune_nb.store import read_csv
    out = {}
    for f in sorted(f for g in ("*/claims.csv", "*/budgets.csv", "*/budget/*/claims.csv") for f in RESULTS.glob(g)):
        for r in read_csv(f):
            for run, shown in training_needed(r.get("trained", ""))["longer"].items():
                steps = int(m[1]) if (m := re.search(r" of (\d+)", shown)) else phase_steps(r)   # else the row's
                key = (run.split()[0].lower(), r.get("task", ""))
                if steps > out.get(key, (-1,))[0]: out[key] = (steps, run, shown)
    return out


def longer_than(training: dict, task: str, phase: int, failed: dict) -> str:
    """In words, the methods of a row's runs that a run on `task` failed its test with at a phase at least as long as
    the row's `phase` somewhere (`failures`; longer, for the methods whose own runs here failed): made again at this
    phase, such runs would likely fail too; "" if none."""
    own = {r.split()[0].lower() for r in training["longer"]}              # already named as needing a longer phase
    methods = dict.fromkeys(r.split()[0].lower() for r in [*training["again"], *training["longer"]])
    hits = [failed[m, task] for m in methods if (m, task) in failed and phase > 0
            and (failed[m, task][0] > phase if m in own else failed[m, task][0] >= phase)]
    return "; ".join(f"{run} still failed at {n} steps ({shown}): its method needs a longer phase"
                     for n, run, shown in hits)


def hours_to_plan(needs, have: int, runs_h: float | None, base_h: float, training: dict | None) -> float | str:
    """Hours on 2 cores to the plan: each new seed's baseline and runs; for an under-trained row also the runs of as
    many present seeds as it needs made again, and its failed baselines trained again; "" where no affordable plan
    exists, a run needs a longer phase, or the runs' cost is unknown (`runs_h` None: no timed record)."""
    from headprune_nb.power import MAX_SEEDS
    if needs is None or needs > MAX_SEEDS or training and (training["longer"] or training.get("elsewhere")): return ""
    more, redo = max(0, needs - have), min(have, needs) if training else 0
    if runs_h is None and (more or redo): return ""
    bases = len(training["bases"]) if training else 0
    return round(more * ((runs_h or 0.0) + base_h) + redo * (runs_h or 0.0) + bases * base_h, 2)


def plan_rows() -> list[dict]:
    "One row per committed cpu claim: its plan and cost."
    from headprune_nb.power import seeds_needed, training_needed, MAX_SEEDS
    from headprune_nb.store import read_csv
    base, rows, failed = baseline_hours(), [], failures()
    for folder in sorted(p for p in RESULTS.iterdir() if (p / "claims.csv").exists()):
        hours, on_base = seed_hours(folder)
        base_of = lambda task: base.get(task, 0.0) if task in on_base else 0.0     # a lottery trains its own
        for c in read_csv(folder / "claims.csv"):
            got, task = seeds_needed(c), c.get("task", "")
            if (got["needs"] is None or got["needs"] > MAX_SEEDS) and (full := FULL.get(task)):
                more_ex = seeds_needed(c, examples=full)          # the evaluation set's noise: score the whole split
                got = more_ex if more_ex["needs"] and more_ex["needs"] <= MAX_SEEDS else got
            have = int(c.get("seeds") or 1)                    # as power.seeds_needed reads it
            training = training_needed(c.get("trained", "")) if c["verdict"] == UNDER else None
            if training:
                training["elsewhere"] = longer_than(training, task, phase_steps(c), failed)
                training["plan"] = "; ".join(x for x in (training["plan"], training["elsewhere"]) if x)
            rows.append(dict(experiment=folder.name, task=task, claim=c["claim"], verdict=c["verdict"],
                             point=c.get("point", ""), lo=c.get("lo", ""), hi=c.get("hi", ""), seeds=c.get("seeds", ""),
                             seed_sd=c.get("seed_sd", ""), needs_seeds=got["needs"] or "", plan=got["plan"],
                             training=training["plan"] if training else "",
                             hours_per_seed="" if task not in hours else round(hours[task] + base_of(task), 2),
                             hours_to_plan=hours_to_plan(got["needs"], have, hours.get(task), base_of(task), training),
                             trained=c.get("trained", "")[:300] if training else ""))
    return rows


def main() -> None:
    if len(sys.argv) > 1: sys.exit(__doc__)
    from headprune_nb.store import write_csv
    rows = plan_rows()
    write_csv(OUT, [{k: r.get(k, "") for k in COLS} for r in rows])
    for r in rows:
        print(f"{r['experiment']:>19} {r['task']:>12} | {r['claim'][:48]:48} | {r['verdict'][:14]:14} | "
              f"{r['plan'][:48]} | {r['hours_to_plan']} h")


if __name__ == "__main__":
    main()
