"The `headprune` command as a user meets it: help, listing, errors, a real (tiny) benchmark."
import csv, subprocess
import pytest

def run(exe, *args, timeout=300):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout)

def test_help_explains_each_subcommand(headprune):
    top = run(headprune, "--help")
    assert top.returncode == 0
    for sub in ("list", "reproduce", "report", "bench"): assert sub in top.stdout
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
    assert "llm_heads\n" in r.stdout and "profiles: smoke, cpu\n" in r.stdout and "full run: none (llm_heads has only" in r.stdout

@pytest.mark.parametrize("args, message", [
    (["reproduce", "no_such_experiment"], "unknown experiment 'no_such_experiment'; available: baselines, behnke2020, dsp2021, llm_heads, michel2019_ablation"),
    (["reproduce", "michel2019_speed", "--profile", "gpu"], "unknown profile 'gpu'; choose one of smoke, cpu, full"),
    (["reproduce", "llm_heads", "--profile", "full"], "llm_heads has no full profile; its profiles: smoke, cpu"),
    (["reproduce", "michel2019_speed", "--param", "oops"], "--param expects key=value"),
    (["reproduce", "dsp2021", "--profile", "smoke", "--param", "precision=bf16"], "precision=bf16: the smoke profile runs fp32"),
    (["reproduce", "behnke2020", "--profile", "full", "--param", "precision=fp16"], "precision='fp16': give one of fp32, bf16"),
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

def _fake_reproduce_dir(root, fail=()):
    "A reproduce/ folder whose notebooks (one per registered experiment) write a CSV and provenance, or fail."
    import nbformat
    from headprune_nb.reproduce import EXPERIMENTS
    (root / "published").mkdir(parents=True)
    for e in EXPERIMENTS.values():
        params = nbformat.v4.new_code_cell('profile = "smoke"\nout_dir = None')
        params.metadata["tags"] = ["parameters"]
        body = ("raise RuntimeError('boom in " + e.name + "')" if e.name in fail else
                "from pathlib import Path\nfrom headprune_nb.store import write_csv, write_json, provenance\n"
                "import time\nwrite_csv(Path(out_dir) / 'rows.csv', [dict(x=1)])\n"
                "p = provenance(profile, 0, {}); p['finished_utc'] = time.strftime('%Y'); write_json(Path(out_dir) / 'provenance.json', p)")
        nb = nbformat.v4.new_notebook(cells=[params, nbformat.v4.new_code_cell(body)])
        nb.metadata["kernelspec"] = dict(name="python3", display_name="Python 3", language="python")
        nbformat.write(nb, root / e.notebook)
    return root

def test_reproduce_all_runs_skips_and_names_failures(headprune, tmp_path):
    import os
    from headprune_nb.reproduce import EXPERIMENTS
    env = dict(os.environ, HEADPRUNE_REPRODUCE_DIR=str(_fake_reproduce_dir(tmp_path / "rep", fail=("dsp2021", "voita_lambda"))))
    out = tmp_path / "out"
    r = subprocess.run([headprune, "reproduce", "--all", "--profile", "smoke", "--out", str(out)], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 1
    assert "2 failed: voita_lambda, dsp2021" in r.stderr          # in the order they ran
    assert r.stdout.splitlines()[0] == "baselines: done"                         # the others start from its models
    assert "dsp2021: failed: PapermillExecutionError" in r.stdout and "boom in dsp2021" in r.stdout
    for name in EXPERIMENTS:                                                     # nothing lost: every folder kept
        assert (out / name / EXPERIMENTS[name].notebook).exists()
        assert (out / name / "complete.json").exists() == (name not in ("dsp2021", "voita_lambda"))
    again = subprocess.run([headprune, "reproduce", "--all", "--profile", "smoke", "--out", str(out)], capture_output=True,
                           text=True, env=dict(env, HEADPRUNE_REPRODUCE_DIR=str(_fake_reproduce_dir(tmp_path / "fixed"))),
                           timeout=600)
    assert again.returncode == 0, again.stderr
    assert sorted(l for l in again.stdout.splitlines() if l.endswith(": done")) == ["dsp2021: done", "voita_lambda: done"]
    assert sum(l.endswith("skipped (complete)") for l in again.stdout.splitlines()) == len(EXPERIMENTS) - 2

def test_report_reads_results_on_disk(headprune, tmp_path):
    import os, shutil
    from headprune_nb.reproduce import reproduce_dir
    rep = tmp_path / "rep"; shutil.copytree(reproduce_dir() / "published", rep / "published")
    shutil.copytree(reproduce_dir() / "results" / "cpu" / "pass2023", rep / "results" / "cpu" / "pass2023")
    r = subprocess.run([headprune, "report", "--out", str(tmp_path / "report")], capture_output=True, text=True,
                       env=dict(os.environ, HEADPRUNE_REPRODUCE_DIR=str(rep)), timeout=300)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "report" / "report.md").read_text()
    assert "PASSCONC has the largest attention speed-up at K = 16 | sst2" in md     # the committed cpu verdicts
    assert "| behnke2020 | cpu |" in md and "not run" in md                        # experiments without results say so
    assert (tmp_path / "report" / "report.html").stat().st_size > 10_000             # figures embedded

def test_resuming_a_run_with_other_parameters_is_refused(headprune, tmp_path):
    "A plain re-run into a folder whose run had another eval_limit would mix its rows into this one's: one line, the ways out, nothing touched."
    out = tmp_path / "pass"; out.mkdir()
    (out / "complete.json").write_text('{"name": "pass2023", "profile": "smoke", "params": {"eval_limit": {"synthetic_cls": 50}}}')
    (out / "table.csv").write_text("task,method,K,metric\nsynthetic_cls,pass,2,90.0\n")
    r = run(headprune, "reproduce", "pass2023", "--profile", "smoke", "--out", str(out), "--param", "tasks=['synthetic_mt']")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "other parameters (eval_limit: {'synthetic_cls': 50} -> None)" in r.stderr and "--fresh" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in out.iterdir()) == [".headprune.lock", "complete.json", "table.csv"]
