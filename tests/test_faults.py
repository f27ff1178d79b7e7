"Issue 17: bad inputs and faults a careful user meets. Each test failed before its fix."
import json, os, re, stat, subprocess, sys
from pathlib import Path
import pytest, torch

ROOT = Path(__file__).resolve().parent.parent

def run(exe, *args, env=None, timeout=300):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout, env=env)

def one_line_error(r, *words):
    "Exit 2, no traceback, one error line naming `words`."
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr, r.stderr
    lines = [l for l in r.stderr.splitlines() if "error:" in l]
    assert len(lines) == 1, r.stderr
    for w in words: assert w in lines[0], (w, lines[0])
    return lines[0]

# --- 1. checkpoints never unpickle arbitrary objects ---------------------------------------------
class _Evil:
    def __init__(self, marker): self.marker = marker
    def __reduce__(self): return (os.system, (f"touch {self.marker}",))

def test_crafted_checkpoint_is_refused_and_runs_nothing(tmp_path):
    from headprune_nb.models import tiny_bert
    from headprune_nb.train import train, TrainConfig
    marker = tmp_path / "pwned"
    torch.save({"model": _Evil(marker), "step": 1}, tmp_path / "checkpoint.pt")
    batch = dict(input_ids=torch.ones(2, 4, dtype=torch.long), attention_mask=torch.ones(2, 4, dtype=torch.long),
                 labels=torch.zeros(2, dtype=torch.long))
    with pytest.raises(ValueError, match="checkpoint.pt"):
        train(tiny_bert(), lambda e: [batch], TrainConfig(epochs=1), out_dir=tmp_path, resume=True, progress=False)
    assert not marker.exists(), "unpickling the checkpoint ran a command"

def test_every_torch_load_is_weights_only():
    calls = [(f.name, l) for f in (ROOT / "headprune_nb").glob("*.py") for l in f.read_text().splitlines()
             if "torch.load(" in l]
    assert calls
    for name, line in calls: assert "weights_only=True" in line, (name, line)

# --- 4. one error boundary in the CLI -------------------------------------------------------------
def test_bench_out_is_checked_before_the_benchmark(headprune, tmp_path):
    f = tmp_path / "file"; f.write_text("x")
    r = run(headprune, "bench", "--model", "tiny-bert", "--batch-sizes", "1", "--seq-len", "4", "--repeats", "1",
            "--out", str(f / "bench.csv"))
    one_line_error(r, "--out", str(f))
    assert "examples/s" not in r.stdout and "eps" not in r.stdout, "the benchmark ran before --out was checked"
    r = run(headprune, "bench", "--model", "tiny-bert", "--batch-sizes", "1", "--out", str(tmp_path))
    one_line_error(r, str(tmp_path))

def test_cli_expected_failures_are_one_line(headprune, tmp_path):
    if not torch.cuda.is_available():
        one_line_error(run(headprune, "bench", "--model", "tiny-bert", "--device", "cuda", "--batch-sizes", "1"), "cuda")
    bad = tmp_path / "bad"; bad.mkdir()
    (bad / "config.json").write_text(json.dumps({"model_type": "bert", "architectures": ["BertModel"]}))
    (bad / "model.safetensors").write_bytes(b"not a safetensors file")
    one_line_error(run(headprune, "bench", "--model", str(bad), "--batch-sizes", "1"), "model.safetensors")
    ro = tmp_path / "ro"; ro.mkdir(); ro.chmod(0o500)
    try:
        if not os.access(ro, os.W_OK):    # root ignores permissions
            one_line_error(run(headprune, "report", "--out", str(ro / "r")), str(ro))
    finally: ro.chmod(0o700)
    f = tmp_path / "file"; f.write_text("x")
    one_line_error(run(headprune, "report", "--out", str(f)), str(f))

def test_debug_shows_the_traceback(headprune, tmp_path):
    f = tmp_path / "file"; f.write_text("x")
    r = run(headprune, "--debug", "report", "--out", str(f))
    assert r.returncode != 0 and "Traceback" in r.stderr
    r = run(headprune, "report", "--out", str(f), env=dict(os.environ, HEADPRUNE_DEBUG="1"))
    assert r.returncode != 0 and "Traceback" in r.stderr

def test_report_rejects_an_unknown_profile(headprune, tmp_path):
    one_line_error(run(headprune, "report", "--profile", "bogus", "--out", str(tmp_path / "r")), "bogus")
    assert not (tmp_path / "r").exists()

# --- 3. --param is validated before anything is created -------------------------------------------
@pytest.mark.parametrize("param, words", [
    ("batch_sizes=[1,2", ["batch_sizes", "[1,2"]),
    ("repeat=3", ["repeat", "repeats"]),           # unknown name; the message lists the notebook's parameters
    ("repeats=abc", ["repeats", "abc"]),
    ("keep_fraction=half", ["keep_fraction", "half"]),
    ("out_dir=/tmp/x", ["--out"]),
    ("profile=cpu", ["--profile"]),
])
def test_bad_params_are_refused_before_anything_is_created(headprune, tmp_path, param, words):
    out = tmp_path / "new" / "out"
    r = run(headprune, "reproduce", "michel2019_speed", "--out", str(out), "--param", param)
    one_line_error(r, *words)
    assert not (tmp_path / "new").exists(), "a refused run left a folder behind"

def test_params_of_the_right_type_are_accepted():
    from headprune_nb.reproduce import check_params
    check_params("michel2019_speed", dict(batch_sizes=[1, 2], repeats=3, keep_fraction=1, device="cpu", seed=1))
    check_params("voita_lambda", dict(task="sst2", lambdas=[0.1], gate_lr=0.5, lr=None))

# --- 5. save_pruned swaps a complete folder in ---------------------------------------------------
def test_save_pruned_never_mixes_models(tmp_path, monkeypatch):
    from headprune_nb.models import tiny_bert
    from headprune_nb.prune import save_pruned, load_pruned
    d = tmp_path / "m"; d.mkdir(); (d / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="overwrite"): save_pruned(tiny_bert(), d)
    assert (d / "notes.txt").read_text() == "mine"
    save_pruned(tiny_bert(), d, overwrite=True)
    assert not (d / "notes.txt").exists()
    (d / "dict.txt").write_text("stale vocabulary")      # a saved model folder is replaced as a whole
    save_pruned(tiny_bert(), d)
    assert sorted(p.name for p in d.iterdir()) == ["config.json", "model.safetensors"]
    load_pruned(d)
    def boom(*a, **k): raise OSError("disk full")
    monkeypatch.setattr("safetensors.torch.save_model", boom)
    with pytest.raises(OSError, match="disk full"): save_pruned(tiny_bert(), tmp_path / "b")
    assert not list(tmp_path.glob(".tmp-*")) and not (tmp_path / "b").exists()

# --- 6. data errors name file and line; a BOM is accepted ----------------------------------------
def test_data_errors_name_file_and_line(tmp_path):
    from headprune_nb.data import glue_task, read_glue_file, read_lines
    t = glue_task("sst2")
    f = tmp_path / "train.tsv"
    f.write_bytes("\ufeffsentence\tlabel\ngood\t1\n".encode("utf-8"))
    assert [e.label for e in read_glue_file(t, f)] == [1]
    f.write_bytes(b"sentence\tlabel\ngood\t1\nbad \xff byte\t0\n")
    with pytest.raises(ValueError, match=re.escape(f"{f}:3")): read_glue_file(t, f)
    g = tmp_path / "train.de"; g.write_bytes(b"eins\nzwei \xfe\n")
    with pytest.raises(ValueError, match=re.escape(f"{g}:2")): read_lines(g)
    g.write_bytes("\ufeffeins\nzwei\n".encode("utf-8"))
    assert read_lines(g) == ["eins", "zwei"]

# --- 7. unlabelled batches ------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["michel", "dsp", "voita"])
def test_prune_to_k_refuses_unlabelled_batches(method):
    from headprune_nb.models import tiny_bert
    from headprune_nb.api import prune_to_k
    batch = dict(input_ids=torch.ones(2, 4, dtype=torch.long), attention_mask=torch.ones(2, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="labels"): prune_to_k(tiny_bert(), [batch], 4, method=method, progress=False)

# --- 8. smaller -----------------------------------------------------------------------------------
def test_files_respect_the_umask(tmp_path):
    from headprune_nb.store import write_json, cached_tensor
    from headprune_nb.train import save_checkpoint
    old = os.umask(0o022)
    try:
        for p in (write_json(tmp_path / "a.json", {}), save_checkpoint(tmp_path / "c.pt", x=torch.zeros(1))):
            assert stat.S_IMODE(p.stat().st_mode) == 0o644, p
        cached_tensor(tmp_path / "t.pt", lambda: torch.zeros(1))
        assert stat.S_IMODE((tmp_path / "t.pt").stat().st_mode) == 0o644
    finally: os.umask(old)

def test_k_may_be_any_integral_number():
    import numpy as np
    from headprune_nb.heads import check_k
    assert check_k(np.int64(3), 8) == 3 and type(check_k(np.int64(3), 8)) is int
    assert check_k(torch.tensor(2), 8) == 2
    for bad in (2.5, True, "3", np.float64(2.0), 0, 9):
        with pytest.raises(ValueError): check_k(bad, 8)

def test_non_finite_gates_are_refused():
    from headprune_nb.models import tiny_bert
    from headprune_nb.gates import head_gates
    m = tiny_bert()
    for v in (float("nan"), float("inf")):
        g = torch.ones(8); g[3] = v
        with pytest.raises(ValueError, match="finite"):
            with head_gates(m, g): pass

def test_import_fairseq_on_a_tensors_only_file(headprune, tmp_path):
    pytest.importorskip("fairseq")
    torch.save({"w": torch.zeros(2)}, tmp_path / "t.pt")
    for lang in ("de", "en"): (tmp_path / f"dict.{lang}.txt").write_text("a 1\nb 1\n")
    one_line_error(run(headprune, "import-fairseq", str(tmp_path / "t.pt"), "--out", str(tmp_path / "o")),
                   "t.pt", "fairseq")
