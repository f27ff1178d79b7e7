"""The `slurm` executor on a real single-node Slurm cluster started on localhost (Debian's slurm-wlm and munge, as root,
as CI runs; `.ci/run` installs them). Where they are missing or the daemons do not start, every test here skips with
one line saying why.

The smoke grids of dsp2021 and behnke2020 run through `--executor slurm` and give the same tables and claims as the
local executor (timing columns apart); a job cancelled mid-run (`scancel`) is made again by a re-run, with the same
results. Measured on the shared 2-core machine under a load average of 10 to 13 (other sessions' work): the
dsp2021 half (synthetic_cls, 73 records in 2 array tasks) 133 s, behnke2020 (both seeds, 6 submissions) 296 s, the
cancelled job 40 s with the cluster's start; the runs they compare with are the session's smoke runs (on the `cores` executor, a
smoke run's default; tests/test_reproduce_smoke.py), made once."""
import json, os, re, shutil, signal, socket, stat, subprocess, sys, time
from pathlib import Path
import pytest
from headprune_nb.runs import (EXECUTOR_ENV, WORKER_ENV, RunKey, run_grid, read_records, get_executor, lock_path,
                               load_record, GridFailed)
from headprune_nb.executors import ToyRun, job_name, JOBS, GRIDS
from grid_tables import tables as _tables, smoke as _smoke

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel", "srun")
GPUS = 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


def _conf(d: Path) -> str:
    """slurm.conf of a one-node cluster with two GPUs in gres.conf (device files made for the test: no GPU is needed)
    and two partitions: test (the default, no time limit) and short (MaxTime 60 min)."""
    host, cpus = socket.gethostname().split(".")[0], os.cpu_count() or 1
    mem = int(int(next(l for l in open("/proc/meminfo") if l.startswith("MemTotal")).split()[1]) / 1024 * 0.5)
    (d / "dev").mkdir(exist_ok=True)
    for i in range(GPUS):                   # character devices (slurmd refuses plain files); never opened
        if not (dev := d / "dev" / f"nvidia{i}").exists(): os.mknod(dev, 0o600 | stat.S_IFCHR, os.makedev(195, i))
    (d / "gres.conf").write_text(f"NodeName={host} Name=gpu File={d}/dev/nvidia[0-{GPUS - 1}]\n")
    return "\n".join([
        "ClusterName=headprune-test", f"SlurmctldHost={host}(127.0.0.1)", "AuthType=auth/munge",
        f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "JobAcctGatherType=jobacct_gather/none",
        "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core", "SlurmUser=root", "SlurmdUser=root",
        f"StateSaveLocation={d}/state", f"SlurmdSpoolDir={d}/spool", f"SlurmctldPidFile={d}/slurmctld.pid",
        f"SlurmdPidFile={d}/slurmd.pid", f"SlurmctldLogFile={d}/slurmctld.log", f"SlurmdLogFile={d}/slurmd.log",
        "ReturnToService=2", "MpiDefault=none", "KillWait=2", "SchedulerType=sched/backfill", "GresTypes=gpu",
        f"NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={mem} Gres=gpu:{GPUS} State=UNKNOWN",
        f"PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8",
        f"PartitionName=short Nodes={host} MaxTime=60 State=UP OverSubscribe=FORCE:8", ""])


def _munge_up() -> str | None:
    "Start munged if it is not running; None when it works, else why not."
    if subprocess.run("munge -n | unmunge", shell=True, capture_output=True).returncode == 0: return None
    key = Path("/etc/munge/munge.key")
    if not key.exists():
        key.parent.mkdir(parents=True, exist_ok=True); key.write_bytes(os.urandom(1024))
    for d in ("/etc/munge", "/run/munge", "/var/lib/munge", "/var/log/munge"):
        Path(d).mkdir(parents=True, exist_ok=True); shutil.chown(d, "munge", "munge")
        for f in Path(d).iterdir():             # munged refuses a log or seed file root left there ("Logfile is insecure")
            if f.is_file() and not f.is_symlink(): shutil.chown(f, "munge", "munge")
    shutil.chown(key, "munge", "munge"); key.chmod(0o400)
    subprocess.run(["runuser", "-u", "munge", "--", "munged"], capture_output=True)
    ok = subprocess.run("munge -n | unmunge", shell=True, capture_output=True)
    return None if ok.returncode == 0 else f"munged does not start: {ok.stderr.decode().strip()[:200]}"


@pytest.fixture(scope="session")
def slurm(tmp_path_factory):
    "A single-node Slurm cluster on localhost for the session (SLURM_CONF set), stopped at the end."
    if os.geteuid() != 0: pytest.skip("a local Slurm cluster needs root (as CI runs)")
    if missing := [d for d in DAEMONS if not shutil.which(d)]:
        pytest.skip(f"no {', '.join(missing)}: apt-get install slurm-wlm munge (as .ci/run does) to run the Slurm tests")
    if why := _munge_up(): pytest.skip(why)
    d = tmp_path_factory.mktemp("slurm")
    for sub in ("state", "spool"): (d / sub).mkdir()
    (d / "slurm.conf").write_text(_conf(d))
    old = os.environ.get("SLURM_CONF"); os.environ["SLURM_CONF"] = str(d / "slurm.conf")
    for daemon in ("slurmctld", "slurmd"): subprocess.run([daemon, "-f", str(d / "slurm.conf")], capture_output=True)
    try:
        for _ in range(60):
            if subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True).stdout.strip() == "idle": break
            time.sleep(0.5)
        else:
            pytest.skip(f"the Slurm daemons did not start: {(d / 'slurmctld.log').read_text()[-300:] if (d / 'slurmctld.log').exists() else 'no log'}")
        yield d
    finally:
        for _ in range(40):                                        # let the last jobs end, then cancel what is left
            if not subprocess.run(["squeue", "-h"], capture_output=True, text=True).stdout.strip(): break
            time.sleep(0.5)
        subprocess.run("squeue -h -o %F | sort -u | xargs -r scancel", shell=True, capture_output=True); time.sleep(1)
        for pid in ("slurmd.pid", "slurmctld.pid"):
            try: os.kill(int((d / pid).read_text()), signal.SIGTERM)
            except (OSError, ValueError): pass
        if old is None: os.environ.pop("SLURM_CONF", None)
        else: os.environ["SLURM_CONF"] = old


@pytest.fixture
def smoke_local(smoke_run, smoke_cache, tmp_path):
    """`smoke_local(name)`: (the session's local smoke run of `name`, a cache holding only its trained baselines and
    their training logs, which their convergence test reads: every pruning run is made anew)."""
    def get(name):
        out, cache = smoke_run(name), tmp_path / "cache"
        shutil.copytree(smoke_cache / "models", cache / "models")
        if (smoke_cache / "runs").exists():                  # the baselines' run folders (Voita's sweeps made anew)
            shutil.copytree(smoke_cache / "runs", cache / "runs", ignore=shutil.ignore_patterns("voita"))
        return out, cache
    return get


@pytest.fixture(autouse=True)
def no_default_executor(monkeypatch):
    monkeypatch.delenv(EXECUTOR_ENV, raising=False); monkeypatch.delenv(WORKER_ENV, raising=False)


SLURM = ["--executor", "slurm", "--executor-opt", "poll=1", "--executor-opt", "time=10"]


@pytest.mark.parametrize("name, tables, chunk, only", [      # dsp2021: its synthetic_cls half (the local run's rows of that task)
    ("dsp2021", ("table3.csv", "table3_masks.csv", "unpruned.csv", "claims.csv", "budgets.csv", "figure6.csv"), 30, "synthetic_cls"),
    ("behnke2020", ("rounds.csv", "table3.csv", "table5.csv"), 4, None)])         # behnke2020: seed 0's tables
def test_smoke_grid_through_slurm_equals_local(slurm, smoke_local, headprune, tmp_path, name, tables, chunk, only):
    local, cache = smoke_local(name)                    # the session's local run; a cache with its baselines only
    params = ["--param", f"tasks={[only]!r}"] if only else ["--param", "seeds=[0]"]    # behnke2020: seed 0 only
    r = _smoke(headprune, name, tmp_path / name, cache, *SLURM, "--executor-opt", f"chunk={chunk}", *params)
    assert "slurm: job array" in r.stderr and re.search(r"slurm: \d+ done, \d+ running, \d+ pending, 0 failed", r.stderr)
    ours, theirs = _tables(tmp_path / name, tables), _tables(local, tables)
    if only: theirs = {t: [row for row in rows if row.get("task", only) == only] for t, rows in theirs.items()}
    assert ours == theirs
    assert list((tmp_path / name).glob("*/.grids/*/slurm/*_log.out"))    # the records came from the array tasks


def test_a_cancelled_job_is_made_again(slurm, tmp_path, monkeypatch):
    keys = [RunKey("t", "m", K=K) for K in (1, 2, 3)]
    ex = get_executor("slurm", poll="0.5", time="5")
    slow = ToyRun(seconds=8)
    import threading
    got = {}
    th = threading.Thread(target=lambda: got.update(_catch(lambda: run_grid(keys, slow.run, tmp_path, executor=ex, progress=False))))
    th.start()
    lock = lock_path(tmp_path, keys[0])
    for _ in range(600):                                           # the job is running: its first key is locked
        if lock.exists(): break
        time.sleep(0.1)
    assert lock.exists()
    jobs = set(subprocess.run(["squeue", "-h", "-o", "%F"], capture_output=True, text=True).stdout.split())
    subprocess.run(["scancel", *jobs], check=True)
    th.join(120)
    assert "error" in got and "ended without its record" in str(got["error"]) and "log: " in str(got["error"])
    recs = run_grid(keys, ToyRun().run, tmp_path, executor=get_executor("slurm", poll="0.5", time="5"), progress=False)
    assert [r.metric for r in recs.values()] == [1.0, 2.0, 3.0]


def _catch(f):
    try: return dict(value=f())
    except Exception as e: return dict(error=e)


def _slurm(*opts):
    "The slurm executor with `opts` ('k=v'), polling every 0.5 s, a run expected to take a minute (a task: 15 min)."
    return get_executor("slurm", **{"poll": "0.5", "run_time": "1", **dict(o.split("=", 1) for o in opts)})


def _jobs_of(folder) -> set:
    "Every array job id submitted for `folder` (each submission's jobs.json)."
    return {j for p in Path(folder, GRIDS).glob(f"*/{JOBS}") for j in json.loads(p.read_text())}


def _squeue(*args) -> list[str]:
    return subprocess.run(["squeue", "-h", *args], capture_output=True, text=True).stdout.split()


def test_gpu_tasks_see_their_own_gpu_and_one_without_fails_at_once(slurm, tmp_path):
    import torch
    keys = [RunKey("t", "m", K=K) for K in (1, 2)]
    recs = run_grid(keys, ToyRun(seconds=3).run, tmp_path, executor=_slurm("gpus=1", "device=cpu"), progress=False)
    got = [(r.extra["device"], r.extra["started"], r.extra["ended"], r.provenance) for r in recs.values()]
    for dev, _, _, prov in got:                              # each task saw one GPU of the node's and recorded it
        assert dev in {str(i) for i in range(GPUS)} and prov["cuda_visible_devices"] == dev and prov["slurm_job"]
    (a, a0, a1, _), (b, b0, b1, _) = got
    assert a != b or a1 <= b0 or b1 <= a0, "two tasks at once shared one GPU"
    if torch.cuda.is_available(): return
    with pytest.raises(GridFailed) as e:                     # asked for a GPU, named no device, sees none (a CPU torch)
        run_grid([RunKey("t", "m", K=3)], ToyRun().run, tmp_path, executor=_slurm("gpus=1"), progress=False)
    assert "this task asked for 1 GPU(s) and sees none (CUDA_VISIBLE_DEVICES='" in str(e.value)
    assert load_record(tmp_path, RunKey("t", "m", K=3)) is None


SUBMIT = """import sys
from headprune_nb.runs import RunKey, run_grid, get_executor
from headprune_nb.executors import ToyRun
keys = [RunKey("t", "m", K=K) for K in (2, 3, 4)]
ex = get_executor("slurm", poll="0.5", run_time="1", chunk="3")
run_grid(keys, ToyRun(seconds=1, after=[[2, 1], [3, 1], [4, 1]]).run, sys.argv[1], executor=ex, progress=False)"""


def test_a_second_phase_waits_and_a_rerun_after_the_submitter_is_killed_submits_nothing_twice(slurm, tmp_path, capsys):
    log = open(tmp_path / "submitter.log", "w")              # K=2, 3, 4 need K=1: it is made first, in its own array
    p = subprocess.Popen([sys.executable, "-c", SUBMIT, str(tmp_path / "out")], stderr=log)
    for _ in range(1200):                                    # both phases queued
        if len(queued := set(_squeue("--name", job_name(tmp_path / "out"), "-o", "%A"))) == 2: break
        time.sleep(0.1)
    p.kill()                                                 # a dropped ssh session: the submitter gone, its jobs left
    p.wait()
    said = (tmp_path / "submitter.log").read_text()
    assert len(queued) == 2 and _jobs_of(tmp_path / "out") == queued, said
    (first,) = re.findall(r"slurm: job array (\d+): phase 0, 1 task\(s\), --time=00:15:00\n", said)
    assert re.search(rf"slurm: job array \d+: phase 1, 1 task\(s\), --time=00:15:00, after {first}\n", said), said
    keys = [RunKey("t", "m", K=K) for K in (2, 3, 4)]
    run = ToyRun(seconds=1, after=[[2, 1], [3, 1], [4, 1]]).run
    recs = run_grid(keys, run, tmp_path / "out", executor=_slurm(), progress=False)
    assert [r.metric for r in recs.values()] == [2.0, 3.0, 4.0]
    assert _jobs_of(tmp_path / "out") == queued              # the re-run watched the queued arrays: none again
    err = capsys.readouterr().err
    assert "slurm: 0 run(s) submitted, 4 queued or running already" in err, err
    assert re.search(r"pending: .*Dependency 1", err), err    # why the second phase waits, in the progress line
    first = load_record(tmp_path / "out", RunKey("t", "m", K=1))
    assert all(r.extra["started"] >= first.extra["ended"] for r in recs.values())   # it started after the first ended


def test_a_lock_of_an_ended_job_on_another_host_is_taken_over_at_once(slurm, tmp_path):
    job = subprocess.run(["sbatch", "--parsable", "-t", "1", "-o", "/dev/null", "--wrap", "true"], capture_output=True,
                         text=True, check=True).stdout.strip().split(";")[0]
    for _ in range(600):                                     # the job has ended
        if _squeue("-t", "all", "-j", job, "-o", "%T") in (["COMPLETED"], []): break
        time.sleep(0.1)
    key, lock = RunKey("t", "m", K=1), lock_path(tmp_path, RunKey("t", "m", K=1))
    lock.parent.mkdir(parents=True)
    lock.write_text(json.dumps(dict(host="another-node", pid=4242, slurm_job_id=job, log="/elsewhere/w.log")))
    t0 = time.time()                                         # a fresh lock: its heartbeat would keep it for 600 s
    recs = run_grid([key], ToyRun().run, tmp_path, executor=_slurm(), progress=False)
    assert recs[key].metric == 1.0 and time.time() - t0 < 300


def test_each_task_gets_its_runs_time_and_the_partition_limit_is_checked_first(slurm, tmp_path, capsys):
    (hours := tmp_path / "hours.csv").write_text("task,key,gpu_hours\nt,m-K1-seed0,0.3\nt,m-K2-seed0,2.0\n")
    ex = _slurm("partition=short", f"hours={hours}")         # short: MaxTime 60 minutes
    run_grid([RunKey("t", "m", K=1)], ToyRun().run, tmp_path / "a", executor=ex, progress=False)
    err = capsys.readouterr().err
    (job,) = re.findall(r"slurm: job array (\d+): phase 0, 1 task\(s\), --time=00:30:00\n", err)   # 0.3 h x 1.5
    assert _squeue("-t", "all", "-j", job, "-o", "%l") == ["30:00"]        # the limit Slurm gave it: below MaxTime
    with pytest.raises(ValueError) as e:                     # 2.0 h x 1.5: over MaxTime, refused before any submission
        run_grid([RunKey("t", "m", K=2)], ToyRun().run, tmp_path / "b", executor=ex, progress=False)
    assert str(e.value).startswith("slurm: t/m-K2-seed0 needs 03:00:00 (2.0 h x 1.5), over partition short's MaxTime "
                                   "01:00:00 (sinfo)")
    assert not _jobs_of(tmp_path / "b") and not _squeue("--name", job_name(tmp_path / "b"))
