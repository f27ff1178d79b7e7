"""The run layer's executors outside this process: `gpus` with CPU stand-ins (no GPU here), several worker processes
racing on one records folder, a worker killed mid-run (its key's lock taken over, nothing lost), and a worker started
without the submitter's environment (the grid file's settings). About 65 s on a loaded 2-core machine (each worker
process imports torch; 8 worker processes in all)."""
import json, os, re, subprocess, sys, time
from pathlib import Path
import pytest
from headprune_nb.runs import RunKey, run_grid, read_records, lock_path, GridFailed, EXECUTOR_ENV, WORKER_ENV
from headprune_nb.executors import ToyRun, write_grid, failure_path

KEYS = [RunKey("t", "m", K=K) for K in range(1, 7)]


@pytest.fixture(autouse=True)
def no_default_executor(monkeypatch):
    monkeypatch.delenv(EXECUTOR_ENV, raising=False); monkeypatch.delenv(WORKER_ENV, raising=False)


def _gpus():
    from headprune_nb.runs import get_executor
    return get_executor("gpus", devices="cpu,cpu", poll="0.2")


def test_gpus_executor_with_cpu_workers(tmp_path, capsys):
    with pytest.raises(GridFailed) as e:                                      # two CPU workers share the grid; K=3 fails
        run_grid(KEYS, ToyRun(fail_at=[3], seconds=0.2).run, tmp_path, executor=_gpus(), progress=False)
    (line,) = [l for l in str(e.value).splitlines() if l.startswith("t/")]
    assert line.startswith("t/m-K3-seed0: RuntimeError: ValueError: K 3 diverged; log: ") and "worker" in line
    assert "failed: t/m-K3-seed0" in capsys.readouterr().err                     # said when it happened, too
    recs = read_records(tmp_path)
    assert sorted(r.key.K for r in recs) == [1, 2, 4, 5, 6]                     # the finished records are kept
    assert {r.extra["device"] for r in recs} == {""}                            # each worker pinned: no GPU visible to it
    logs = sorted((tmp_path / ".grids").glob("*/worker*.log"))
    assert len(logs) == 2 and all("made t/" in p.read_text() for p in logs)     # both workers made records
    assert sum(p.read_text().count("made t/") for p in logs) == 5              # each key made once
    recs = run_grid(KEYS, ToyRun().run, tmp_path, executor=_gpus(), progress=False)   # the re-run makes only K=3
    assert [r.metric for r in recs.values()] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert sum(p.read_text().count("made t/") for p in (tmp_path / ".grids").glob("*/worker*.log")) == 6


WORKER = ("import sys; from headprune_nb.executors import work; sys.exit(work(sys.argv[1], claim=True))")


def test_workers_racing_on_one_folder_make_each_key_once(tmp_path):
    grid = write_grid(tmp_path, ToyRun(seconds=0.3).run, KEYS)
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(grid)], stdout=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    made = [l for o in outs for l in o.splitlines() if l.startswith("made")]
    assert sorted(made) == sorted(f"made t/{k.name}" for k in KEYS)            # every key once, none twice
    assert [r.metric for r in read_records(tmp_path)] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert not list(tmp_path.glob("t/*.lock")) and not list(tmp_path.glob("t/.*.tmp*"))   # no lock or temp file left


def test_a_killed_worker_loses_nothing(tmp_path):
    grid = write_grid(tmp_path, ToyRun(seconds=30).run, KEYS[:1])
    w = subprocess.Popen([sys.executable, "-c", WORKER, str(grid)])
    lock = lock_path(tmp_path, KEYS[0])
    for _ in range(600):
        if lock.exists() and lock.read_text(): break
        time.sleep(0.1)
    assert json.loads(lock.read_text())["pid"] == w.pid                        # the worker holds the key
    w.kill(); w.wait()                                                         # killed mid-run: its lock stays behind
    assert lock.exists() and not read_records(tmp_path)
    recs = run_grid(KEYS, ToyRun().run, tmp_path, progress=False)              # the dead pid's lock is taken over
    assert [r.metric for r in recs.values()] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_a_worker_runs_with_the_grids_settings_not_its_environment(tmp_path, monkeypatch):
    """A worker whose job has none of the submitter's environment (a site's --export=NONE) runs with the grid file's
    settings; the grid names no device."""
    monkeypatch.setenv("HEADPRUNE_PRECISION", "bf16")
    monkeypatch.setenv("HEADPRUNE_COMMAND", "headprune reproduce x --profile full")
    grid = write_grid(tmp_path, ToyRun().run, KEYS[:1])
    assert json.loads(grid.read_text())["settings"]["device"] is None              # each worker chooses its own
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEADPRUNE_")}
    subprocess.run([sys.executable, "-c", WORKER, str(grid)], env=env, check=True, timeout=300)
    prov = read_records(tmp_path)[0].provenance
    assert (prov["precision"], prov["command"]) == ("bf16", "headprune reproduce x --profile full")


def _ask_for_baseline(cache, count, seconds):
    "One process asking for the smoke sst-like baseline, with a stand-in trainer that counts its trainings and takes `seconds`."
    os.environ["HEADPRUNE_CACHE"] = str(cache)
    from headprune_nb import recipes
    def stand_in(r, seed=0, device="cpu", out_dir=None, progress=True, resume=True):
        with open(count, "a") as f: f.write(f"{os.getpid()}\n")
        time.sleep(seconds)
        data = recipes.cls_data(r, seed)
        return (*recipes.cls_model(r, data, seed), {})
    recipes.run_cls_recipe = stand_in
    os._exit(0 if recipes.trained("smoke", "synthetic_cls", progress=False).weights else 1)


def test_two_processes_train_one_baseline_once(tmp_path):
    "Two processes (two jobs of one grid) ask for the same baseline at once: one trains it, the other waits and loads it (store.key_lock)."
    import multiprocessing as mp
    count = tmp_path / "trainings.txt"
    ctx = mp.get_context("fork")                       # torch is imported already: the children start in a moment
    procs = [ctx.Process(target=_ask_for_baseline, args=(tmp_path / "cache", count, 1.5)) for _ in range(2)]
    for p in procs: p.start()
    for p in procs: p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    assert len(count.read_text().split()) == 1, count.read_text()                  # trained once, not twice
    assert not list((tmp_path / "cache" / "models" / "smoke").glob("*.lock"))          # the lock released


def test_a_smoke_grid_on_forked_workers_equals_local(headprune, smoke_cache, tmp_path):
    "dsp2021's synthetic_cls half made by the `cores` executor (two forked workers) and by `local`: the same tables and claims."
    from grid_tables import tables, smoke
    names = ("table3.csv", "table3_masks.csv", "unpruned.csv", "claims.csv", "budgets.csv", "figure6.csv")
    args = ("--profile", "smoke", "--param", 'tasks=["synthetic_cls"]', "--param", "bench=False")
    forked = smoke(headprune, "dsp2021", tmp_path / "cores", smoke_cache, *args, "--executor", "cores", "--executor-opt", "workers=2")
    assert re.search(r"cores: 2 workers for \d+ runs", forked.stderr)
    assert not list((tmp_path / "cores").glob("*/.grids/*"))             # every run made: the workers' logs removed
    here = smoke(headprune, "dsp2021", tmp_path / "local", smoke_cache, *args, "--executor", "local")
    assert "cores:" not in here.stderr
    assert tables(tmp_path / "cores", names) == tables(tmp_path / "local", names)


def _holder(lock: Path) -> dict:
    "What a lock file says of its holder ({}: gone or being written)."
    try: return json.loads(lock.read_text() or "{}")
    except (OSError, ValueError): return {}


def _running(pid: int) -> bool:
    "Whether process `pid` runs (a zombie, or one gone, does not)."
    try: return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError): return False


def test_a_killed_submitter_leaves_no_forked_worker_and_a_rerun_finishes(tmp_path):
    "SIGKILL the process that forked the `cores` workers mid-grid: its workers end too (none left holding a key), and a re-run makes the rest."
    code = ("import sys, torch; torch.set_num_threads(1); from headprune_nb.runs import RunKey, run_grid; "
            "from headprune_nb.executors import ToyRun, CoresExecutor; "
            "run_grid([RunKey('t', 'm', K=K, seed=K % 2) for K in range(1, 7)], ToyRun(seconds=20).run, sys.argv[1], "
            "executor=CoresExecutor(workers=2), progress=False)")
    p = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stderr=subprocess.PIPE, text=True)
    deadline, held = time.time() + 120, []
    while time.time() < deadline and len(held) < 2:            # both workers hold a key
        held = [h for f in tmp_path.glob("t/*.lock") if (h := _holder(f))]
        time.sleep(0.2)
    assert len(held) == 2, p.stderr.read() if p.poll() is not None else "the workers took no keys"
    pids = {h["pid"] for h in held}
    assert p.pid not in pids
    p.kill(); p.wait()
    deadline = time.time() + 30
    while time.time() < deadline and any(map(_running, pids)): time.sleep(0.2)
    assert not [q for q in pids if _running(q)]
    assert not list(tmp_path.glob("t/*.lock"))                   # each let its key go on the way out
    recs = run_grid([RunKey("t", "m", K=K, seed=K % 2) for K in range(1, 7)], ToyRun().run, tmp_path, progress=False)
    assert [r.metric for r in recs.values()] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
