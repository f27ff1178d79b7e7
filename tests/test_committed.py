"The committed results (reproduce/results/) read as what they are."
import csv
from pathlib import Path
import pytest

RESULTS = Path(__file__).resolve().parent.parent / "reproduce" / "results"

MASKS = sorted(p for p in RESULTS.rglob("*masks*.csv") if "kept" in p.read_text().split("\n", 1)[0].strip().split(","))

@pytest.mark.parametrize("path", MASKS, ids=lambda p: str(p.relative_to(RESULTS)))
def test_every_mask_has_every_head(path):
    "A head mask is a 0/1 string with one character per head: one that lost its leading zeros (a CSV read as numbers) misreads."
    kept = [r["kept"] for r in csv.DictReader(path.open(newline=""))]
    assert kept and all(set(k) <= {"0", "1"} for k in kept), path
    lengths = {len(k) for k in kept}
    assert len(lengths) == 1, f"{path}: masks of lengths {sorted(lengths)}"

def test_the_speed_claims_say_what_the_paper_says():
    "The committed report's published column is filled for every michel2019_speed claim (it was empty for all seven)."
    rows = [r for r in csv.DictReader((RESULTS.parent / "report" / "claims.csv").open(newline="")) if r["experiment"] == "michel2019_speed"]
    assert len(rows) == 14 and all(r["published"] for r in rows), [r["claim"] for r in rows if not r["published"]]
    assert any(r["published"].startswith("+17.5% at batch 64") for r in rows)

def test_every_smoke_run_is_timed_cold_on_idle_cores():
    "reproduce/smoke_times.csv (tools/smoke_times.py): every experiment's smoke run from a cold cache on idle cores; none over a minute."
    from headprune_nb.reproduce import EXPERIMENTS
    rows = list(csv.DictReader((RESULTS.parent / "smoke_times.csv").open(newline="")))
    assert sorted(r["experiment"] for r in rows) == sorted(EXPERIMENTS)
    # the goal: every smoke run under a minute cold on idle cores (dsp2021 and pass2023 reach it on two cores, their grids
    # in two forked workers: executors.CoresExecutor, the smoke default)
    slow = {r["experiment"]: r["wall_s"] for r in rows if float(r["wall_s"]) >= 60}
    assert not slow, f"smoke runs over their limit (seconds): {slow}"
    assert not [r["experiment"] for r in rows if r["competing"] == "True"], "measured while other work competed: measure again"
    assert all(r["commit"] and r["measured_utc"] and r["cores"] and float(r["reference_s"]) > 0 for r in rows)   # with the machine's speed

def test_smoke_times_tool_measures_the_run_and_the_machine(tmp_path):
    "The tool times a child process (wall and CPU seconds), names a failed run, and refuses an unknown experiment."
    import subprocess, sys
    sys.path.insert(0, str(RESULTS.parent.parent / "tools"))
    import smoke_times
    busy = tmp_path / "headprune"
    busy.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass'\n")
    busy.chmod(0o755)
    row = smoke_times.measure("x", str(busy), tmp_path)
    assert row["wall_s"] >= 0.6 and 0.5 <= row["cpu_s"] <= row["wall_s"] + 0.2 and row["other_cores"] is not None, row
    busy.write_text("#!/bin/sh\necho broken >&2\nexit 3\n")
    with pytest.raises(SystemExit, match="x: the smoke run failed .exit 3.*broken"): smoke_times.measure("x", str(busy), tmp_path)
    assert 0 < smoke_times.reference_seconds() < 120                          # the machine's speed: a fixed workload's seconds
    r = subprocess.run([sys.executable, str(RESULTS.parent.parent / "tools" / "smoke_times.py"), "nope"], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.strip().startswith("unknown experiment(s) nope") and "Traceback" not in r.stderr

def test_every_committed_rule_is_registered(monkeypatch):
    "Every rule of a committed claim or budget row is in reproduce/rules.csv (tools/rules.py registers them; the report says which came after their results)."
    import importlib.util
    monkeypatch.setenv("HEADPRUNE_REPRODUCE_DIR", str(RESULTS.parent))
    spec = importlib.util.spec_from_file_location("rules_tool", RESULTS.parent.parent / "tools" / "rules.py")
    tool = importlib.util.module_from_spec(spec); spec.loader.exec_module(tool)
    assert tool.main(["--check"]) == 0, "rules not registered: run python tools/rules.py (and commit reproduce/rules.csv)"

UNTRAINED = {"michel2019_speed": "timings of random weights: nothing is trained",
             "llm_heads": "a pretrained model pruned; its recovery fine-tune is the same fixed procedure for every system compared"}

def test_every_decisive_verdict_rests_on_converged_runs():
    "Every committed decisive row (claims and budget rows) rests on runs that all passed the convergence test (nbs/19_convergence)."
    bad = []
    for f in sorted(RESULTS.glob("*/*/claims.csv")) + sorted(RESULTS.glob("*/*/budgets.csv")):
        for r in csv.DictReader(f.open(newline="")):
            if r.get("verdict") not in ("supported", "contradicted") or f.parent.name in UNTRAINED: continue
            if not (r.get("trained") or "").startswith("all "): bad.append(f"{f.relative_to(RESULTS)}: {r['claim'][:60]} ({r.get('trained')!r})")
    assert not bad, "decisive rows whose runs are not all converged:\n" + "\n".join(bad)

def test_the_power_plan_is_current_and_names_what_undertrained_claims_need():
    """reproduce/power.csv is what tools/power.py computes from the committed claims, and every under-trained claim in
    it says what its runs need."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("power_tool", RESULTS.parent.parent / "tools" / "power.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    got = [{k: str(r.get(k, "")) for k in tool.COLS} for r in tool.plan_rows()]
    committed = list(csv.DictReader((RESULTS.parent / "power.csv").open(newline="")))
    assert got == committed, "reproduce/power.csv is stale: run python tools/power.py (and commit it)"
    assert all(r["training"] for r in committed if r["verdict"] == "not decided: under-trained")
