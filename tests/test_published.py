"Published numbers are transcribed by hand: check each against the paper's text where we have it."
from pathlib import Path
import pytest
from headprune_nb.reproduce import reproduce_dir
from headprune_nb.store import read_csv

PAPERS = Path(__file__).resolve().parents[2] / "shared" / "papers"

@pytest.mark.skipif(not (PAPERS / "michel2019_sixteen_heads.md").exists(), reason="paper texts not beside the checkout")
def test_michel_table4_matches_the_paper():
    text = (PAPERS / "michel2019_sixteen_heads.md").read_text()
    rows = read_csv(reproduce_dir() / "published" / "michel2019_table4.csv")
    orig = "Original\t" + "\t".join(f"{r['original_eps']:.1f} ± {r['original_std']:.1f}" for r in rows)
    pruned = "Pruned (50%)\t" + "\t".join(f"{r['pruned_eps']:.1f} ± {r['pruned_std']:.1f}" for r in rows)
    gains = "\t".join(f"(+{r['speedup_pct']:.1f}%)" for r in rows)
    assert orig in text and pruned in text and gains in text

@pytest.mark.skipif(not (PAPERS / "li2021_differentiable_subset_pruning.md").exists(), reason="paper texts not beside the checkout")
def test_li_figure4_claim_matches_the_paper():
    text = (PAPERS / "li2021_differentiable_subset_pruning.md").read_text()
    (row,) = read_csv(reproduce_dir() / "published" / "li2021_figure4_claims.csv")
    assert f"\\approx {row['speedup_pct']}\\%" in text and f"\\approx {row['size_shrinkage_pct']}\\%" in text
    assert "more than 90% of the heads are removed" in text

MICHEL = PAPERS / "michel2019_sixteen_heads.md"

@pytest.mark.skipif(not MICHEL.exists(), reason="paper texts not beside the checkout")
def test_michel_ablation_tables_match_the_paper():
    text = MICHEL.read_text()
    cell = lambda v, sig: f"<u>{v:.2f}</u>" if sig else f"{v:.2f}"
    t1 = read_csv(reproduce_dir() / "published" / "michel2019_table1.csv")
    for layer in range(1, 7):
        row = [r for r in t1 if r["layer"] == layer]
        assert _row_in(text, layer, [(r["delta_bleu"], r["significant"]) for r in row]), layer
    for n in (2, 5):
        t = read_csv(reproduce_dir() / "published" / f"michel2019_table{n}.csv")
        for layer in range(1, 7):
            row = {r["kind"]: r for r in t if r["layer"] == layer}
            line = f"{layer}\t" + "\t".join(cell(row[k]["delta_bleu"], row[k]["significant"]) for k in ("enc_self", "cross", "dec_self"))
            assert line in text, line
    for n in (3, 6):
        t = {r["layer"]: r["delta_acc_pct"] for r in read_csv(reproduce_dir() / "published" / f"michel2019_table{n}.csv")}
        assert len(t) == 12
        for layer in range(1, 7):
            assert any(f"{layer}\t{t[layer]:.2f}%" in l and f"{layer + 6}\t{t[layer + 6]:.2f}%" in l for l in text.splitlines()), (n, layer)

def _row_in(text, layer, cells):
    "Is there a 17-column row of Table 1 for `layer` with these (value, underlined) cells? (-0.00 reads as 0.)"
    for l in text.splitlines():
        parts = l.split("\t")
        if len(parts) == 17 and parts[0] == str(layer):
            got = [(float(x.replace("<u>", "").replace("</u>", "")), int("<u>" in x)) for x in parts[1:]]
            if got == [(float(v), int(s)) for v, s in cells]: return True
    return False

@pytest.mark.parametrize("name, paper", [("michel2019_claims.csv", "michel2019_sixteen_heads.md"),
                                         ("li2021_figure3_voita.csv", "li2021_differentiable_subset_pruning.md"),
                                         ("li2021_claims.csv", "li2021_differentiable_subset_pruning.md"),
                                         ("pass2023_claims.csv", "pass2023_almost_sure_sparsity.md"),
                                         ("behnke2020_claims.csv", "behnke2020_losing_heads_lottery.md")])
def test_quoted_claims_are_in_the_paper(name, paper):
    if not (PAPERS / paper).exists(): pytest.skip("paper texts not beside the checkout")
    text = (PAPERS / paper).read_text()
    for r in read_csv(reproduce_dir() / "published" / name):
        assert r["quote"] in text, r["quote"]

LI = PAPERS / "li2021_differentiable_subset_pruning.md"

@pytest.mark.skipif(not LI.exists(), reason="paper texts not beside the checkout")
def test_li_table3_matches_the_paper():
    "Every row of Table 3 (a: BERT/MNLI-mm, b: Enc-Dec/IWSLT), bold cells included, is a line of the paper."
    lines = set(LI.read_text().splitlines())
    rows = read_csv(reproduce_dir() / "published" / "li2021_table3.csv")
    methods = ("michel", "pipelined_dsp", "voita", "ste", "joint_dsp")
    for r in rows:
        cells = [f"<b>{r[m]:.2f}</b>" if m in str(r["bold"]).split("|") else f"{r[m]:.2f}" for m in methods]
        assert f"{r['heads']}\t" + "\t".join(cells) in lines, r
    assert [r["heads"] for r in rows if r["model"] == "bert-base"] == list(range(132, 0, -12)) + list(range(11, 0, -1))
    assert [r["heads"] for r in rows if r["model"] == "iwslt-encdec"] == list(range(68, 0, -4)) + [3, 2, 1]

PASS = PAPERS / "pass2023_almost_sure_sparsity.md"

@pytest.mark.parametrize("name, fmt", [("pass2023_accuracy.csv", "{:.2f}"), ("pass2023_speedup.csv", "{:.1f}")])
def test_pass_tables_match_the_paper(name, fmt):
    "Every row (task, K: PASS, PASSCONC, DSP, LAG, Voita) of Tables 1, 2 and 4-7 is a run of cells in a line of the paper."
    if not PASS.exists(): pytest.skip("paper texts not beside the checkout")
    lines = PASS.read_text().splitlines()
    rows = read_csv(reproduce_dir() / "published" / name)
    assert sorted({r["task"] for r in rows}) == ["glue_avg", "iwslt14", "mnli", "qnli", "qqp", "sst2"]
    for r in rows:
        cells = "\t".join(fmt.format(r[m]) for m in ("pass", "passconc", "dsp", "lag", "voita"))
        assert any(l.startswith(f"{r['K']}\t") and cells in l for l in lines), r
    # the GLUE average of Table 1 is the mean of the four per-task tables (to rounding)
    for K in (16, 32, 48, 64):
        avg = next(r for r in rows if r["task"] == "glue_avg" and r["K"] == K)
        for m in ("pass", "passconc", "dsp", "lag", "voita"):
            mean = sum(r[m] for r in rows if r["task"] in ("mnli", "qqp", "qnli", "sst2") and r["K"] == K) / 4
            assert abs(mean - avg[m]) < 0.06, (K, m, mean, avg[m])

BEHNKE = PAPERS / "behnke2020_losing_heads_lottery.md"

@pytest.mark.skipif(not BEHNKE.exists(), reason="paper texts not beside the checkout")
@pytest.mark.parametrize("n", [3, 4, 5, 7])
def test_behnke_tables_match_the_paper(n):
    "Each transcribed row, cells joined by tabs (the paper text's table format), is a line of the paper."
    import csv
    lines = set(BEHNKE.read_text().splitlines())
    with open(reproduce_dir() / "published" / f"behnke2020_table{n}.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows
    for r in rows:
        cells = [v for k, v in r.items() if k not in ("source", "pair")]
        assert "\t".join(cells) in lines, r
