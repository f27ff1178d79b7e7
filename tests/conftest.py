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
