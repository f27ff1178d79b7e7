"""tools/settle_notebooks.py: an executed notebook's progress-bar redraws settled in place, once
(reproduce.settle_streams)."""
import subprocess, sys
from pathlib import Path
import nbformat

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "settle_notebooks.py"


def run(*args):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True, text=True)


def redraws(n: int) -> list:
    "A bar drawn n times with a nested bar cleared under it, as a kernel sends it: one output per write."
    out = lambda text: nbformat.v4.new_output("stream", name="stderr", text=text)
    writes = [f"\rtrain: {i}/{n}" for i in range(n + 1)] + ["\n\r" + "inner 3/3", "\x1b[A", "\n\r" + " " * 9, "\x1b[A"]
    return [out(w) for w in writes] + [nbformat.v4.new_output("stream", name="stdout", text="done\n")]


def test_settles_once_and_keeps_what_the_terminal_showed(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("train()", outputs=redraws(500))])
    path = tmp_path / "run" / "exp.ipynb"
    path.parent.mkdir()
    path.write_text(nbformat.writes(nb) + "\n")
    r = run(tmp_path)
    assert r.returncode == 0, r.stderr
    outs = nbformat.read(path, as_version=4).cells[0].outputs
    assert [(o.name, o.text) for o in outs] == [("stderr", "train: 500/500"), ("stdout", "done\n")]
    settled = path.read_bytes()
    assert run(path).returncode == 0 and path.read_bytes() == settled        # settled twice: unchanged


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    for args in ((), (tmp_path / "none",)):
        r = run(*args)
        assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    (tmp_path / "empty.ipynb").write_text("")                     # not a notebook: named, the others settled
    (tmp_path / ".exp-x1.ipynb").write_text("")                   # a killed run's temporary notebook: not read
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("train()", outputs=redraws(3))])
    (tmp_path / "good.ipynb").write_text(nbformat.writes(nb) + "\n")
    r = run(tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines() == [f"tools/settle_notebooks.py: {tmp_path / 'empty.ipynb'}: not a notebook "
                                             "(NotJSONError), left as it is"], r.stderr
    assert nbformat.read(tmp_path / "good.ipynb", as_version=4).cells[0].outputs[0].text == "train: 3/3"


def test_every_committed_run_notebook_is_settled():
    "No committed executed notebook keeps every redraw of its bars (runs settle them; older ones by the tool)."
    paths = sorted((ROOT / "reproduce" / "results").rglob("*.ipynb"))
    assert paths
    raw = [p for p in paths
           if any("\r" in o.get("text", "") or "\x1b[A" in o.get("text", "")
                  for c in nbformat.read(p, as_version=4).cells for o in c.get("outputs", []))]
    assert not raw, f"not settled (python tools/settle_notebooks.py reproduce/results): {raw}"
