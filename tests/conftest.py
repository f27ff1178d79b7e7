import os, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

@pytest.fixture
def headprune():
    "Path of the installed `headprune` command."
    exe = BIN / "headprune"
    assert exe.exists(), "the headprune console script is not installed (pip install -e .)"
    return str(exe)
