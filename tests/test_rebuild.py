"""Every converted reproduction rebuilds its committed tables and claims from its committed records alone: run with
`--profile cpu` (its defaults: every task) into a copy of the committed folder, it trains nothing (the model cache stays empty) and writes the
same files: images byte for byte, and tables cell for cell, every number to 1e-9 of itself (a float's last digits
follow the machine's BLAS and SIMD kernels: a bootstrap's matrix product or a BLEU's log and exp sums in another order
on another CPU or numpy, which moved 38.53786276083262 to 38.537862760832624 on CI). This is the regression test of
the run layer (issue 36): a change that moves a committed number, or that needs a model to build a table, fails here."""
import csv, filecmp, io, math, os, shutil
import pytest
from headprune_nb.reproduce import committed_dir, rebuild_from_records

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

def _same_cell(a: str, b: str) -> bool:
    if a == b: return True
    try: x, y = float(a), float(b)
    except ValueError: return False
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)

def difference(committed, rebuilt) -> str | None:
    "Where a rebuilt file differs from its committed one beyond a float's last digits (None: the same)."
    if committed.suffix != ".csv": return None if filecmp.cmp(committed, rebuilt, shallow=False) else "bytes differ"
    a, b = (list(csv.reader(io.StringIO(f.read_text()))) for f in (committed, rebuilt))    # read whole: no file left open
    if len(a) != len(b): return f"{len(a)} rows committed, {len(b)} rebuilt"
    for i, (ra, rb) in enumerate(zip(a, b)):
        if len(ra) != len(rb) or not all(map(_same_cell, ra, rb)): return f"row {i}: {ra} committed, {rb} rebuilt"
    return None

def test_difference_sees_a_moved_number_not_a_last_digit(tmp_path):
    a, b, c = (tmp_path / f"{n}.csv" for n in "abc")
    a.write_text("x,y\n0,38.53786276083262\n"); b.write_text("x,y\n0,38.537862760832624\n"); c.write_text("x,y\n0,38.5379\n")
    assert difference(a, b) is None and "row 1" in difference(a, c)

# the full runs rebuilt here, with the parameters their records were made with
FULL = {"michel2019_speed": dict(device="cuda")}

@pytest.mark.parametrize("profile,name", [("cpu", n) for n in sorted(REBUILT)] + [("full", n) for n in FULL])
def test_rebuild_from_records(profile, name, tmp_path):
    committed = committed_dir(name, profile)
    out = tmp_path / name
    shutil.copytree(committed, out)
    for f in REBUILT[name]: os.utime(out / f, (0, 0))              # the rebuild must write them again (a run in parts keeps
                                                                    # the order of the rows its earlier parts wrote)
    assert rebuild_from_records(name, out, tmp_path, profile, FULL.get(name) if profile == "full" else None), \
        "the rebuild trained, loaded or cached something"
    kept = [f for f in REBUILT[name] if (out / f).stat().st_mtime == 0]
    assert not kept, f"{name}: the rebuild did not write {kept}"
    differ = {f: d for f in REBUILT[name] if (d := difference(committed / f, out / f))}
    assert not differ, f"{name}: rebuilt from records, these differ from the committed files: {differ}"
