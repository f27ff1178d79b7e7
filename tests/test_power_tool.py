"tools/power.py's plan arithmetic: the hours a plan costs and the evidence that a run needs a longer phase."
import csv, importlib.util
from pathlib import Path
import pytest

TOOL = Path(__file__).resolve().parent.parent / "tools" / "power.py"


@pytest.fixture
def tool():
    spec = importlib.util.spec_from_file_location("power_tool", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def training(again=(), longer=None, bases=None, elsewhere=""):
    return dict(again=list(again), longer=longer or {}, bases=bases or {}, elsewhere=elsewhere)


def test_hours_count_new_seeds_runs_made_again_and_unknown_costs(tool):
    assert tool.hours_to_plan(5, 3, 1.0, 0.5, None) == 3.0                      # 2 new seeds, each a baseline and runs
    assert tool.hours_to_plan(3, 3, 1.0, 0.5, training(["PASS K=16 seed 1"])) == 3.0   # 3 present seeds made again
    assert tool.hours_to_plan(2, 3, 1.0, 0.5, training(["x seed 1"])) == 2.0    # as many as the plan needs
    assert tool.hours_to_plan(3, 3, 1.0, 0.5, training(bases={"t baseline seed 1": "loss falls"})) == 3.5
    assert tool.hours_to_plan(4, 3, None, 0.5, None) == ""                       # runs never timed: unknown, not free
    assert tool.hours_to_plan(3, 3, None, 0.5, None) == 0.0                      # nothing to run
    assert tool.hours_to_plan(None, 3, 1.0, 0.5, None) == ""                     # no number of seeds decides
    assert tool.hours_to_plan(13, 3, 1.0, 0.5, None) == ""                       # more than MAX_SEEDS
    assert tool.hours_to_plan(3, 3, 1.0, 0.5, training(longer={"PASS K=16 seed 0": "..."})) == ""
    assert tool.hours_to_plan(3, 3, 1.0, 0.5, training(["VOITA K=4 seed 1"], elsewhere="still failed")) == ""


def test_a_failure_elsewhere_is_evidence_for_the_same_method_and_task_only(tool, tmp_path, monkeypatch):
    (tmp_path / "e").mkdir()
    rows = [dict(task="sst2", budget="94 steps", trained="2 of 3 runs not converged: Voita lambda 0.0004 seed 0: kept "
                 "set final from step 1335 of 1504; 48/72 gates undecided; ticket round 9 seed 0: loss falls +12.0% "
                 "over the last quarter")]
    with open(tmp_path / "e" / "claims.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    monkeypatch.setattr(tool, "RESULTS", tmp_path)
    failed = tool.failures()
    assert failed[("voita", "sst2")][0] == 1504                                  # the phase its text names
    assert failed[("ticket", "sst2")][0] == 94                                   # a plateau failure: the row's phase
    got = tool.longer_than(training(["VOITA K=4 seed 1", "STE K=4 seed 1"]), "sst2", 94, failed)
    assert "Voita lambda 0.0004 seed 0 still failed at 1504 steps" in got and "STE" not in got
    assert tool.longer_than(training(["VOITA K=4 seed 1"]), "multi30k", 47, failed) == ""    # another task
    assert tool.longer_than(training(["VOITA K=4 seed 1"]), "sst2", 2000, failed) == ""      # a longer phase here
