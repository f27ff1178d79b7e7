"""Re-derive a committed cpu experiment from its records alone (nothing trained, loaded or read from the data), in place
or into a new folder: after runs were added to its records (tools/add_runs.sh) or its defaults or rules changed. A run
committed in parts is rebuilt part by part (`reproduce.rebuild_from_records`, as tests/test_rebuild.py checks it). The
rebuild is made in a copy; the committed folder is replaced only when it succeeded.

    python tools/rederive.py dsp2021                  # in place: reproduce/results/cpu/dsp2021
    python tools/rederive.py dsp2021 /tmp/dsp2021     # into a new folder (not an existing one)
"""
import shutil, sys, tempfile
from pathlib import Path
from headprune_nb.reproduce import EXPERIMENTS, committed_dir, rebuild_from_records

NOT_FROM_RECORDS = ("llm_heads",)          # its rebuild loads the model: not a re-derivation from records


def fail(msg: str, code: int = 2) -> int:
    print(f"tools/rederive.py: {msg}", file=sys.stderr)
    return code


def main(argv: list[str]) -> int:
    names = sorted(set(EXPERIMENTS) - set(NOT_FROM_RECORDS))
    if len(argv) not in (1, 2) or argv[0] not in names:
        return fail(f"give an experiment ({', '.join(names)}) and optionally a new folder, e.g. "
                    "python tools/rederive.py dsp2021")
    name, committed = argv[0], committed_dir(argv[0], "cpu")
    if not (committed / "complete.json").exists(): return fail(f"{committed} holds no finished run to re-derive")
    out = Path(argv[1]).resolve() if len(argv) > 1 else committed.resolve()
    if out != committed.resolve() and out.exists(): return fail(f"{out} exists: give a new folder")
    work = Path(tempfile.mkdtemp(prefix=f"rederive-{name}-"))
    try:
        shutil.copytree(committed, work / name)
        if not rebuild_from_records(name, work / name, work):
            return fail(f"{name} trained or loaded something: its records lack a run", 1)
        staged, old = out.parent / f".{out.name}.rederived", out.parent / f".{out.name}.old"
        shutil.rmtree(staged, ignore_errors=True)
        shutil.move(str(work / name), staged)                       # beside OUT: the swap is two renames
        if out.exists(): out.rename(old)
        staged.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    except Exception as e:                                          # the committed folder is as it was
        return fail(f"{name} could not be re-derived ({type(e).__name__}: {e}); {committed} is unchanged", 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"re-derived {name} from its records into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
