"""README.md is a front door, reproduce/CLAIMS.md holds the rest: both written by tools/readme.py from their sources."""
import csv, re, sys
from pathlib import Path
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import readme

def test_readme_stays_a_front_door():
    "At most 3,500 words, no issue numbers, and the full tables behind a link."
    text = (ROOT / "README.md").read_text()
    assert len(text.split()) <= 3500, len(text.split())
    assert not re.search(r"\bissues? #?\d+", text, re.I), re.search(r"\bissues? #?\d+", text, re.I)
    claims = (ROOT / "reproduce" / "CLAIMS.md").read_text()
    assert "reproduce/CLAIMS.md" in text and "<!-- table: reproduce/report/claims.csv" in claims

def test_pages_are_what_their_sources_give():
    "What `tools/readme.py --check` checks in CI, for both pages."
    for rel, (src, make) in readme.PAGES.items():
        assert (ROOT / rel).read_text() == make(), f"{rel} differs from {src}: run tools/readme.py"

def test_verdict_line_counts_every_claim():
    "A verdicts line counts each row of the claims file once, by its verdict."
    rel = "reproduce/results/cpu/dsp2021/claims.csv"
    rows = list(csv.DictReader(open(ROOT / rel)))
    line = readme.verdict_line(rel)
    assert sum(int(n) for n in re.findall(r"(\d+) [a-z]", line)) == len(rows), line
    assert readme.verdict_line("reproduce/results/cpu/nothing/claims.csv").startswith("*(no results yet")
