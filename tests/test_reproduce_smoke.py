"A papermill `smoke` run of every reproduction notebook, and checks of what it leaves on disk."
import json
import pytest
from headprune_nb.reproduce import EXPERIMENTS, run_experiment, read_csv, reproduce_dir

@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_smoke_run_writes_results_with_provenance(name, tmp_path, monkeypatch):
    monkeypatch.setenv("HEADPRUNE_CACHE", str(tmp_path / "cache"))
    out = run_experiment(name, "smoke", out_dir=tmp_path / name, progress=False)
    exp = EXPERIMENTS[name]
    assert (out / exp.notebook).exists(), "the executed notebook is kept beside its results"
    prov = json.loads((out / "provenance.json").read_text())
    for key in ("command", "profile", "seed", "headprune_nb", "machine", "params", "finished_utc"):
        assert key in prov, key
    assert prov["profile"] == "smoke" and prov["command"].startswith("headprune reproduce " + name)
    assert list(out.glob("*.csv")), "a reproduction writes CSV results"

def test_michel2019_speed_smoke_tables(tmp_path):
    out = run_experiment("michel2019_speed", "smoke", out_dir=tmp_path, progress=False,
                         params=dict(batch_sizes=[1, 2], levels=[4, 2], n_masks=2))
    t4 = read_csv(out / "table4.csv")
    assert [r["batch_size"] for r in t4] == [1, 2]
    for r in t4:
        assert r["heads"] == 8 and r["heads_kept"] == 4 and r["ideal_speedup"] > 1
    f4 = read_csv(out / "figure4.csv")
    assert [r["heads_left"] for r in f4] == [4, 2] and all(r["masks"] == 2 for r in f4)
    assert f4[1]["size_shrinkage_pct"] > f4[0]["size_shrinkage_pct"] > 0     # fewer heads, smaller model
    assert (out / "figure4.png").stat().st_size > 0
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["params"]["batch_sizes"] == [1, 2]

def test_every_published_table_exists():
    for exp in EXPERIMENTS.values():
        for f in exp.published:
            rows = read_csv(reproduce_dir() / "published" / f)
            assert rows and all(r.get("source") for r in rows), f

def test_baselines_smoke_learns_and_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("HEADPRUNE_CACHE", str(tmp_path / "cache"))
    out = run_experiment("baselines", "smoke", out_dir=tmp_path / "out", progress=False)
    rows = {r["task"]: r for r in read_csv(out / "baselines.csv")}
    assert set(rows) == {"synthetic_cls", "synthetic_mt"}
    assert rows["synthetic_cls"]["value"] > 85 and rows["synthetic_mt"]["value"] > 50     # the tiny tasks are learnt
    assert (tmp_path / "cache" / "models" / "smoke" / "synthetic_mt" / "config.json").exists()
    assert (out / "synthetic_mt_log.csv").exists()
