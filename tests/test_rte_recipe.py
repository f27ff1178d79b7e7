"tools/rte_recipe.py (issue 18, item 4) in a dry run: every variant and seed scored on the same examples, one paired decision per candidate, and a second run that trains nothing."
import csv, importlib.util
from pathlib import Path
from headprune_nb.store import DRY_RUN_ENV
from headprune_nb.verdicts import VERDICTS

TOOL = Path(__file__).resolve().parent.parent / "tools" / "rte_recipe.py"

def rte_recipe():
    spec = importlib.util.spec_from_file_location("rte_recipe", TOOL)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    return m

def rows(path): return list(csv.DictReader(open(path)))

def test_rte_recipe_check_in_a_dry_run(tmp_path, monkeypatch):
    monkeypatch.setenv(DRY_RUN_ENV, str(tmp_path / "dry"))
    monkeypatch.setenv("HEADPRUNE_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out"
    rte_recipe().main(["--seeds", "0", "1", "--out", str(out)])
    runs = rows(out / "runs.csv")
    assert {(r["variant"], r["seed"]) for r in runs} == {(v, s) for v in ("registry", "long", "mnli_init") for s in ("0", "1")}
    assert all(r["train_seconds"] != "" for r in runs)
    dec = {r["claim"]: r for r in rows(out / "decision.csv")}
    assert set(dec) == {"long lifts the RTE baseline", "mnli_init lifts the RTE baseline"}
    for d in dec.values():
        assert float(d["lo"]) <= float(d["point"]) <= float(d["hi"]) and d["seeds"] == "2" and d["verdict"] in VERDICTS
    (tmp_path / "cache").rename(tmp_path / "gone")          # no model left to load or resume: the cached scores must do
    rte_recipe().main(["--seeds", "0", "1", "--out", str(out)])
    assert rows(out / "runs.csv") == runs
