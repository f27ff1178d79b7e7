"The `headprune` command as a user meets it: help, listing, errors, a real (tiny) benchmark."
import csv, subprocess
import pytest

def run(exe, *args, timeout=300):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout)

def test_help_explains_each_subcommand(headprune):
    top = run(headprune, "--help")
    assert top.returncode == 0
    for sub in ("list", "reproduce", "bench"): assert sub in top.stdout
    for sub, words in {"reproduce": ["--profile", "--param", "smoke", "full"],
                       "bench": ["--keep-fraction", "--batch-sizes", "--repeats", "--attention"],
                       "list": ["experiment"]}.items():
        r = run(headprune, sub, "--help")
        assert r.returncode == 0, r.stderr
        for w in words: assert w in r.stdout, (sub, w)

def test_list_names_experiments_and_profiles(headprune):
    r = run(headprune, "list")
    assert r.returncode == 0
    assert "michel2019_speed" in r.stdout and "smoke, cpu, full" in r.stdout and "michel2019_table4.csv" in r.stdout

@pytest.mark.parametrize("args, message", [
    (["reproduce", "no_such_experiment"], "unknown experiment 'no_such_experiment'; available: baselines, behnke2020, dsp2021, michel2019_ablation"),
    (["reproduce", "michel2019_speed", "--profile", "gpu"], "unknown profile 'gpu'; choose one of smoke, cpu, full"),
    (["reproduce", "michel2019_speed", "--param", "oops"], "--param expects key=value"),
    (["bench", "--model", "no-such-model"], "neither a known architecture"),
    (["bench", "--model", "tiny-bert", "--keep-fraction", "1.5"], "--keep-fraction must be in (0, 1]"),
    (["bench", "--model", "tiny-bert", "--batch-sizes", "0"], "--batch-sizes expects positive integers"),
])
def test_bad_input_is_one_clear_line(headprune, args, message):
    r = run(headprune, *args)
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr

def test_bench_compares_pruned_with_original(headprune, tmp_path):
    out = tmp_path / "bench.csv"
    r = run(headprune, "bench", "--model", "tiny-encdec", "--keep-fraction", "0.5", "--batch-sizes", "1,2",
            "--seq-len", "8", "--repeats", "2", "--attention", "--out", str(out))
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(out.open()))
    assert [int(x["batch_size"]) for x in rows] == [1, 2]
    for x in rows:
        assert int(x["heads_kept"]) == 12 and int(x["heads"]) == 24
        assert float(x["ideal_speedup"]) > 1                      # half the heads: fewer FLOPs
        assert float(x["params_shrinkage_pct"]) > 0
        assert float(x["original_eps"]) > 0 and float(x["pruned_eps"]) > 0
        assert "attention_time_pct" in x

def test_bench_on_a_saved_pruned_model(headprune, tmp_path):
    from headprune_nb.models import build_architecture
    from headprune_nb.heads import random_keep_mask
    from headprune_nb.prune import prune_heads, save_pruned
    save_pruned(prune_heads(build_architecture("tiny-bert"), random_keep_mask(8, 3, 0)), tmp_path / "m")
    r = run(headprune, "bench", "--model", str(tmp_path / "m"), "--batch-sizes", "1", "--seq-len", "4", "--repeats", "1")
    assert r.returncode == 0, r.stderr
    assert "3 heads" in r.stderr
