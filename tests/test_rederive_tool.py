"tools/rederive.py: bad input is one line and exit 2 (the rebuild itself is tests/test_rebuild.py's)."
import subprocess, sys
from pathlib import Path

TOOL = Path(__file__).resolve().parent.parent / "tools" / "rederive.py"


def run(*args):
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True)


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    name = "give an experiment"
    cases = [((), name), (("nope",), name), (("dsp2021", "a", "b"), name), (("llm_heads",), name),
             (("voita_lambda", str(tmp_path)), "exists: give a new folder")]
    for args, says in cases:                                                # never over an existing folder
        r = run(*args)
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and says in r.stderr, r.stderr
