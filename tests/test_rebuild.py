"""Every converted reproduction rebuilds its committed tables and claims from its committed records alone: run with
`--profile cpu` (its defaults: every task) into a copy of the committed folder, it trains nothing (the model cache stays empty) and writes the
same files, byte for byte. This is the regression test of the run layer (issue 36): a change that moves a committed
number, or that needs a model to build a table, fails here."""
import filecmp, os, shutil
import pytest
from headprune_nb.reproduce import run_experiment, committed_dir

REBUILT = {     # experiment -> the committed files its rebuild must write again, identical
    "baselines": ["baselines.csv"],
    "behnke2020": ["claims.csv", "rounds.csv", "table3.csv", "table5.csv", "table7.csv", "tables_vs_published.csv",
                   "figure_rounds_band.csv", "figure_rounds.png"],
    "dsp2021": ["budgets.csv", "claims.csv", "figure2.png", "figure2_band.csv", "figure5.csv", "figure5.png", "figure6.csv", "figure6.png",
                "figure7.csv", "figure7.png", "table3.csv", "table3_masks.csv", "table3_vs_published.csv", "unpruned.csv"],
    "michel2019_ablation": ["claims.csv", "summary_vs_published.csv", "table1.csv", "table1_multi30k.png", "table1_significance.csv", "table1_sst2.png", "tables_2_3_5_6.csv"],
    "michel2019_pruning": ["claims.csv", "figure3.csv", "figure3.png", "figure3_band.csv", "figure3_masks.csv", "figure4.csv", "figure4.png", "figure4_band.csv", "figure4_masks.csv", "figure5.csv", "figure5.png", "figure5_band.csv"],
    "michel2019_speed": ["claims.csv", "figure4.csv", "figure4.png", "figure4_masks.csv", "table4.csv", "table4_operators.csv", "table4_vs_published.csv"],
    "pass2023": ["almost_sure.csv", "budgets.csv", "claims.csv", "decided.csv", "figure6.png", "figure6_band.csv", "table1.csv", "table1_masks.csv", "table2.csv", "tables_vs_published.csv", "unpruned.csv"],
    "voita_lambda": ["claims.csv", "sweep.csv", "sweep_seeds.csv"],
}

FULL = {"michel2019_speed": dict(device="cuda")}
PARTS = {"dsp2021": [dict(tasks=["multi30k"], budgets=[100, 400]), dict(tasks=["sst2"])]}   # runs committed in parts: the parts    # the full runs rebuilt here, with the parameters their records were made with

@pytest.mark.parametrize("profile,name", [("cpu", n) for n in sorted(REBUILT)] + [("full", n) for n in FULL])
def test_rebuild_from_records(profile, name, tmp_path, monkeypatch):
    committed = committed_dir(name, profile)
    out = tmp_path / name
    shutil.copytree(committed, out)
    for f in REBUILT[name]: os.utime(out / f, (0, 0))              # the rebuild must write them again (a run in parts keeps
                                                                    # the order of the rows its earlier parts wrote)
    cache = tmp_path / "cache"
    monkeypatch.setenv("HEADPRUNE_CACHE", str(cache))
    monkeypatch.setenv("HEADPRUNE_DATA_DIR", str(tmp_path / "no-data"))        # no data is read either
    for params in PARTS.get(name, [FULL.get(name) if profile == "full" else None]):            # else: every task, the defaults
        run_experiment(name, profile, params, out_dir=out, progress=False)
    assert not cache.exists(), "the rebuild trained, loaded or cached something"
    kept = [f for f in REBUILT[name] if (out / f).stat().st_mtime == 0]
    assert not kept, f"{name}: the rebuild did not write {kept}"
    differ = [f for f in REBUILT[name] if not filecmp.cmp(committed / f, out / f, shallow=False)]
    assert not differ, f"{name}: rebuilt from records, these differ from the committed files: {differ}"
