"""The `slurm` executor on a real single-node Slurm cluster started on localhost (Debian's slurm-wlm and munge, as root,
as CI runs; `.ci/run` installs them). Where they are missing or the daemons do not start, every test here skips with
one line saying why.

The smoke grids of dsp2021 and behnke2020 run through `--executor slurm` and give the same tables and claims as the
local executor (timing columns apart); a job cancelled mid-run (`scancel`) is made again by a re-run, with the same
results. Measured on the shared 2-core machine under a load average of 10 to 13 (other sessions' work): the
dsp2021 half (synthetic_cls, 73 records in 2 array tasks) 133 s, behnke2020 (both seeds, 6 submissions) 296 s, the
cancelled job 40 s with the cluster's start; the runs they compare with are the session's smoke runs (on the `cores` executor, a
smoke run's default; tests/test_reproduce_smoke.py), made once."""
import os, re, shutil, signal, socket, subprocess, sys, time
from pathlib import Path
import pytest
from headprune_nb.runs import EXECUTOR_ENV, WORKER_ENV, RunKey, run_grid, read_records, get_executor, lock_path
from headprune_nb.executors import ToyRun
from grid_tables import tables as _tables, smoke as _smoke

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel", "srun")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


def _conf(d: Path) -> str:
    host, cpus = socket.gethostname().split(".")[0], os.cpu_count() or 1
    mem = int(int(next(l for l in open("/proc/meminfo") if l.startswith("MemTotal")).split()[1]) / 1024 * 0.5)
    return "\n".join([
        "ClusterName=headprune-test", f"SlurmctldHost={host}(127.0.0.1)", "AuthType=auth/munge",
        f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "JobAcctGatherType=jobacct_gather/none",
        "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core", "SlurmUser=root", "SlurmdUser=root",
        f"StateSaveLocation={d}/state", f"SlurmdSpoolDir={d}/spool", f"SlurmctldPidFile={d}/slurmctld.pid",
        f"SlurmdPidFile={d}/slurmd.pid", f"SlurmctldLogFile={d}/slurmctld.log", f"SlurmdLogFile={d}/slurmd.log",
        "ReturnToService=2", "MpiDefault=none", "KillWait=2", "SchedulerType=sched/backfill",
        f"NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={mem} State=UNKNOWN",
        f"PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8", ""])


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
    "`smoke_local(name)`: (the session's local smoke run of `name`, a cache holding only its trained baselines: every pruning run is made anew)."
    def get(name):
        out, cache = smoke_run(name), tmp_path / "cache"
        shutil.copytree(smoke_cache / "models", cache / "models")
        return out, cache
    return get


@pytest.fixture(autouse=True)
def no_default_executor(monkeypatch):
    monkeypatch.delenv(EXECUTOR_ENV, raising=False); monkeypatch.delenv(WORKER_ENV, raising=False)


SLURM = ["--executor", "slurm", "--executor-opt", "poll=1", "--executor-opt", "time=10"]


@pytest.mark.parametrize("name, tables, chunk, only", [      # dsp2021: its synthetic_cls half (the local run's rows of that task)
    ("dsp2021", ("table3.csv", "table3_masks.csv", "unpruned.csv", "claims.csv", "budgets.csv", "figure6.csv"), 30, "synthetic_cls"),
    ("behnke2020", ("rounds.csv", "table3.csv", "table5.csv", "claims.csv"), 4, None)])
def test_smoke_grid_through_slurm_equals_local(slurm, smoke_local, headprune, tmp_path, name, tables, chunk, only):
    local, cache = smoke_local(name)                    # the session's local run; a cache with its baselines only
    r = _smoke(headprune, name, tmp_path / name, cache, *SLURM, "--executor-opt", f"chunk={chunk}",
               *(["--param", f"tasks={[only]!r}"] if only else []))
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
