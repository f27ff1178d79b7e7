"A benchmark next to a CPU-bound process says so: the load it records, and its one-line warning (issue 20)."
import subprocess, sys, time
from pathlib import Path
import pytest
from headprune_nb.bench import LoadMonitor, compare_pruned, COMPETING_CORES

pytestmark = pytest.mark.skipif(not Path("/proc/stat").exists(), reason="the load is read from Linux's /proc")

@pytest.fixture
def busy():
    "One busy-loop process per core, stopped afterwards."
    import os
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    time.sleep(0.5)
    yield procs
    for p in procs: p.kill(); p.wait()

def test_monitor_sees_other_work(busy):
    with LoadMonitor("test", warn=False) as mon: time.sleep(1.5)           # idle ourselves, others busy
    r = mon.record
    assert r["other_cores"] >= COMPETING_CORES and r["competing"], r
    assert r["load_during_max"] is not None and r["own_cores"] < 0.5

def test_compare_pruned_next_to_a_busy_loop_warns_and_records(busy, capsys, monkeypatch):
    import headprune_nb.bench as bench
    monkeypatch.setattr(bench, "JUDGE_SECONDS", 0.0)          # this tiny model's timings last well under a second
    from transformers import BertConfig, BertForSequenceClassification
    from headprune_nb.heads import random_keep_mask
    cfg = BertConfig(vocab_size=100, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
    model = BertForSequenceClassification(cfg).eval()
    res = compare_pruned(model, random_keep_mask(8, 4, 0), batch_sizes=(4,), seq_len=32, repeats=5, max_repeats=10,
                         progress=False)
    (row,) = res["rows"]
    assert row["competing"] and row["other_cores"] >= COMPETING_CORES, row      # the load is in the result row
    assert res["load"][0]["load_during_max"] is not None                         # and in what goes to provenance
    err = capsys.readouterr().err
    assert sum("warning: other work competed for the cores" in l for l in err.splitlines()) == 1, err

def test_short_timing_is_not_judged(busy):
    "/proc counts in 10 ms ticks: a timing shorter than JUDGE_SECONDS records its load but is not called competing or not."
    from headprune_nb.bench import JUDGE_SECONDS
    with LoadMonitor("test", warn=False, judge_seconds=JUDGE_SECONDS) as mon: time.sleep(0.05)
    r = mon.record
    assert r["seconds"] < JUDGE_SECONDS and r["competing"] is None and r["other_cores"] is not None, r

def test_a_busy_machine_stops_adding_pairs(busy, capsys, monkeypatch):
    "More pairs do not narrow an interval that other work widens: the rounds stop early, the row and one line say why."
    import headprune_nb.bench as bench
    monkeypatch.setattr(bench, "JUDGE_SECONDS", 0.0)
    from transformers import BertConfig, BertForSequenceClassification
    from headprune_nb.heads import random_keep_mask
    cfg = BertConfig(vocab_size=100, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
    model = BertForSequenceClassification(cfg).eval()
    res = compare_pruned(model, random_keep_mask(8, 4, 0), batch_sizes=(4,), seq_len=32, repeats=2, max_repeats=400,
                         halfwidth_pct=0.001, progress=False)      # an interval this narrow is never reached
    (row,) = res["rows"]
    assert row["repeats"] < 400 and row["interval"] == "wide" and "other work competes for the cores" in row["stopped"], row
    err = capsys.readouterr().err
    assert f"stopped timing at batch 4 after {row['repeats']} of up to 400 pairs" in err, err
