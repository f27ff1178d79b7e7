"""Give the committed cpu records what the convergence test reads (nbs/19_convergence), where what they store holds it.

Records made before the test have no `extra["convergence"]`, and `verdicts.guard` takes a run without it as not
converged. This re-derives the facts from what was committed, and writes nothing it cannot derive:

* each seed's baseline as a run (method `fit`, `runs.fit_key`) in every experiment folder that uses it: the facts of
  its committed training log (`reproduce/results/cpu/baselines/<task>_log.csv` for seed 0,
  `baselines/seeds/<task>-seed<s>/<task>_log.csv` for the others); a baseline without a committed log gets a record
  saying so (`convergence` None: not converged, its claims `not decided: under-trained` until it is trained again);
  a baseline trained again (its earlier model's folder moved to `baselines/seeds/superseded/`) counts for the
  experiments redone on the new model (`REDONE_ON_RETRAINED`), the earlier log for the others;
* learned runs whose record kept when their selection settled (`extra["decided"]`) and their gates: their settled step
  and gate states; DSP's temperature at the end from its schedule (`api.HP`: the cooldown ends inside every phase);
  runs without `decided` are left as they are (no facts: not converged).

    python tools/convergence_records.py            # every committed cpu experiment folder (idempotent)
"""
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "reproduce" / "results" / "cpu"
USES = {"dsp2021": ("scores", ["sst2", "multi30k"]), "pass2023": ("scores", ["sst2", "multi30k", "rte", "mnli_proxy"]),
        "michel2019_pruning": ("scores", ["sst2", "mnli_proxy", "multi30k"]),
        "michel2019_ablation": ("scores", ["sst2", "multi30k"]), "voita_lambda": ("records", ["sst2"])}
DSP_METHODS = ("dsp", "joint_dsp", "pipelined_dsp")


SUPERSEDED = RESULTS / "baselines" / "seeds" / "superseded"    # baselines trained again: the earlier models' logs
REDONE_ON_RETRAINED = {"michel2019_pruning", "michel2019_ablation"}    # experiments whose runs use the new models


def baseline_log(task: str, seed: int, experiment: str = "") -> Path | None:
    """The committed training log of the `task` baseline of `seed` that `experiment`'s runs were made on (None: none
    committed): a superseded model's log for an experiment not redone on the retrained one."""
    base, old = RESULTS / "baselines", SUPERSEDED / f"{task}-seed{seed}" / f"{task}_log.csv"
    if experiment not in REDONE_ON_RETRAINED and old.exists(): return old
    p = base / f"{task}_log.csv" if seed == 0 else base / "seeds" / f"{task}-seed{seed}" / f"{task}_log.csv"
    return p if p.exists() else None


def fit_records(folder: Path, tasks, seeds=(0, 1, 2), experiment: str = "") -> int:
    "Write each (task, seed)'s `fit` record under `folder` from its committed log; returns how many were written."
    from headprune_nb.convergence import log_facts
    from headprune_nb.runs import RunRecord, fit_key, save_record, migrated
    n = 0
    for task in tasks:
        for s in seeds:
            log = baseline_log(task, s, experiment)
            prov = migrated(log.relative_to(ROOT)) if log else migrated(base=dict(no_log="no committed training log"))
            save_record(folder, RunRecord(fit_key("cpu", task, s), extra=dict(convergence=log_facts(log) if log else None),
                                          provenance=prov))
            n += 1
    return n


def derived(rec) -> dict | None:
    "A learned run's facts from its record's `decided` and gates (None: it kept no `decided`)."
    from headprune_nb.api import HP
    d, g = rec.extra.get("decided"), rec.gates
    if not d: return None
    at = d.get("decided_at_step")
    f = dict(steps=int(d["phase_steps"]), settled_at=None if at in (None, "") else int(at),
             settled_share=None if at in (None, "") else float(d["decided_share"]), loss_fall=None,
             derived_from="decided" + (", gates" if g else "") + (", the schedule's tau_end" if rec.key.method in DSP_METHODS else ""))
    if g: f.update(open=int(g["open"]), closed=int(g["closed"]), undecided=int(g["undecided"]))
    if rec.key.method in DSP_METHODS:
        end = HP["dsp"]["mt" if rec.key.task == "multi30k" else "cls"]["tau_end"]
        f.update(tau_final=end, tau_end=end)
    return f


def learned_records(folder: Path) -> int:
    "Amend every learned record under `folder` that kept `decided` with its derived facts; returns how many."
    from headprune_nb.convergence import TESTS
    from headprune_nb.runs import save_record, read_records
    n = 0
    for rec in read_records(folder):
        if rec.key.method not in TESTS or rec.key.method == "fit" or "convergence" in rec.extra: continue
        if (f := derived(rec)) is None: continue
        save_record(folder, replace(rec, extra=dict(rec.extra, convergence=f)), scores_there=rec.scores is not None)
        n += 1
    return n


def main() -> None:
    if len(sys.argv) > 1: sys.exit(__doc__)
    for name, (sub, tasks) in USES.items():
        folder = RESULTS / name / sub
        print(f"{name}: {fit_records(folder, tasks, experiment=name)} fit records, {learned_records(folder)} learned "
              "records amended")


if __name__ == "__main__":
    main()
