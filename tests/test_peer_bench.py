"""The peer benchmark's plumbing (tools/peer_bench.py, issue 42): no peer virtualenv, no timing that means anything.

`--peer self` times our model against itself in this process on a tiny BERT: the rounds, the alternation, the intervals,
the goals and the result files with their provenance. A few seconds on 2 idle cores."""
import csv, importlib.util, json, sys
from pathlib import Path
import pytest

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def tool(name):
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def pb(): return tool("peer_bench")


@pytest.fixture(scope="module")
def result(pb, tmp_path_factory):
    out = tmp_path_factory.mktemp("peer")
    rc = pb.main(["--peer", "self", "--shape", "tiny", "--rounds", "2", "--batches", "1,2", "--shares", "0.5",
                  "--seq", "8", "--repeats", "1", "--min-seconds", "0", "--keep-going", "--out", str(out)])
    assert rc == 0
    return list(csv.DictReader((out / "self.csv").open())), json.loads((out / "self.json").read_text())


def test_rows_and_columns(result):
    rows, _ = result
    assert [(r["batch_size"], r["heads_removed_pct"]) for r in rows] == [("1", "50"), ("2", "50")]
    for col in ("ours_original_eps", "ours_pruned_eps", "peer_original_eps", "peer_pruned_eps", "ideal_speedup_pct",
                "speedup_diff_pts_low", "ours_share_of_ideal_gain_high", "pruned_ratio_low", "pruned_ratio_high",
                "goal_3a_speedup", "goal_3a_ideal", "goal_3b_pruned", "gap", "competing", "max_abs_output_diff"):
        assert col in rows[0], col
    for r in rows:
        assert float(r["ours_pruned_eps"]) > 0 and r["rounds"] == "2"
        assert float(r["pruned_ratio_low"]) <= float(r["pruned_ratio"]) <= float(r["pruned_ratio_high"])
        assert r["goal_3b_pruned"] in ("met", "missed", "inconclusive") and r["goal_3a_ideal"] == "n/a"   # batch < 16
        assert float(r["ideal_speedup_pct"]) > 0 and float(r["max_abs_output_diff"]) == 0.0       # the same model


def test_provenance(result):
    _, prov = result
    for k in ("command", "transformers", "peer_transformers", "ours_torch", "peer_torch", "machine", "git_commit", "load",
              "timings", "heads_removed"):
        assert k in prov or k in prov["params"], k
    assert prov["command"].startswith("python tools/peer_bench.py --peer self")
    assert prov["params"]["heads_removed"]["0.5"] == {"0": [0, 1], "1": [1, 3]}      # 2 of 4 heads of each layer
    assert len(prov["timings"]) == 2 and len(prov["load"]) == 2
    assert prov["fused_qkv_sites"]["0.5"] == {"ours": 2, "peer": 2} and prov["fused_qkv_sites"]["0"]["ours"] == 0


def test_alternation(pb, monkeypatch):
    "Each round times every model by both sides, the side that goes first alternating (ABBA)."
    calls = []
    monkeypatch.setattr(pb, "run_worker", lambda py, argv: calls.append((py, argv[1], argv[5])) or {})
    args = pb.parser().parse_args(["--peer", "hf4"]); pb.check_args(args)
    peer, variants = pb.PEERS["hf4"], {"0": {}, "0.5": {"0": [1]}}
    for r in range(2): pb.timed_round(r, peer, "/peer/python", Path("m"), variants, args)
    sides = [c[1] for c in calls]
    assert sides == ["ours", "hf4", "hf4", "ours", "hf4", "ours", "ours", "hf4"]
    assert {c[0] for c in calls if c[1] == "hf4"} == {"/peer/python"} and {c[0] for c in calls if c[1] == "ours"} == {sys.executable}


def test_goals(pb):
    assert pb.verdict(0.1, 0.3, 0.0) == "met" and pb.verdict(-0.3, -0.1, 0.0) == "missed" and pb.verdict(-0.1, 0.1, 0) == "inconclusive"
    eps = {"ours": {"0": {"16": [10.0, 10.0, 10.2]}, "0.5": {"16": [14.0, 14.2, 14.1]}},
           "p": {"0": {"16": [10.0, 10.1, 10.0]}, "0.5": {"16": [11.0, 11.1, 11.0]}}}
    row = pb.row_for(eps, "16", 0.5, 1.5, "ours", "p")
    assert row["goal_3a_speedup"] == "met" and row["goal_3b_pruned"] == "met"
    assert row["goal_3a_ideal"] == "missed" and "80% [" in row["gap"] and "of the ideal gain" in row["gap"]      # +40% of an ideal +50%: 80% of the gain


@pytest.mark.parametrize("bad", [["--peer", "nope"], ["--peer", "self", "--shares", "1.5"], ["--peer", "self", "--rounds", "1"],
                                 ["--peer", "self", "--batches", "x"]])
def test_bad_input(pb, bad, capsys):
    assert pb.main(bad) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
