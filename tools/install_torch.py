"""Install torch into this Python's environment, the build that fits the machine (`make install` calls it).

No GPU here (no working `nvidia-smi`): the CPU build, from PyTorch's CPU index, since the plain package index serves
the CUDA build with several GB of NVIDIA packages; if that index cannot be reached (checked first, in seconds), the
plain index (a machine whose pip is configured with a local CPU wheel still gets the CPU build there). A GPU here:
the plain index. One line says what was chosen and why. `--plan` prints the pip commands it would run, in order, and runs nothing.

    python tools/install_torch.py "torch==2.13.0"          # what make install runs
    python tools/install_torch.py "torch==2.13.0" --plan   # the commands only
"""
import shutil, subprocess, sys

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PYPI = "https://pypi.org/simple"


def has_gpu() -> bool:
    "Whether an NVIDIA GPU answers `nvidia-smi -L` here."
    smi = shutil.which("nvidia-smi")
    if smi is None: return False
    try: out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError): return False
    return out.returncode == 0 and "GPU" in out.stdout


def reachable(url: str, timeout: float = 5.0) -> bool:
    "Whether `url` answers at all within `timeout` seconds."
    import urllib.request
    try: urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout).close(); return True
    except Exception: return False


def plan(spec: str, gpu: bool, cpu_index: bool) -> tuple[str, list[list[str]]]:
    "(why, the pip arguments to try in order until one succeeds) for a machine with or without a GPU and the CPU index."
    plain = ["install", "-q", spec]
    if gpu: return "a GPU answers nvidia-smi: the plain package index", [plain]
    if not cpu_index: return (f"no GPU here, and PyTorch's CPU index ({CPU_INDEX}) cannot be reached: the plain package index "
                              "(check that it gives the CPU build)"), [plain]
    cpu = ["install", "-q", "--index-url", CPU_INDEX, "--extra-index-url", PYPI, spec]
    return "no GPU here: the CPU build from PyTorch's CPU index", [cpu, plain]


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    dry = "--plan" in args
    args = [a for a in args if a != "--plan"]
    if len(args) != 1: print("usage: install_torch.py SPEC [--plan]   (SPEC: torch==2.13.0, say)", file=sys.stderr); return 2
    gpu = has_gpu()
    why, steps = plan(args[0], gpu, not gpu and reachable(CPU_INDEX + "/"))
    print(f"torch: {args[0]}: {why}", flush=True)
    for i, pip in enumerate(steps):
        if dry: print(" ".join(["pip", *pip])); continue
        if i: print(f"torch: {args[0]}: PyTorch's CPU index failed; trying the plain package index", flush=True)
        if subprocess.run([sys.executable, "-m", "pip", *pip]).returncode == 0: return 0
    if dry: return 0
    print(f"torch: {args[0]} could not be installed from any index; install it your own way into this environment", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
