"""The power plan: for every committed cpu claim, the seeds it needs to decide (nbs/93b_power) and what they cost.

Reads each committed cpu experiment's claims.csv (its point, interval, seeds and seed spread) and, for the cost of one
more seed, the seconds its records took per seed (`RunRecord.timings["seconds"]`, the median over the seeds past the
main one) plus the training of a new baseline per task (`baselines.csv`'s train_seconds): a claim is planned where the
seeds it needs are affordable. Writes reproduce/power.csv (read by `headprune report`).

    python tools/power.py                 # -> reproduce/power.csv
"""
import statistics, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "reproduce" / "results" / "cpu"
OUT = ROOT / "reproduce" / "power.csv"
FULL = {"sst2": 872, "rte": 277, "mnli_proxy": 9832, "multi30k": 1000}   # each cpu task's whole evaluation split
COLS = ("experiment", "task", "claim", "verdict", "point", "lo", "hi", "seeds", "seed_sd", "needs_seeds", "plan",
        "hours_per_seed", "hours_to_plan", "trained")


def baseline_hours() -> dict:
    "{task: hours to train one seed's baseline} (the committed fp32 seed 0, 2 cores)."
    from headprune_nb.store import read_csv
    return {r["task"]: float(r["train_seconds"]) / 3600 for r in read_csv(RESULTS / "baselines" / "baselines.csv")}


def seed_hours(folder: Path) -> dict:
    "{task: hours one more seed's runs take} (median over seeds past the main one of the records' seconds; else the main's)."
    from headprune_nb.runs import read_records
    per = {}
    for sub in ("scores", "records"):
        for r in read_records(folder / sub) if (folder / sub).exists() else []:
            sec = r.timings.get("seconds") if isinstance(r.timings.get("seconds"), (int, float)) else 0
            per.setdefault(r.key.task, {}).setdefault(r.key.seed, 0.0)
            per[r.key.task][r.key.seed] += sec / 3600
    return {t: statistics.median([h for s, h in ss.items() if s != 0] or [ss.get(0, 0.0)]) for t, ss in per.items()}


def plan_rows() -> list[dict]:
    "One row per committed cpu claim: its plan and cost."
    from headprune_nb.power import seeds_needed, MAX_SEEDS
    from headprune_nb.store import read_csv
    base, rows = baseline_hours(), []
    for folder in sorted(p for p in RESULTS.iterdir() if (p / "claims.csv").exists()):
        hours = seed_hours(folder)
        for c in read_csv(folder / "claims.csv"):
            got = seeds_needed(c)
            if (got["needs"] is None or got["needs"] > MAX_SEEDS) and (full := FULL.get(c.get("task", ""))):
                more_ex = seeds_needed(c, examples=full)          # the evaluation set's noise: score the whole split
                got = more_ex if more_ex["needs"] and more_ex["needs"] <= MAX_SEEDS else got
            per = hours.get(c.get("task", ""), 0.0) + base.get(c.get("task", ""), 0.0)
            have = int(c["seeds"]) if str(c.get("seeds", "")).isdigit() else 0
            more = max(0, (got["needs"] or 0) - have) if (got["needs"] or 0) <= MAX_SEEDS else None
            rows.append(dict(experiment=folder.name, task=c.get("task", ""), claim=c["claim"], verdict=c["verdict"],
                             point=c.get("point", ""), lo=c.get("lo", ""), hi=c.get("hi", ""), seeds=c.get("seeds", ""),
                             seed_sd=c.get("seed_sd", ""), needs_seeds=got["needs"] or "", plan=got["plan"],
                             hours_per_seed=round(per, 2), hours_to_plan="" if more is None else round(more * per, 2),
                             trained="" if c["verdict"] != "not decided: under-trained" else c.get("trained", "")[:300]))
    return rows


def main() -> None:
    if len(sys.argv) > 1: sys.exit(__doc__)
    from headprune_nb.store import write_csv
    rows = plan_rows()
    write_csv(OUT, [{k: r.get(k, "") for k in COLS} for r in rows])
    for r in rows:
        print(f"{r['experiment']:>19} {r['task']:>12} | {r['claim'][:48]:48} | {r['verdict'][:14]:14} | {r['plan'][:48]}"
              f" | {r['hours_to_plan']} h")


if __name__ == "__main__":
    main()
