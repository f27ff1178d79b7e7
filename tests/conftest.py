import os, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

if os.environ.get("PYTEST_XDIST_WORKER"):
    # Two test processes on CI's two cores: one thread each (and in the notebooks and commands they start), so that
    # the processes do not oversubscribe the cores (`make pytest` runs `pytest -n 2`)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"): os.environ[var] = "1"
    import torch; torch.set_num_threads(1)

@pytest.fixture
def headprune():
    "Path of the installed `headprune` command."
    exe = BIN / "headprune"
    assert exe.exists(), "the headprune console script is not installed (pip install -e .)"
    return str(exe)


@pytest.fixture(scope="session")
def smoke_cache(tmp_path_factory):
    "One cache of trained smoke baselines shared by every smoke run of the session (tests/test_reproduce_smoke.py, tests/test_slurm.py)."
    return tmp_path_factory.mktemp("cache")

@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory, smoke_cache):
    "`smoke_run(name)`: the folder of `name`'s default smoke run, made on first use in the shared cache."
    from headprune_nb.reproduce import run_experiment
    root, made = tmp_path_factory.mktemp("runs"), {}
    def run(name):
        if name == "llm_heads": pytest.importorskip("torch_pruning", reason="llm_heads runs the torch-pruning peer (dev or llm extra)")
        if name != "baselines": run("baselines")                # the cache's seed-0 baselines, whatever runs first
        if name not in made:
            try:
                with pytest.MonkeyPatch.context() as mp:
                    mp.setenv("HEADPRUNE_CACHE", str(smoke_cache))
                    made[name] = run_experiment(name, "smoke", out_dir=root / name, progress=False)
            except Exception as e: made[name] = e                # failed once: every test that reads it fails the same way
        if isinstance(made[name], Exception): raise made[name]
        return made[name]
    return run
