"""Settle executed notebooks in place: each cell's progress-bar redraws kept as a terminal showed them, one output per
run of a stream (`reproduce.settle_streams`, which every run applies since it was added; this is for the notebooks
runs wrote before). Settling a settled notebook changes nothing.

    python tools/settle_notebooks.py reproduce/results        # every executed notebook under a folder
    python tools/settle_notebooks.py run/michel2019_speed.ipynb
"""
import sys
from pathlib import Path
import nbformat
from headprune_nb.reproduce import settle_streams
from headprune_nb.store import write_atomic


def settle_file(path: Path) -> tuple[int, int]:
    "(bytes before, bytes after) of `path`, settled in place; written only when it changes."
    before = path.read_text()
    nb = nbformat.reads(before, as_version=4)
    settle_streams(nb)
    after = nbformat.writes(nb) + "\n"
    if after != before: write_atomic(path, after)
    return len(before.encode()), len(after.encode())


def main(argv: list[str]) -> int:
    if not argv or not all(Path(a).exists() for a in argv):
        print("tools/settle_notebooks.py: give existing notebooks or folders, e.g. reproduce/results", file=sys.stderr)
        return 2
    # a folder's notebooks, not a killed run's hidden temporary ones (.<name>-*.ipynb)
    found = lambda a: sorted(q for q in a.rglob("*.ipynb") if not q.name.startswith("."))
    paths = [q for a in map(Path, argv) for q in ([a] if a.is_file() else found(a))]
    total, bad = [0, 0], []
    for p in paths:
        try: b, a = settle_file(p)
        except Exception as e:                       # not a notebook (empty, not JSON): named, the others settled
            bad.append(f"{p}: not a notebook ({type(e).__name__}), left as it is")
            continue
        total = [total[0] + b, total[1] + a]
        if a != b: print(f"{p}: {b:,} -> {a:,} bytes")
    print(f"{len(paths) - len(bad)} notebooks: {total[0]:,} -> {total[1]:,} bytes")
    for line in bad: print(f"tools/settle_notebooks.py: {line}", file=sys.stderr)
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
