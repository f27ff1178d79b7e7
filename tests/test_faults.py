"Issues 17 and 40: bad inputs and faults a careful user (or an attacker) meets. Each test failed before its fix."
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
    (d / "dict.txt").write_text("stale vocabulary")      # a file it did not write: kept unless overwrite=True (issue 40)
    with pytest.raises(FileExistsError, match="dict.txt"): save_pruned(tiny_bert(), d)
    save_pruned(tiny_bert(), d, overwrite=True)          # then the folder is replaced as a whole
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

# === issue 40: the second round ===================================================================
def _victim(tmp_path, name="victim.txt"):
    v = tmp_path / name; v.write_text("precious"); return v

# --- 40.1 no write leaves a results folder through a symbolic link -------------------------------
def test_the_lock_never_follows_a_link(tmp_path):
    from headprune_nb.store import folder_lock, dry_note, LOCK, DRY_RUN_ENV, DRY_RUN_LOG
    v, out = _victim(tmp_path), tmp_path / "out"; out.mkdir()
    (out / LOCK).symlink_to(v)
    with pytest.raises(ValueError, match="symbolic link"):
        with folder_lock(out): pass
    (out / DRY_RUN_LOG).symlink_to(v)
    os.environ[DRY_RUN_ENV] = str(out)
    try:
        with pytest.raises(ValueError, match="symbolic link"): dry_note("x")
    finally: del os.environ[DRY_RUN_ENV]
    assert v.read_text() == "precious"

def test_figures_are_written_by_rename(tmp_path):
    "Every figure goes through store.save_figure (write then rename): no `.savefig(path)` opens a path that may be a link."
    hits = [(f.name, l.strip()) for f in [*(ROOT / "headprune_nb").glob("*.py"), *(ROOT / "reproduce").glob("*.ipynb")]
            for l in f.read_text().splitlines() if ".savefig(" in l and "savefig(buf" not in l]
    assert not hits, hits
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    from headprune_nb.store import save_figure
    v = _victim(tmp_path); (tmp_path / "f.png").symlink_to(v)
    fig, ax = plt.subplots(); ax.plot([0, 1]); save_figure(fig, tmp_path / "f.png"); plt.close(fig)
    assert v.read_text() == "precious" and not (tmp_path / "f.png").is_symlink()

def _tiny_experiment(tmp_path, code: str):
    "A reproduce/ folder holding one notebook `tiny.ipynb`: a parameters cell, then `code`."
    repro = tmp_path / "repro"; (repro / "published").mkdir(parents=True)
    cells = [("profile = 'smoke'\nout_dir = None", ["parameters"]), (code, [])]
    nb = dict(nbformat=4, nbformat_minor=5, metadata=dict(kernelspec=dict(name="python3", display_name="Python 3", language="python")),
              cells=[dict(cell_type="code", id=f"c{i}", metadata=dict(tags=t), source=s, outputs=[], execution_count=None)
                     for i, (s, t) in enumerate(cells)])
    (repro / "tiny.ipynb").write_text(json.dumps(nb))
    return repro

def test_results_replace_planted_links(tmp_path, monkeypatch):
    from headprune_nb import reproduce as R
    repro = _tiny_experiment(tmp_path, "from pathlib import Path\nfrom headprune_nb.store import write_json\n"
                                       "write_json(Path(out_dir) / 'r.json', {})")
    monkeypatch.setenv("HEADPRUNE_REPRODUCE_DIR", str(repro))
    monkeypatch.setitem(R.EXPERIMENTS, "tiny", R.Experiment("tiny", "tiny.ipynb", "t", "c"))
    out = tmp_path / "out"; out.mkdir()
    victims = {n: _victim(tmp_path, f"v-{n}") for n in ("tiny.ipynb", "r.json")}
    for n, v in victims.items(): (out / n).symlink_to(v)
    R.run_experiment("tiny", "smoke", out_dir=out, progress=False)
    for n, v in victims.items():
        assert v.read_text() == "precious", n
        assert not (out / n).is_symlink() and (out / n).stat().st_size > 2, n
    assert json.loads((out / "tiny.ipynb").read_text())["metadata"]["papermill"]["output_path"] == str(out / "tiny.ipynb")
    assert not list(out.glob(".tiny-*"))

# --- 40.2 marker files are input: damaged ones are named, never skip the parameter check ---------
@pytest.mark.parametrize("marker, text", [("complete.json", '{"name": "voita_lambda", "prof'), ("complete.json", "[1, 2]")])
def test_damaged_marker_files_are_refused(headprune, tmp_path, marker, text):
    out = tmp_path / "run"; out.mkdir(); (out / marker).write_text(text)
    r = run(headprune, "reproduce", "voita_lambda", "--out", str(out), "--param", "gate_lr=0.5")
    one_line_error(r, str(out / marker), "--fresh")
    assert sorted(p.name for p in out.iterdir() if p.name != ".headprune.lock") == [marker]

def test_a_damaged_marker_is_set_aside_by_fresh_and_named_by_report(tmp_path, monkeypatch):
    from headprune_nb.reproduce import set_aside, params_clash
    from headprune_nb.report import finished_results
    out = tmp_path / "headprune-results" / "cpu" / "voita_lambda"; out.mkdir(parents=True)
    (out / "complete.json").write_text("[]"); (out / "sweep.csv").write_text("a\n1\n")
    with pytest.raises(ValueError, match="complete.json"): params_clash(out, "voita_lambda", "cpu", {})
    for marker, text in ((".headprune-params.json", '{"profile": "cpu", "params": {"gate_'), ("complete.json", '{"params": [1]}')):
        (out / marker).write_text(text)
        with pytest.raises(ValueError, match=re.escape(marker) + ".*--fresh"): params_clash(out, "voita_lambda", "cpu", {})
        (out / marker).unlink()
    (out / "complete.json").write_text("[]")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=re.escape(str(out / "complete.json"))): finished_results(source="yours")
    set_aside(out)
    assert (tmp_path / "headprune-results" / "cpu" / "voita_lambda.previous" / "sweep.csv").exists()

# --- 40.3 prune_to_k(out_dir=) never returns another run's result ---------------------------------
def test_prune_to_k_refuses_another_runs_folder(tmp_path):
    import copy
    from headprune_nb.models import tiny_bert
    from headprune_nb.api import prune_to_k
    torch.manual_seed(0)
    b = lambda labels: dict(input_ids=torch.randint(5, 50, (4, 6)), attention_mask=torch.ones(4, 6, dtype=torch.long),
                            labels=torch.tensor(labels))
    batches, m, d = [b([0, 1, 0, 1]), b([1, 1, 0, 0])], tiny_bert(), tmp_path / "run"
    _, keep = prune_to_k(copy.deepcopy(m), batches, 4, method="dsp", out_dir=d, progress=False)
    _, again = prune_to_k(copy.deepcopy(m), batches, 4, method="dsp", out_dir=d, progress=False)   # the same run resumes
    assert torch.equal(keep, again)
    relabelled, other = [dict(x, labels=1 - x["labels"]) for x in batches], copy.deepcopy(m)
    with torch.no_grad(): next(other.parameters()).add_(1.0)
    for kw, word in ((dict(method="ste"), "method"), (dict(method="pass"), "method"), (dict(batches=relabelled), "data"),
                     (dict(model=other), "model"), (dict(K=5), "K")):
        args = {**dict(model=copy.deepcopy(m), batches=batches, K=4, method="dsp", out_dir=d, progress=False), **kw}
        with pytest.raises(ValueError, match=f"another prune_to_k run \\({word}: "): prune_to_k(**args)
    (tmp_path / "other").mkdir(); (tmp_path / "other" / "checkpoint.pt").write_bytes(b"x")
    with pytest.raises(ValueError, match="no prune_to_k.json"):
        prune_to_k(copy.deepcopy(m), batches, 4, method="dsp", out_dir=tmp_path / "other", progress=False)
    assert json.loads((d / "prune_to_k.json").read_text())["method"] == "dsp"

# --- 40.4 save_pruned keeps what it did not write, recovers from a kill (its next save), writes with the umask
def test_save_pruned_keeps_user_files(tmp_path):
    from headprune_nb.models import tiny_bert
    from headprune_nb.prune import save_pruned
    d = tmp_path / "m"; save_pruned(tiny_bert(), d)
    (d / "notes.txt").write_text("mine"); (d / "sub").mkdir(); (d / "sub" / "x").write_text("mine too")
    with pytest.raises(FileExistsError, match="notes.txt, sub"): save_pruned(tiny_bert(), d)
    assert (d / "notes.txt").read_text() == "mine" and (d / "sub" / "x").read_text() == "mine too"

KILL_BETWEEN_RENAMES = """
import os, signal, sys
from headprune_nb.models import tiny_bert
from headprune_nb.prune import save_pruned
real, calls = os.rename, []
def rename(a, b):
    calls.append(1)
    if len(calls) == 2: os.kill(os.getpid(), signal.SIGKILL)     # the old folder moved aside, the new one not yet in
    real(a, b)
os.rename = rename
save_pruned(tiny_bert(), sys.argv[1])
"""

def test_a_save_killed_between_its_renames_loses_no_model(tmp_path):
    from headprune_nb.models import tiny_bert
    from headprune_nb.prune import save_pruned, load_pruned
    d = tmp_path / "m"; save_pruned(tiny_bert(), d)
    r = subprocess.run([sys.executable, "-c", KILL_BETWEEN_RENAMES, str(d)], capture_output=True, text=True, timeout=300)
    assert r.returncode == -9, r.stderr[-2000:]
    assert not d.exists() and list(tmp_path.glob(".old-m-*")) and list(tmp_path.glob(".tmp-m-*"))   # what a kill leaves
    left = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(FileNotFoundError, match=r"its previous model is .*\.old-m-.*: recover_saved"): load_pruned(d)
    assert sorted(p.name for p in tmp_path.iterdir()) == left    # a load recovers nothing (issue 56)
    (tmp_path / ".tmp-m-999999999-abc").mkdir()                  # not marked by a save: a user's, never touched
    save_pruned(tiny_bert(), d)                                  # the old model is put back, then replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tmp-m-999999999-abc", "m"]   # the marked leftovers are gone

def test_saved_weights_follow_the_umask(tmp_path):
    from headprune_nb.models import tiny_bert
    from headprune_nb.prune import save_pruned, WEIGHTS
    old = os.umask(0o022)
    try: d = save_pruned(tiny_bert(), tmp_path / "m")
    finally: os.umask(old)
    assert {f.name: stat.S_IMODE(f.stat().st_mode) for f in d.iterdir()} == {"config.json": 0o644, WEIGHTS: 0o644}
    assert stat.S_IMODE(d.stat().st_mode) == 0o755

# --- 40.5 every --param value is checked against the parameter's annotation ------------------------
@pytest.mark.parametrize("param, words", [("lambdas=5", ["lambdas=5", "list[float]"]),
                                          ("seed=" + "7" * 5000, ["seed", "5000 digits", "too large"])])
def test_param_types_and_sizes_are_refused_before_a_folder(headprune, tmp_path, param, words):
    out = tmp_path / "new" / "out"
    one_line_error(run(headprune, "reproduce", "voita_lambda", "--out", str(out), "--param", param), *words)
    assert not (tmp_path / "new").exists()

def test_param_values_fit_their_annotation():
    from headprune_nb.reproduce import check_params, parse_param
    for text, word in (('lambdas=["a"]', "list[float]"), ("epochs=two", "int"), ("seeds=7", "list[int]"), ("lambdas=" + "[" * 200 + "]" * 200, "levels deep"),
                       ("seed=10000000000000000000000000000", "too large"), ("lambdas=" + str([0.1] * 20000), "items")):
        with pytest.raises(ValueError, match=re.escape(word)): check_params("voita_lambda", dict([parse_param(text)]))
    check_params("voita_lambda", dict(lambdas=[0.1, 1], seeds=[0, 1], epochs=None, lr=2e-5, from_start=True))
    check_params("dsp2021", dict(ks={"sst2": [4, 8]}, train_limit={"sst2": None}, budget_rivals={"sst2": ["ste"]}))
    with pytest.raises(ValueError, match="dict"): check_params("dsp2021", dict(ks={"sst2": ["four"]}))
    check_params("michel2019_pruning", dict(eval_limit=100)); check_params("michel2019_pruning", dict(eval_limit={"sst2": 100}))

def test_every_parameter_has_a_type():
    from headprune_nb.reproduce import EXPERIMENTS, RESERVED, notebook_params, declared
    untyped = [(n, k) for n in EXPERIMENTS for k, s in notebook_params(n).items() if k not in RESERVED and declared(s) is None]
    assert not untyped, f"annotate these parameters (e.g. `lambdas: Optional[list[float]] = None`; papermill reads no `X | None`): {untyped}"

# --- 40.6 report over damaged results --------------------------------------------------------------
@pytest.mark.parametrize("content, words", [(b'claim,verdict\n"unterminated,x\n', ["claims.csv:2", "unterminated quote"]),
                                            (b"\x89PNG\r\n\x1a\n\x00\xff\xfe\x00", ["claims.csv", "not a CSV"]),
                                            (b"what,verdict\nx,y\n", ["claims.csv", "no `claim` column"])])
def test_report_names_a_damaged_claims_file(tmp_path, content, words):
    from headprune_nb.report import claim_rows
    (tmp_path / "claims.csv").write_bytes(content)
    with pytest.raises(ValueError) as e: claim_rows([("voita_lambda", "cpu", tmp_path)], ["cpu"])
    for w in words + ["run that experiment again"]: assert w in str(e.value), (w, str(e.value))

def test_report_shows_an_empty_claims_file_and_names_bad_provenance(headprune, tmp_path):
    from headprune_nb.report import claim_rows
    d = tmp_path / "headprune-results" / "cpu" / "dsp2021"; d.mkdir(parents=True)
    (d / "claims.csv").write_text("")
    rows = [r for r in claim_rows([("dsp2021", "cpu", d)], ["cpu"]) if r["experiment"] == "dsp2021"]
    assert rows and all(r["verdict"].startswith("damaged") and "empty" in r["verdict"] for r in rows), rows
    (d / "complete.json").write_text(json.dumps(dict(name="dsp2021", profile="cpu", params={})))
    (d / "provenance.json").write_text("")
    r = subprocess.run([headprune, "report", "--out", str(tmp_path / "r")], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    one_line_error(r, str(d / "provenance.json"), "run that experiment again")

# --- 40.7 messages with the right cause ------------------------------------------------------------
@pytest.mark.skipif(torch.cuda.is_available(), reason="a CPU machine's message")
def test_cuda_on_a_cpu_machine_is_not_a_damaged_model(tmp_path):
    from headprune_nb.models import tiny_bert
    from headprune_nb.prune import save_pruned, load_pruned
    d = save_pruned(tiny_bert(), tmp_path / "m")
    with pytest.raises(ValueError, match="CUDA is not available"): load_pruned(d, device="cuda")

def test_an_unreadable_weights_file_is_a_permission_error(tmp_path, monkeypatch):
    from headprune_nb.models import tiny_bert
    from headprune_nb.prune import save_pruned, load_pruned, WEIGHTS
    d = save_pruned(tiny_bert(), tmp_path / "m")
    def denied(*a, **k): raise PermissionError(13, "Permission denied", str(d / WEIGHTS))
    monkeypatch.setattr("safetensors.torch.load_model", denied)       # root reads everything: the error another user gets
    with pytest.raises(PermissionError) as e: load_pruned(d)
    assert "damaged" not in str(e.value)
    monkeypatch.setattr(os, "access", lambda *a, **k: False)
    with pytest.raises(PermissionError, match="no permission to read"): load_pruned(d)

def test_cli_messages_name_the_real_cause(headprune, tmp_path):
    f = tmp_path / "plain.txt"; f.write_text("x")
    one_line_error(run(headprune, "bench", "--model", str(f), "--batch-sizes", "1"), str(f), "is a file")
    one_line_error(run(headprune, "bench", "--model", "tiny-bert", "--tgt-len", "0", "--batch-sizes", "1"), "--tgt-len", "at least 1")
    (tmp_path / "ckpt").mkdir()
    one_line_error(run(headprune, "import-fairseq", str(tmp_path / "ckpt"), "--out", str(tmp_path / "o")), "is a folder",
                   "checkpoint_best.pt")

def test_a_full_disk_names_the_path(tmp_path, monkeypatch):
    import errno
    from headprune_nb.store import write_json, cached_tensor
    from headprune_nb.cli import _error_line
    real = os.fdopen
    class Full:
        def __init__(self, f): self.f = f
        def __enter__(self): return self
        def __exit__(self, *a): self.f.close()
        def write(self, _): raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: Full(real(fd, *a, **k)))
    with pytest.raises(OSError) as e: write_json(tmp_path / "a.json", {})
    assert str(tmp_path / "a.json") in _error_line(e.value) and "free some space" in _error_line(e.value)
    monkeypatch.undo()
    def full(*a, **k): raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 64 vs 0")
    monkeypatch.setattr(torch, "save", full)
    with pytest.raises(OSError) as e: cached_tensor(tmp_path / "t.pt", lambda: torch.zeros(1))
    assert str(tmp_path / "t.pt") in _error_line(e.value) and "full disk" in _error_line(e.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == []          # no temporary file left

def test_a_cache_file_with_objects_is_refused_naming_it(tmp_path):
    from headprune_nb.store import cached_tensor
    torch.save({"x": _Evil(tmp_path / "pwned")}, tmp_path / "t.pt")
    with pytest.raises(ValueError) as e: cached_tensor(tmp_path / "t.pt", lambda: torch.zeros(1))
    assert str(tmp_path / "t.pt") in str(e.value) and "delete it" in str(e.value) and "weights_only=False" not in str(e.value)
    assert not (tmp_path / "pwned").exists()

def test_an_old_format_checkpoint_loads_when_trusted(tmp_path):
    from headprune_nb.fairseq_adapter import _safe_globals
    p = tmp_path / "old.pt"; torch.save({"w": torch.ones(2)}, p, _use_new_zipfile_serialization=False)   # torch < 1.6's format
    with pytest.raises(ValueError, match="before 1.6.*--trust-checkpoint"):
        with _safe_globals(p): pass
    with _safe_globals(p, trust=True): assert torch.equal(torch.load(p)["w"], torch.ones(2))

# --- 40.8 SIGINT to the parent alone: "interrupted", no kernel traceback ---------------------------
TINY_CLI = """import sys
from headprune_nb import reproduce as R
R.EXPERIMENTS['tiny'] = R.Experiment('tiny', 'tiny.ipynb', 't', 'c')
from headprune_nb.cli import main
sys.exit(main(['reproduce', 'tiny', '--out', sys.argv[1]]))"""

def test_sigint_to_the_parent_prints_no_kernel_traceback(tmp_path):
    import signal, time
    repro = _tiny_experiment(tmp_path, "import sys, time\nprint('started', flush=True)\n"
                                       "for i in range(3000): print('.', end='', flush=True); time.sleep(0.01)")
    p = subprocess.Popen([sys.executable, "-c", TINY_CLI, str(tmp_path / "o")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=dict(os.environ, HEADPRUNE_REPRODUCE_DIR=str(repro)),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))    # (a background shell ignores it)
    err, t0 = "", time.time()
    while "started" not in err and time.time() - t0 < 200: err += p.stderr.read(1)         # the cell is running, printing
    time.sleep(1); p.send_signal(signal.SIGINT)
    rest = p.communicate(timeout=200)[1]
    assert p.returncode == 130, rest[-2000:]
    assert "Traceback" not in rest and "ZMQError" not in rest and "Kernel died" not in rest, rest[-3000:]
    assert rest.strip().splitlines()[-1].endswith("headprune reproduce: interrupted")

# --- 40.9 a run folder's name digests what the weights are, not the file's bytes ---------------------
def test_weights_digest_names_the_tensors_not_the_file(tmp_path):
    import struct
    from safetensors.torch import save_file
    from headprune_nb.recipes import weights_digest, files_sha1
    (tmp_path / "a").mkdir(); (tmp_path / "b").mkdir()
    save_file({"w": torch.arange(6.).reshape(2, 3), "tied": torch.ones(2, dtype=torch.int64)}, tmp_path / "a" / "model.safetensors",
              metadata={"lm_head.weight": "tied", "format": "pt"})
    raw = (tmp_path / "a" / "model.safetensors").read_bytes(); n = struct.unpack("<Q", raw[:8])[0]
    head = json.dumps(dict(reversed(list(json.loads(raw[8:8 + n]).items()))), separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)                 # the same tensors, the header in another order (as two saves write it)
    (tmp_path / "b" / "model.safetensors").write_bytes(struct.pack("<Q", len(head)) + head + raw[8 + n:])
    assert files_sha1([tmp_path / "a" / "model.safetensors"]) != files_sha1([tmp_path / "b" / "model.safetensors"])
    assert weights_digest(tmp_path / "a") == weights_digest(tmp_path / "b")
    save_file({"w": torch.arange(6.).reshape(3, 2), "tied": torch.ones(2, dtype=torch.int64)}, tmp_path / "b" / "model.safetensors")
    assert weights_digest(tmp_path / "a") != weights_digest(tmp_path / "b")      # another shape: other weights
