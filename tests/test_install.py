"The installed package: metadata, console script, and the rules its requirements follow."
import importlib.metadata as md, os, re, subprocess, sys, tomllib
from pathlib import Path
import headprune_nb

ROOT = Path(__file__).resolve().parent.parent

def test_installed_version_matches_the_package():
    assert md.version("headprune-nb") == headprune_nb.__version__

def test_console_script_is_registered():
    eps = [e for e in md.entry_points(group="console_scripts") if e.name == "headprune"]
    assert eps and eps[0].value == "headprune_nb.cli:main"

def test_torch_is_a_range_not_a_pin():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    torch = [d for d in deps if re.match(r"torch\b", d)]
    assert torch and "==" not in torch[0], "users with GPUs install torch their own way: require a range"

def test_importing_the_model_side_layers_stays_light():
    "heads/gates/prune/bench must not pull in papermill or matplotlib (nor download anything)."
    code = ("import sys, headprune_nb.heads, headprune_nb.gates, headprune_nb.prune, headprune_nb.bench;"
            "print(sorted(m for m in ('papermill', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
