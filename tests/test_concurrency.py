"""Issue 17 in CI: two runs into one results folder lose no row (the second is refused, naming the holder),
a smoke reproduction killed mid-run (SIGKILL) then re-run leaves the same results as an uninterrupted one, and
a finished folder re-run with --fresh reuses none of its rows (the old run is set aside, not lost).
Both use `voita_lambda --profile smoke` with a short joint phase: fast, and deterministic (seeded, CPU)."""
import os, shutil, signal, subprocess, sys, time
from pathlib import Path
import pytest
from headprune_nb.store import read_csv, LOCK

SMALL = ["--param", "train_limit=192", "--param", "epochs=2", "--param", "eval_limit=64"]

def start(exe, out, lambdas, cache, *extra):
    env = dict(os.environ, HEADPRUNE_CACHE=str(cache))
    return subprocess.Popen([exe, "reproduce", "voita_lambda", "--profile", "smoke", "--out", str(out),
                             "--param", f"lambdas={lambdas}", *SMALL, *extra], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)

def finish(p, timeout=1800):
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err

def results(folder):
    "Result rows without what depends on the clock."
    return [{k: v for k, v in r.items() if k != "seconds"} for r in read_csv(Path(folder) / "sweep.csv")]

@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    "A cache holding the trained smoke baseline only (each run below starts from a copy: no joint runs in it)."
    cache = tmp_path_factory.mktemp("baseline")
    subprocess.run([sys.executable, "-c", "from headprune_nb.recipes import trained; trained('smoke', 'synthetic_cls', "
                    "progress=False)"], env=dict(os.environ, HEADPRUNE_CACHE=str(cache)), check=True, timeout=1800)
    return cache

def fresh_cache(baseline, path):
    shutil.copytree(baseline / "models", path / "models")
    return path

@pytest.fixture(scope="module")
def concurrent(tmp_path_factory, baseline):
    "Two runs with different lambdas started together into one folder X."
    d, headprune = tmp_path_factory.mktemp("concurrent"), str(Path(sys.executable).parent / "headprune")
    cache = fresh_cache(baseline, d / "cache")
    a, b = start(headprune, d / "X", "[0.01]", cache), start(headprune, d / "X", "[1.0]", cache)
    return d, (a, finish(a), 0.01), (b, finish(b), 1.0)

def test_concurrent_runs_into_one_folder_lose_nothing(concurrent):
    d, *runs = concurrent
    assert sorted(r[1][0] for r in runs) == [0, 2], [r[1][2][-2000:] for r in runs]
    (win, _, lam), (_, (_, _, err), _) = sorted(runs, key=lambda r: r[1][0])
    assert f"in use by pid {win.pid}" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert [r["lam"] for r in results(d / "X")] == [lam], "the run that said it finished lost its row"
    assert (d / "X" / "complete.json").exists()

def test_killed_run_resumes_to_the_same_results(concurrent, headprune, baseline):
    d, *runs = concurrent
    lam = next(r[2] for r in runs if r[1][0] == 0)                  # the uninterrupted run's lambda, in X
    cache = fresh_cache(baseline, d / "cache-killed")
    p = start(headprune, d / "Y", f"[{lam}]", cache)
    deadline = time.time() + 1200
    while time.time() < deadline and p.poll() is None and not list((cache / "runs").rglob("checkpoint.pt")): time.sleep(0.1)
    assert p.poll() is None, "the run ended before it could be killed"
    os.killpg(p.pid, signal.SIGKILL); p.communicate()
    assert not (d / "Y" / "complete.json").exists()
    code, _, err = finish(start(headprune, d / "Y", f"[{lam}]", cache))
    assert code == 0, err[-2000:]
    assert results(d / "Y") == results(d / "X"), "killed and re-run, the results differ from an uninterrupted run's"
    assert (d / "Y" / "complete.json").exists()
    leftovers = [f.name for f in (d / "Y").iterdir() if f.name.startswith(".") and f.name != LOCK]
    assert not leftovers, leftovers

def test_fresh_rerun_reuses_no_row_of_a_finished_run(concurrent, headprune):
    "A finished run re-run resumes: its rows, made from its run records, are kept. --fresh sets it aside in <folder>.previous and recomputes every row."
    import json
    d, *runs = concurrent
    lam = next(r[2] for r in runs if r[1][0] == 0)
    Z = d / "Z"; shutil.copytree(d / "X", Z, ignore=shutil.ignore_patterns(LOCK))
    (rec,) = (Z / "records" / "synthetic_cls").glob(f"voita-lam{lam:g}-seed0.json")   # the run's record: what its row is made of
    body = json.loads(rec.read_text()); body["extra"]["mean_prob_open"] = 0.123456789    # not this run's value, but a
    rec.write_text(json.dumps(body))                                                      # possible one (issue 56)
    code, _, err = finish(start(headprune, Z, f"[{lam}]", d / "cache"))
    assert code == 0, err[-2000:]
    assert read_csv(Z / "sweep.csv")[0]["mean_prob_open"] == 0.123456789, \
        "a plain re-run of a finished folder resumes from its records"
    code, _, err = finish(start(headprune, Z, f"[{lam}]", d / "cache", "--fresh"))
    assert code == 0, err[-2000:]
    assert results(Z) == results(d / "X"), "--fresh reused a row of the finished run"
    assert read_csv(d / "Z.previous" / "sweep.csv")[0]["mean_prob_open"] == 0.123456789, "the finished run not kept aside"
    assert (Z / "complete.json").exists() and "set aside in" in err
