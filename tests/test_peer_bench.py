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
    assert set(prov["profiles"]) == {f"{s}|{v}|{b}" for s in ("ours", "self") for v in ("0", "0.5") for b in (1, 2)}
    assert all(0 < x < 1 for x in prov["gemm_share"].values())
    assert prov["fused_qkv_sites"]["0.5"] == {"ours": 2, "peer": 2} and prov["fused_qkv_sites"]["0"]["ours"] == 0


def test_alternation(pb):
    "Each round times every model at every batch size by both sides, pass by pass, the side that goes first alternating (ABBA)."
    calls = []
    class Fake:
        def __init__(self, name): self.name = name
        def time(self, v, b): calls.append((self.name, v, b)); return 0.1
    args = pb.parser().parse_args(["--peer", "hf4", "--batches", "16", "--min-seconds", "0"]); pb.check_args(args)
    variants, servers = {"0": {}, "0.5": {"0": [1]}}, {"ours": Fake("ours"), "hf4": Fake("hf4")}
    rounds = [pb.timed_round(r, servers, variants, args) for r in range(2)]
    assert [c[0] for c in calls] == ["ours", "hf4", "hf4", "ours", "hf4", "ours", "ours", "hf4"]
    assert rounds[0][("hf4", "0.5")] == {"16": [0.1]}
    calls.clear(); args.min_seconds = 0.35                                          # passes until each side has 0.35 s
    pb.timed_round(0, servers, {"0": {}}, args); assert [c[0] for c in calls] == ["ours", "hf4", "hf4", "ours"] * 2
    assert pb.PEERS["self"].python() == sys.executable


def test_server_protocol(pb, tmp_path):
    "One side's server holds every variant, describes them, answers single passes, and ends on quit."
    pb.make_model(tmp_path, "tiny", [2], 8, 0)
    args = pb.parser().parse_args(["--peer", "self", "--batches", "2"]); pb.check_args(args)
    sv = pb.Server("ours", sys.executable, tmp_path, {"0": {}, "0.5": {"0": [0, 1]}}, args)
    try:
        assert set(sv.info) == {"0", "0.5"} and sv.info["0.5"]["params"] < sv.info["0"]["params"]
        assert sv.info["0.5"]["fused_qkv"] == 2 and len(sv.info["0"]["check"]["2"]) == 16
        assert 0 < sv.time("0.5", 2) < 5 and 0 < sv.time("0", 2) < 5
        prof = sv.profile("0.5", 2)                                                 # where one pass spends its time
        assert prof["total_ms"] > 0 and prof["top"][0][1] >= prof["top"][-1][1] and all(len(t) == 3 for t in prof["top"])
        share = pb.gemm_shares({"ours|0.5|2": prof})["ours|0.5|2"]; assert 0 < share < 1
    finally: sv.close()
    assert sv.p.returncode == 0


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
