"""Every converted reproduction rebuilds its committed tables and claims from its committed records alone: run with
`--profile cpu` into a copy of the committed folder, it trains nothing (the model cache stays empty) and writes the
same files, byte for byte. This is the regression test of the run layer (issue 36): a change that moves a committed
number, or that needs a model to build a table, fails here."""
import filecmp, json, shutil
import pytest
from headprune_nb.reproduce import run_experiment, committed_dir

REBUILT = {     # experiment -> the committed files its rebuild must write again, identical
    "baselines": ["baselines.csv"],
    "behnke2020": ["claims.csv", "rounds.csv", "table3.csv", "table5.csv", "table7.csv", "tables_vs_published.csv",
                   "figure_rounds_band.csv", "figure_rounds.png"],
    "voita_lambda": ["claims.csv", "sweep.csv", "sweep_seeds.csv"],
}

@pytest.mark.parametrize("name", sorted(REBUILT))
def test_rebuild_from_records(name, tmp_path, monkeypatch):
    committed = committed_dir(name, "cpu")
    out = tmp_path / name
    shutil.copytree(committed, out)
    for f in REBUILT[name]: (out / f).unlink()                      # the rebuild must write them again
    cache = tmp_path / "cache"
    monkeypatch.setenv("HEADPRUNE_CACHE", str(cache))
    monkeypatch.setenv("HEADPRUNE_DATA_DIR", str(tmp_path / "no-data"))        # no data is read either
    params = json.loads((committed / "complete.json").read_text())["params"]      # the committed run's own parameters
    run_experiment(name, "cpu", params, out_dir=out, progress=False)
    assert not cache.exists(), "the rebuild trained, loaded or cached something"
    differ = [f for f in REBUILT[name] if not filecmp.cmp(committed / f, out / f, shallow=False)]
    assert not differ, f"{name}: rebuilt from records, these differ from the committed files: {differ}"
