"""Issue 56 (hardening, third round): locks that know their owner, no user folder touched, records checked before they
count, crafted model folders refused, executor options checked at the edge. Each test failed on the code before its
fix; all run in this process (no torch-importing subprocess), about 10 s in all."""
import errno, io, json, os, re, socket, subprocess, sys, threading, time, zipfile
from pathlib import Path
import numpy as np
import pytest, torch
from headprune_nb import store
from headprune_nb.store import key_lock, lock_holder, write_json, LOCK, KEY_LOCK_STALE
from headprune_nb.runs import (RunKey, RunRecord, Sample, run_grid, save_record, load_record, read_records, record_path,
                               lock_path)

ROOT = Path(__file__).resolve().parent.parent


def cli(capsys, *argv) -> tuple[int, str]:
    "`headprune argv` in this process: (exit code, its one error line or '')."
    from headprune_nb.cli import main
    code = main(list(argv))
    err = [l for l in capsys.readouterr().err.splitlines() if "error:" in l]
    assert len(err) <= 1, err
    return code, err[0] if err else ""


def within(seconds: float, f):
    "f() run in a thread: its exception, or None; fails the test if it is still running (waiting) after `seconds`."
    out = {}
    def go():
        try: f()
        except BaseException as e: out["e"] = e
    t = threading.Thread(target=go, daemon=True); t.start(); t.join(seconds)
    assert not t.is_alive(), "still waiting: a silent wait"
    return out.get("e")


@pytest.fixture
def sleeper():
    "A live process on this host (its pid), ended after the test."
    p = subprocess.Popen(["sleep", "60"])
    yield p.pid
    p.kill(); p.wait()


# --- 1. save_pruned / load_pruned touch only folders they marked -------------------------------------------------
def test_user_folders_beside_a_model_are_never_touched(tmp_path):
    from headprune_nb.models import tiny_bert
    from headprune_nb.prune import save_pruned, load_pruned
    for name in (".old-m-notes", ".tmp-m-2"): (tmp_path / name).mkdir()
    save_pruned(tiny_bert(), tmp_path / ".old-m-backup")                          # a user's backup, a model too
    with pytest.raises(FileNotFoundError, match="not a saved pruned model"): load_pruned(tmp_path / "m")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".old-m-backup", ".old-m-notes", ".tmp-m-2"]
    save_pruned(tiny_bert(), tmp_path / "m")                                       # a save leaves them too
    assert sorted(p.name for p in tmp_path.iterdir()) == [".old-m-backup", ".old-m-notes", ".tmp-m-2", "m"]


# --- 2. key locks with an identity --------------------------------------------------------------------------------
def _other_lock(path: Path, age: float = 0.0, **who) -> None:
    "Put another holder's lock at `path` (by rename, as a takeover leaves it), `age` seconds old."
    tmp = path.with_name("other.tmp"); tmp.write_text(json.dumps(dict(host="node-b", pid=7, token="b" * 16, **who)))
    os.utime(tmp, (time.time() - age,) * 2); os.replace(tmp, path)


def test_a_lock_carries_its_identity(tmp_path, monkeypatch):
    monkeypatch.setenv("SLURM_JOB_ID", "4242")
    p = tmp_path / "t" / "k.lock"
    with key_lock(p) as held:
        h = lock_holder(p)
        assert re.fullmatch(r"[0-9a-f]{16}", h["token"]) and h["inode"] == p.stat().st_ino
        assert h["slurm_job_id"] == "4242"
        assert h["host"] == socket.gethostname() and h["pid"] == os.getpid() and held.token == h["token"]


def test_a_replaced_lock_is_never_refreshed_nor_removed_and_its_holder_fails(tmp_path):
    p = tmp_path / "k.lock"
    def hold():
        with key_lock(p, stale_after=0.3):                      # a heartbeat every 0.03 s
            _other_lock(p, age=1000)                            # taken over while we were paused
            time.sleep(0.3)
            assert time.time() - p.stat().st_mtime > 900, "the heartbeat refreshed the new holder's lock"
    with pytest.raises(store.KeyLost, match="our lock was gone or replaced"): hold()
    assert lock_holder(p)["token"] == "b" * 16                  # the new holder's lock stays


def test_make_one_writes_no_record_once_its_lock_is_taken_over(tmp_path):
    from headprune_nb.runs import make_one
    k = RunKey("t", "m", K=1)
    def run(key):
        _other_lock(lock_path(tmp_path, key)); return RunRecord(key, metric=1.0)
    with pytest.raises(store.KeyLost): make_one(run, tmp_path, k)
    assert not record_path(tmp_path, k).exists() and lock_holder(lock_path(tmp_path, k))["token"] == "b" * 16


def test_a_takeover_removes_only_the_lock_it_judged_stale(tmp_path, monkeypatch):
    p = tmp_path / "k.lock"; _other_lock(p, age=KEY_LOCK_STALE + 100)
    real = store._stale
    def judged(h, age, stale_after):                  # between the judgement and the removal a new holder comes
        out = real(h, age, stale_after)
        p.write_text(json.dumps(dict(host="node-c", pid=8, token="c" * 16)))
        tmp = p.with_name("c.tmp"); tmp.write_text(p.read_text()); os.replace(tmp, p)
        return out
    monkeypatch.setattr(store, "_stale", judged)
    assert store._take_over(p, KEY_LOCK_STALE) is False
    assert lock_holder(p)["token"] == "c" * 16 and not list(tmp_path.glob("*.aside"))


def test_a_live_holder_on_this_host_is_never_taken_over(tmp_path, sleeper):
    p = tmp_path / "k.lock"
    p.write_text(json.dumps(dict(host=socket.gethostname(), pid=sleeper, token="a" * 16)))
    os.utime(p, (time.time() - 10 * KEY_LOCK_STALE,) * 2)       # however old its heartbeat (a stopped process)
    with pytest.raises(store.KeyBusy, match=f"held by pid {sleeper}"): key_lock(p, wait=False).__enter__()
    assert lock_holder(p)["pid"] == sleeper


def test_a_heartbeat_error_is_said(tmp_path, monkeypatch, capsys):
    p = tmp_path / "k.lock"
    def stale(*a, **k): raise OSError(errno.ESTALE, "Stale file handle")
    with key_lock(p, stale_after=0.3):
        monkeypatch.setattr(os, "utime", stale); time.sleep(0.2); monkeypatch.undo()
    err = capsys.readouterr().err
    assert f"{p}: the lock's heartbeat failed" in err and "Stale file handle" in err
    assert err.count("heartbeat failed") == 1


def test_a_failed_write_leaves_no_lock(tmp_path, monkeypatch):
    p = tmp_path / "k.lock"
    def boom(*a, **k): raise TypeError("not JSON serializable")
    monkeypatch.setattr(json, "dump", boom); monkeypatch.setattr(json, "dumps", boom)
    with pytest.raises(TypeError): key_lock(p).__enter__()
    monkeypatch.undo()
    assert not p.exists()


# --- 6. odd lock files: one line naming the file, never a silent wait --------------------------------------------
@pytest.mark.parametrize("odd, words", [("link", "is a symbolic link, not a lock file"),
                                         ("folder", "is a folder, not a lock file")])
def test_an_odd_lock_file_is_named(tmp_path, odd, words):
    p = tmp_path / "k.lock"
    if odd == "link": p.symlink_to(tmp_path / "nowhere")
    else: p.mkdir()
    e = within(5, lambda: key_lock(p, poll=0.05).__enter__())
    assert isinstance(e, ValueError) and f"{p} {words}" in str(e)


def test_a_waiting_key_lock_says_so(tmp_path, sleeper, capsys):
    p = tmp_path / "k.lock"
    p.write_text(json.dumps(dict(host=socket.gethostname(), pid=sleeper, token="a" * 16)))
    threading.Timer(0.4, p.unlink).start()                     # the holder lets go
    with key_lock(p, poll=0.05): pass
    assert f"waiting for {p}: held by pid {sleeper} on {socket.gethostname()}" in capsys.readouterr().err
    p.write_text(""); os.utime(p, (time.time() - 60,) * 2)      # an empty file a minute old: names no holder
    with pytest.raises(store.KeyBusy, match="names no holder"): key_lock(p, wait=False).__enter__()


# --- 3. no write through a linked folder under a results folder --------------------------------------------------
def test_no_record_goes_through_a_linked_task_folder(tmp_path):
    from headprune_nb.runs import LocalExecutor, GridFailed
    from headprune_nb.executors import ToyRun
    out, away = tmp_path / "records", tmp_path / "elsewhere"; away.mkdir()
    run_grid([RunKey("a", "m", K=1)], ToyRun().run, out, executor=LocalExecutor(), progress=False)
    (out / "synthetic_cls").symlink_to(away)
    keys = [RunKey("synthetic_cls", "m", K=K) for K in (1, 2)]
    with pytest.raises(GridFailed, match="synthetic_cls is a symbolic link to a folder inside a results folder"):
        run_grid(keys, ToyRun().run, out, executor=LocalExecutor(), progress=False)
    assert (out / LOCK).exists() and list(away.iterdir()) == []


# --- 4. tables read only the grid's keys, each checked against its file name ------------------------------------
def test_a_table_reads_only_its_grids_keys(tmp_path):
    from headprune_nb.baselines_exp import baseline_table
    k = RunKey("synthetic_cls", "baseline", seed=0)
    save_record(tmp_path, RunRecord(k, metric=80.0, extra=dict(row=dict(task="synthetic_cls", value=80.0))))
    planted = RunKey("planted", "baseline", seed=0)
    save_record(tmp_path, RunRecord(planted, metric=1.0, extra=dict(row=dict(task="planted", value=1.0))))
    assert [r["task"] for r in baseline_table(tmp_path, [k])] == ["synthetic_cls"]
    (tmp_path / "synthetic_cls" / "baseline-seed0-copy.json").write_text(record_path(tmp_path, k).read_text())
    with pytest.raises(ValueError, match=r"baseline-seed0-copy.json: holds the record of synthetic_cls/baseline-seed0"):
        read_records(tmp_path)


# --- 5. record values checked before they count; bounded .npz -----------------------------------------------------
def _with_scores(folder, data) -> RunKey:
    k = RunKey("t", "m", K=1)
    save_record(folder, RunRecord(k, metric=50.0, scores=Sample("accuracy", np.array([1, 0], dtype=np.int8))))
    np.savez(record_path(folder, k).with_suffix(".npz"), kind=np.array("accuracy"), data=np.asarray(data))
    return k

@pytest.mark.parametrize("data", [[1, 5, 0, 1], [1.0, np.nan, 0.0]])
def test_impossible_per_example_results_are_refused(tmp_path, data):
    k = _with_scores(tmp_path, data)
    npz = record_path(tmp_path, k).with_suffix(".npz")
    with pytest.raises(ValueError, match=re.escape(f"{npz}: not per-example results")):
        load_record(tmp_path, k)

def test_a_zip_bomb_is_refused_before_it_is_unpacked(tmp_path, monkeypatch):
    from headprune_nb import runs
    k = _with_scores(tmp_path, [1, 0])
    with zipfile.ZipFile(record_path(tmp_path, k).with_suffix(".npz"), "w", zipfile.ZIP_DEFLATED) as z:
        kind = io.BytesIO(); np.save(kind, np.array("accuracy")); z.writestr("kind.npy", kind.getvalue())
        z.writestr("data.npy", bytes(4 << 20))                                       # 4 MiB of zeros in a few kB
    monkeypatch.setattr(runs, "SAMPLE_MAX_BYTES", 1 << 20)
    with pytest.raises(ValueError, match="too large"): load_record(tmp_path, k)

@pytest.mark.parametrize("change, word", [(dict(extra=dict(heads_kept=20, H=8)), "heads_kept=20, of H=8"),
                                          (dict(metric=float("nan")), "metric=nan"),
                                          (dict(surprise=1), "unexpected field 'surprise'"),
                                          (dict(kept=[1, 0]), "kept must be a list of true/false")])
def test_impossible_record_values_are_refused(tmp_path, change, word):
    k = RunKey("t", "voita", lam=0.01)
    save_record(tmp_path, RunRecord(k, metric=80.0, extra=dict(heads_kept=5, H=8)))
    write_json(record_path(tmp_path, k), {**json.loads(record_path(tmp_path, k).read_text()), **change})
    with pytest.raises(ValueError, match=re.escape(f"{record_path(tmp_path, k)}: ") + ".*" + re.escape(word)):
        load_record(tmp_path, k)

def test_distinct_keys_never_share_a_record_file():
    assert RunKey("t", "voita", lam=1e-4).name != RunKey("t", "voita", lam=1.0000001e-4).name
    assert RunKey("t", "voita", lam=0.0004).name == "voita-lam0.0004-seed0"             # committed names unchanged
    for bad in (dict(budget=0), dict(task="../elsewhere"), dict(K=-1), dict(lam=float("inf"))):
        with pytest.raises(ValueError, match="RunKey"): RunKey(**{"task": "t", "method": "m", **bad})


# --- 7. executor options at the edge; one "gone" ------------------------------------------------------------------
@pytest.mark.parametrize("name, opt, value", [("cores", "workers", "1000000000"), ("cores", "workers", ""),
                                               ("cores", "poll", "nan"),
                                               ("cores", "poll", "inf"), ("gpus", "poll", "-1"), ("gpus", "poll", "0")])
def test_executor_options_are_refused_at_the_edge(tmp_path, capsys, name, opt, value):
    "Checked before anything else, the experiment's name included (an unknown one: nothing runs where no check is)."
    code, line = cli(capsys, "reproduce", "no-such-experiment", "--out", str(tmp_path / "o"), "--executor", name,
                     "--executor-opt", f"{opt}={value}")
    assert code == 2 and f"{opt}={value!r}" in line and not (tmp_path / "o").exists()

def test_the_executor_variable_is_checked_before_the_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HEADPRUNE_EXECUTOR", '{"name": "cores", "opts": {"poll": "nan"}}')
    code, line = cli(capsys, "reproduce", "no-such-experiment", "--out", str(tmp_path / "o"))
    assert code == 2 and "$HEADPRUNE_EXECUTOR" in line and "poll='nan'" in line and not (tmp_path / "o").exists()
    monkeypatch.delenv("HEADPRUNE_EXECUTOR")
    code, line = cli(capsys, "reproduce", "no-such-experiment", "--out", str(tmp_path / "o"), "--executor", "")
    assert code == 2 and "unknown executor ''" in line

def test_cores_says_why_its_runs_run_here(tmp_path, capsys):
    from headprune_nb.executors import CoresExecutor, ToyRun
    threads = torch.get_num_threads(); torch.set_num_threads(2)
    keys = [RunKey("t", "m", K=K) for K in (1, 2)]
    try: got = list(CoresExecutor(workers=min(2, os.cpu_count() or 1)).map(ToyRun().run, keys, tmp_path))
    finally: torch.set_num_threads(threads)
    assert len(got) == 2 and "cores: 2 runs here, one after another: " in capsys.readouterr().err

def test_gpus_waits_for_a_key_another_live_process_holds(tmp_path, sleeper, monkeypatch):
    from headprune_nb import executors
    real = subprocess.Popen                                      # workers that end at once, making nothing
    monkeypatch.setattr(executors.subprocess, "Popen", lambda cmd, **kw: real([sys.executable, "-c", "pass"], **kw))
    k = RunKey("t", "m", K=1); lock = lock_path(tmp_path, k); lock.parent.mkdir()
    lock.write_text(json.dumps(dict(host=socket.gethostname(), pid=sleeper, token="a" * 16)))   # another's live worker
    got = executors.GpusExecutor(devices="cpu", poll=0.05).map(executors.ToyRun().run, [k], tmp_path)
    out = []; t = threading.Thread(target=lambda: out.append(next(got)), daemon=True); t.start(); t.join(1.5)
    assert t.is_alive(), f"a key another live process holds was failed: {out}"
    save_record(tmp_path, RunRecord(k, metric=1.0)); lock.unlink()               # that process made it
    t.join(5)
    assert out and out[0][1].metric == 1.0 and out[0][2] is None

def test_every_executor_asks_one_gone(tmp_path):
    import inspect
    from headprune_nb import executors
    for ex in (executors.GpusExecutor.map, executors.CoresExecutor.map, executors.SlurmExecutor.watch):
        assert "Gone(folder)" in inspect.getsource(ex), ex
    k, g = RunKey("t", "m", K=1), executors.Gone(tmp_path, grace=0.3)
    lock = lock_path(tmp_path, k); lock.parent.mkdir(); lock.write_text(json.dumps(dict(host="node-b", pid=1)))
    assert g(k, ended=True) is False; lock.unlink()
    assert g(k, ended=True) is False                    # its holder was on another host: its record may show late
    time.sleep(0.35); assert g(k, ended=True) is True

def test_a_killed_cores_submission_leaves_no_grid_folder(tmp_path):
    from headprune_nb.executors import sweep_grids, GRIDS
    dead = subprocess.Popen(["true"]); dead.wait()
    write_json(tmp_path / GRIDS / "a" / "owner.json", dict(host=socket.gethostname(), pid=dead.pid))
    (tmp_path / GRIDS / "a" / "worker0.log").write_text("made t/m-K1-seed0\n")
    assert sweep_grids(tmp_path) == [tmp_path.resolve() / GRIDS / "a"] and not (tmp_path / GRIDS / "a").exists()


# --- 8. crafted model folders ---------------------------------------------------------------------------------------
@pytest.fixture
def saved(tmp_path):
    from headprune_nb.models import tiny_bert
    from headprune_nb.prune import save_pruned
    m = save_pruned(tiny_bert(), tmp_path / "m")
    return m, json.loads((m / "config.json").read_text())

@pytest.mark.parametrize("change, word", [
    (dict(num_attention_heads=0), "num_attention_heads=0"), (dict(head_dim=10**9), "head_dim=1000000000"),
    (dict(headprune_kept=[0, 1]), "headprune_kept must map"),
    (dict(headprune_kept={"bert.encoder.layer.0.attention.self": [9]}), "headprune_kept["),
    (dict(architectures=["pipeline"]), "architectures=['pipeline']"),
    (dict(architectures=["AutoModel"]), "architectures=['AutoModel']"),
    (dict(vocab_size=200_000, hidden_size=512), "parameters, more than model.safetensors")])
def test_a_crafted_config_is_refused_naming_its_key(saved, change, word):
    from headprune_nb.prune import load_pruned
    m, good = saved
    (m / "config.json").write_text(json.dumps({**good, **change}))
    with pytest.raises(ValueError, match=re.escape(word)): load_pruned(m)

def test_a_model_folders_python_never_runs(tmp_path, monkeypatch):
    from headprune_nb.models import load_model
    marker = tmp_path / "ran"
    (tmp_path / "evil.py").write_text(f"open({str(marker)!r}, 'w').close()\nfrom transformers import PretrainedConfig\n"
                                      "class EvilConfig(PretrainedConfig): model_type = 'evil'\n")
    (tmp_path / "config.json").write_text(json.dumps(dict(model_type="evil", architectures=["BertModel"],
                                                          auto_map={"AutoConfig": "evil.EvilConfig"})))
    monkeypatch.setattr("builtins.input", lambda *a: "y")                # a user answering transformers' prompt
    with pytest.raises(ValueError, match=re.escape(str(tmp_path / "config.json"))): load_model(str(tmp_path))
    assert not marker.exists()

def test_every_auto_from_pretrained_refuses_remote_code():
    import ast
    calls = []
    for f in (ROOT / "headprune_nb").glob("*.py"):
        if "from_pretrained(" not in (text := f.read_text()): continue
        for n in ast.walk(ast.parse(text)):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "from_pretrained" \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id.startswith("Auto"):
                no = [k for k in n.keywords if k.arg == "trust_remote_code" and getattr(k.value, "value", 1) is False]
                calls.append((f.name, n.lineno, bool(no)))
    assert calls and all(ok for *_, ok in calls), [c for c in calls if not c[2]]


# --- 9. lower -----------------------------------------------------------------------------------------------------
def test_umask_mode_never_changes_the_process_umask(tmp_path, monkeypatch):
    from headprune_nb.store import umask_mode
    if not Path("/proc/self/status").exists(): pytest.skip("reads the umask from /proc (Linux)")
    calls, real = [], os.umask
    mask = real(0o022); real(mask)
    monkeypatch.setattr(os, "umask", lambda m: calls.append(m) or real(m))
    f = tmp_path / "f"; f.write_text("x"); umask_mode(f)
    assert calls == [] and (f.stat().st_mode & 0o777) == 0o666 & ~mask

def test_atomic_file_flushes_to_the_disk(tmp_path, monkeypatch):
    synced = []; real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(os.readlink(f"/proc/self/fd/{fd}")) or real(fd))
    write_json(tmp_path / "a.json", {})
    assert any(s.startswith(str(tmp_path / ".a.json.")) for s in synced), synced

def test_made_anew_is_said_once(tmp_path, capsys):
    k = RunKey("t", "m", K=1, variant="paper"); save_record(tmp_path, RunRecord(k, metric=1.0))
    for _ in range(3): assert load_record(tmp_path, RunKey("t", "m", K=1, variant="code")) is None
    assert capsys.readouterr().err.count("made anew") == 1

def test_per_text_scores_are_written_whole_and_checked(tmp_path):
    from headprune_nb import llm_exp
    key = dict(method="michel", unit="query", mode="uneven", budget="query", share=0.25, seed=0)
    path = llm_exp._nll_path(tmp_path, key); path.parent.mkdir()
    np.save(path, np.array([[1.0, np.nan], [2.0, 3.0]]))
    with pytest.raises(ValueError, match=re.escape(f"{path}: not per-text scores")): llm_exp._nll(tmp_path, key)
    llm_exp._save_nll(path, np.array([[1.0, 2.0], [2.0, 3.0]]))
    assert llm_exp._nll(tmp_path, key).score() == pytest.approx(3.0 / 5.0)         # mean NLL a token
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]

def test_save_for_transformers_clears_gates_and_fills_an_empty_folder(tmp_path):
    "As save_pruned: gates still set are cleared, so the model in memory is the model saved."
    from transformers import AutoModelForCausalLM
    from headprune_nb.models import tiny_llm
    from headprune_nb.gates import set_head_gates
    from headprune_nb.heads import HeadIndex
    from headprune_nb.gqa import save_for_transformers
    torch.manual_seed(0); m = tiny_llm(); g = torch.ones(HeadIndex.from_model(m).H); g[:3] = 0
    set_head_gates(m, g)
    (tmp_path / "out").mkdir()
    save_for_transformers(m, tmp_path / "out")
    back = AutoModelForCausalLM.from_pretrained(tmp_path / "out", trust_remote_code=False)
    ids = torch.tensor([[3, 4, 5, 6]])
    with torch.no_grad(): assert torch.allclose(m(input_ids=ids).logits, back(input_ids=ids).logits, atol=1e-5)

def test_report_does_not_trust_a_verdict_column_or_a_back_dated_rule(tmp_path):
    from headprune_nb.report import claim_rows, rule_status, rule_key, RULE_COLS, registered_rules
    from headprune_nb.store import write_csv
    d = tmp_path / "michel2019_speed"
    rule = "claim: speed-up (%) > 5; supported if the interval lies above 5, contradicted ..."
    write_csv(d / "claims.csv", [dict(claim="c", task="", ours="x", verdict="supported", lo=-3.0, hi=-1.0, seeds=6,
                                      point=-2.0, rule=rule)])
    (row,) = [r for r in claim_rows([("michel2019_speed", "cpu", d)]) if r["claim"] == "c"]
    assert row["verdict"].startswith("damaged: verdict 'supported' does not follow")
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if not head: pytest.skip("no git history here")
    r = dict(experiment="e", profile="cpu", task="", claim="c", rule="R", phase="")
    rules = {rule_key(r): [dict(r, commit=head, registered_utc="2000-01-01T00:00:00Z")]}
    assert rule_status(r, rules, "2026-01-01T00:00:00Z")[1].startswith("back-dated")
    write_csv(tmp_path / "rules.csv", [{("registered" if k == "registered_utc" else k): "" for k in RULE_COLS}])
    with pytest.raises(ValueError, match=r"rules.csv has no 'registered_utc' column"):
        registered_rules(tmp_path / "rules.csv")

def test_cli_messages_name_the_real_cause(capsys, tmp_path):
    code, line = cli(capsys, "bench", "--model", "tiny-bert", "--batch-sizes", "1", "--out", "/proc/x.csv")
    assert code == 2 and "--out /proc/x.csv: no file can be written in /proc" in line
    code, line = cli(capsys, "bench", "--model", "tiny-bert", "--batch-sizes", "1", "--seed", str(2**64))
    assert code == 2 and "--seed must be from 0 to" in line
    code, line = cli(capsys, "import-fairseq", str(tmp_path / "x.pt"), "--as", "nosuch")
    assert code == 2 and "give PROFILE/TASK, a translation recipe: " in line and "/" in line.split("recipe: ")[1]
    code, _ = cli(capsys, "bench", "--model", "tiny-bert", "--batch-sizes", "1", "--seq-len", "4", "--repeats", "1")
    assert code == 0 and "GPU" not in capsys.readouterr().out

def test_rules_tool_answers_a_damaged_file_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import rules
    (tmp_path / "p.csv").write_text("experiment,profile\nx,y\n")
    assert rules.cli(["--planned", str(tmp_path / "p.csv")]) == 2
    assert "has no 'task' column" in capsys.readouterr().err
    (tmp_path / "p.csv").write_bytes(b"\xff\xfe\x00")
    assert rules.cli(["--planned", str(tmp_path / "p.csv")]) == 2
