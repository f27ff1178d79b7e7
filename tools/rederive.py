"""Re-derive a committed cpu experiment from its records alone (nothing trained, loaded or read from the data), in place
or into a copy: after runs were added to its records (tools/add_runs.sh) or its defaults or rules changed. A run
committed in parts is rebuilt part by part (`reproduce.COMMITTED_PARTS`), as tests/test_rebuild.py checks it.

    python tools/rederive.py dsp2021                  # in place: reproduce/results/cpu/dsp2021
    python tools/rederive.py dsp2021 /tmp/dsp2021     # into a copy of the committed folder
"""
import os, shutil, sys, tempfile
from pathlib import Path
from headprune_nb.reproduce import EXPERIMENTS, COMMITTED_PARTS, committed_dir, run_experiment


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or argv[0] not in EXPERIMENTS:
        print(f"tools/rederive.py: give an experiment ({', '.join(sorted(EXPERIMENTS))}) and optionally a folder, e.g. "
              "python tools/rederive.py dsp2021", file=sys.stderr)
        return 2
    name, committed = argv[0], committed_dir(argv[0], "cpu")
    if not (committed / "complete.json").exists():
        print(f"tools/rederive.py: {committed} holds no finished run to re-derive", file=sys.stderr)
        return 2
    out = Path(argv[1]) if len(argv) > 1 else committed
    if out.resolve() != committed.resolve():
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(committed, out)
    cache = Path(tempfile.mkdtemp()) / "cache"
    os.environ["HEADPRUNE_CACHE"] = str(cache)                  # a model made or loaded would land here
    os.environ["HEADPRUNE_DATA_DIR"] = str(cache.parent / "no-data")
    for params in COMMITTED_PARTS.get(name, [None]):
        run_experiment(name, "cpu", params, out_dir=out, progress=False)
    if cache.exists():
        print(f"tools/rederive.py: {name} trained or loaded something: its records lack a run", file=sys.stderr)
        return 1
    print(f"re-derived {name} from its records into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
