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

def test_fairseq_is_optional_and_keeps_torchaudio_out():
    "fairseq is never a core dependency; the extra must not pull fairseq-fixed's torchaudio (it breaks transformers)."
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = lambda reqs: {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in reqs}
    assert not names(project["dependencies"]) & {"fairseq", "fairseq-fixed", "torchaudio", "hydra-core"}
    extra = names(project["optional-dependencies"]["fairseq"])
    assert "hydra-core" in extra and "cython" in extra and not extra & {"fairseq-fixed", "torchaudio", "torch"}
    code = "import sys, headprune_nb.fairseq_adapter; print('fairseq' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr

def test_torch_install_picks_the_cpu_index_without_a_gpu(tmp_path, monkeypatch):
    "make install's choice (tools/install_torch.py), without the network: the CPU index when no GPU answers, else plain."
    sys.path.insert(0, str(ROOT / "tools"))
    import install_torch as it
    why, steps = it.plan("torch==2.13.0", gpu=False, cpu_index=True)
    assert "CPU build" in why and steps[0][-3:] == ["--extra-index-url", it.PYPI, "torch==2.13.0"]
    assert it.CPU_INDEX in steps[0] and steps[1] == ["install", "-q", "torch==2.13.0"]       # the plain index if it fails
    why, steps = it.plan("torch==2.13.0", gpu=False, cpu_index=False)
    assert "cannot be reached" in why and steps == [["install", "-q", "torch==2.13.0"]]
    why, steps = it.plan("torch", gpu=True, cpu_index=True)
    assert "GPU" in why and steps == [["install", "-q", "torch"]]
    monkeypatch.setenv("PATH", str(tmp_path))                                 # no nvidia-smi at all
    assert it.has_gpu() is False
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H100 (UUID: GPU-1)'\n"); smi.chmod(0o755)
    assert it.has_gpu() is True
    smi.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed'; exit 9\n")      # a driver that does not answer: no GPU
    assert it.has_gpu() is False
    assert it.reachable("http://127.0.0.1:9/", timeout=2) is False
