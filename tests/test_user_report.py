"""The report a user gets after `make reproduce` (the default experiment, then `headprune report` into
./headprune-results/report): every row has its committed counterpart (no 'no committed run' rows for the claims the
user did not run), and the report opens with the user's run (machine, load, what widened and why)."""
import csv, json, re, shutil
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = "michel2019_speed"            # the Makefile's EXPERIMENT: what `make reproduce` runs


def key(r: dict) -> tuple: return (r["experiment"], r["profile"], r["claim"], r["task"])


def user_run(cwd: Path) -> Path:
    """A user's finished cpu run of the default experiment in cwd/headprune-results: the committed run's files, one
    claim's interval made three times as wide and one timing marked as competing with other work."""
    d = cwd / "headprune-results" / "cpu" / DEFAULT
    shutil.copytree(ROOT / "reproduce" / "results" / "cpu" / DEFAULT, d, ignore=shutil.ignore_patterns("*.ipynb"))
    with open(d / "claims.csv", newline="") as f: rows = list(csv.DictReader(f))
    lo, hi = float(rows[0]["lo"]), float(rows[0]["hi"])
    rows[0]["lo"], rows[0]["hi"] = f"{lo - (hi - lo):.3f}", f"{hi + (hi - lo):.3f}"       # still above its threshold
    rows[0]["ours"] = rows[0]["ours"].split(" [")[0] + f" [{lo - (hi - lo):+.2f}, {hi + (hi - lo):+.2f}]"
    with open(d / "claims.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    p = json.loads((d / "provenance.json").read_text())
    for t in p["load"]["table4"]: t["competing"] = False
    p["load"]["table4"][-1].update(competing=True, other_cores=1.3, load_during_max=3.4)
    p["load"]["figure4_competing"] = 0
    (d / "provenance.json").write_text(json.dumps(p))
    return d


def report_rows(cwd: Path, monkeypatch) -> tuple[list[dict], str]:
    from headprune_nb.report import build_report
    monkeypatch.chdir(cwd)
    md, _ = build_report()                     # as `headprune report`: ./headprune-results/report, cpu and full
    with open(md.parent / "claims.csv", newline="") as f: return list(csv.DictReader(f)), md.read_text()


def test_a_user_run_of_the_default_experiment_reports_every_row_beside_its_committed_one(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from headprune_nb.report import finished_results, claim_rows, three_way_claims
    from headprune_nb.reproduce import PROFILES
    (tmp_path / "user").mkdir()
    user_run(tmp_path / "user")
    mine, text = report_rows(tmp_path / "user", monkeypatch)
    found = finished_results()                                          # the report's rows without a run of yours
    committed = three_way_claims(claim_rows(found, sorted({p for _, p, _ in found}, key=PROFILES.index)), [])
    assert [key(r) for r in mine] == [key(r) for r in committed]       # no row the committed report lacks
    assert not [key(r) for r in mine if r["verdict"] == "no committed run"]
    ran = [r for r in mine if r["experiment"] == DEFAULT and r["profile"] == "cpu"]
    assert ran and all(r["your_verdict"] == r["verdict"] for r in ran)              # a copy: the same verdicts
    assert {r["your_verdict"] for r in mine if r not in ran} == {"not run"}
    # the report opens with your run: machine, load, what widened and why
    assert re.findall(r"^## (.*)$", text, re.M)[:2] == ["Your run", "Claims"]
    first = text[:text.index("## Claims")]
    load = json.loads((ROOT / "reproduce" / "results" / "cpu" / DEFAULT / "provenance.json").read_text())["load"]
    timings = len(load["table4"]) + load["figure4_timings"]
    assert "Machine: " in first and f"1 of {timings} timings competed with other work" in first
    assert f"Verdicts: {len(ran)} of {len(ran)} the same" in first
    assert f"as wide as the committed run's: 1 of {len(ran)}; what differs: your run shared its cores" in first
    assert "| 3.0x |" in first
    header = next(l for l in text.splitlines() if l.startswith("| experiment | profile | claim |"))
    assert header.startswith("| experiment | profile | claim | task | committed verdict | your verdict |")
