"""Write README.md from nbs/index.ipynb (nbdev_readme needs Quarto, which is not installable offline).

Markdown cells are copied as they are; code cells not marked `#| hide` become ```python blocks.
A markdown line `<!-- table: PATH -->` is followed by PATH (a CSV of results, relative to the
repository root, read as staged in git, so the README shows what a commit will hold) rendered as a
Markdown table, so the README shows numbers straight from a run;
`<!-- table: PATH cols=a,b,c -->` shows only those columns (those the file has). Numbers with a fraction show 2 decimals.
A run's claims (a `verdict` column under reproduce/results/) show verdicts as the report does (`verdicts.verdict_kind`:
two-way and one-seed verdicts marked old style).
A line `<!-- verdicts: PATH -->` (a run's claims.csv) is followed by one line counting its verdicts, as the report
shows them.
The same goes for reproduce/CLAIMS.md, written from reproduce/CLAIMS.src.md (the full claim and peer tables, the
per-experiment findings: what the README links to instead of holding).
`--check` fails if README.md or reproduce/CLAIMS.md differs from what its source gives.
"""
import csv, io, json, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def cell(v: str) -> str:
    "A number with a fraction to 2 decimals; everything else as it is, a `|` escaped (it would end the cell)."
    try: return v if re.fullmatch(r"-?\d+", v) else f"{float(v):.2f}"
    except ValueError: return v.replace("|", "\\|")

def committed_text(rel: str) -> str | None:
    "A results file as git's index has it (what a commit, and so CI, will see), or None if it is not there."
    if not (ROOT / ".git").exists(): return (ROOT / rel).read_text() if (ROOT / rel).exists() else None
    out = subprocess.run(["git", "-C", str(ROOT), "show", f":{rel}"], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None

def csv_table(rel: str, cols: str | None = None) -> str:
    text = committed_text(rel)
    if text is None: return f"*(no results yet: {rel})*"
    rows = list(csv.reader(io.StringIO(text)))
    if "verdict" in rows[0] and rel.startswith("reproduce/results/"):   # a run's claims: verdicts as the report shows them
        from headprune_nb.verdicts import verdict_kind
        i = rows[0].index("verdict")
        rows = [rows[0]] + [r[:i] + [verdict_kind(dict(zip(rows[0], r)))] + r[i + 1:] for r in rows[1:]]
    if cols:                                                            # the columns asked for that the file has
        idx = [rows[0].index(c) for c in cols.split(",") if c in rows[0]]
        rows = [[r[i] for i in idx] for r in rows]
    return "\n".join(["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])] +
                     ["| " + " | ".join(map(cell, r)) + " |" for r in rows[1:]])

def verdict_line(rel: str) -> str:
    "How many claims of a run's claims.csv have each verdict (as `verdicts.verdict_kind` shows it), in one line."
    from collections import Counter
    from headprune_nb.verdicts import verdict_kind
    text = committed_text(rel)
    if text is None: return f"*(no results yet: {rel})*"
    n = Counter(verdict_kind(r) for r in csv.DictReader(io.StringIO(text)))
    order = sorted(n, key=lambda v: (("supported", "contradicted", "inconclusive") + (v,)).index(v))
    exp, profile = Path(rel).parent.name, Path(rel).parent.parent.name
    return f"Verdicts of `{exp}` ({profile}): " + ", ".join(f"{n[v]} {v}" for v in order) + "."

def expand_tables(md: str) -> str:
    table = lambda m: m.group(0) + "\n\n" + csv_table(m.group(1), m.group(2))
    md = re.sub(r"^<!-- table: (\S+)(?: cols=(\S+))? -->$", table, md, flags=re.M)
    count = lambda m: m.group(0) + "\n\n" + verdict_line(m.group(1))
    return re.sub(r"^<!-- verdicts: (\S+) -->$", count, md, flags=re.M)

def render(nb_path=ROOT / "nbs" / "index.ipynb") -> str:
    cells = json.loads(Path(nb_path).read_text())["cells"]
    parts = ["<!-- generated from nbs/index.ipynb by tools/readme.py: edit the notebook, not this file -->"]
    for c in cells:
        src = "".join(c["source"]).strip("\n")
        if c["cell_type"] == "markdown": parts.append(expand_tables(src))
        elif c["cell_type"] == "code" and src and not src.lstrip().startswith("#| hide"):
            lines = [l for l in src.splitlines() if not l.startswith("#|")]
            parts.append("```python\n" + "\n".join(lines).strip("\n") + "\n```")
    return "\n\n".join(parts) + "\n"

def render_claims(src=ROOT / "reproduce" / "CLAIMS.src.md") -> str:
    "reproduce/CLAIMS.md: its source with every table and verdict line filled in."
    head = "<!-- generated from reproduce/CLAIMS.src.md by tools/readme.py: edit that file, not this one -->"
    return head + "\n\n" + expand_tables(Path(src).read_text().strip("\n")) + "\n"

PAGES = {"README.md": ("nbs/index.ipynb", render), "reproduce/CLAIMS.md": ("reproduce/CLAIMS.src.md", render_claims)}

if __name__ == "__main__":
    for rel, (src, make) in PAGES.items():
        text, page = make(), ROOT / rel
        if "--check" not in sys.argv: page.write_text(text)
        elif not page.exists() or page.read_text() != text:
            sys.exit(f"{rel} is out of date with {src}: run `python tools/readme.py`")
