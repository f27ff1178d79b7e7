"""Write README.md from nbs/index.ipynb (nbdev_readme needs Quarto, which is not installable offline).

Markdown cells are copied as they are; code cells not marked `#| hide` become ```python blocks.
`--check` fails if README.md differs from what the notebook gives.
"""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def render(nb_path=ROOT / "nbs" / "index.ipynb") -> str:
    cells = json.loads(Path(nb_path).read_text())["cells"]
    parts = ["<!-- generated from nbs/index.ipynb by tools/readme.py: edit the notebook, not this file -->"]
    for c in cells:
        src = "".join(c["source"]).strip("\n")
        if c["cell_type"] == "markdown": parts.append(src)
        elif c["cell_type"] == "code" and src and not src.lstrip().startswith("#| hide"):
            lines = [l for l in src.splitlines() if not l.startswith("#|")]
            parts.append("```python\n" + "\n".join(lines).strip("\n") + "\n```")
    return "\n\n".join(parts) + "\n"

if __name__ == "__main__":
    text, readme = render(), ROOT / "README.md"
    if "--check" in sys.argv:
        if not readme.exists() or readme.read_text() != text:
            sys.exit("README.md is out of date with nbs/index.ipynb: run `python tools/readme.py`")
    else:
        readme.write_text(text)
