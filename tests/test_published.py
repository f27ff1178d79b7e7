"Published numbers are transcribed by hand: check each against the paper's text where we have it."
from pathlib import Path
import pytest
from headprune_nb.reproduce import read_csv, reproduce_dir

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
