"The documentation site builds offline (Sphinx + MyST-NB, MathJax served locally) and links methods to reproductions."
import re, shutil, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import docs

METHOD_NOTEBOOKS = ["10_michel", "11_hard_concrete", "12_voita", "13_dsp", "14_almost_sure", "15_lag", "16_lottery", "20_api"]

@pytest.mark.parametrize("name", METHOD_NOTEBOOKS)
def test_every_method_notebook_links_a_reproduction(name):
    import nbformat
    text = "\n".join(c.source for c in nbformat.read(ROOT / "nbs" / f"{name}.ipynb", 4).cells if c.cell_type == "markdown")
    links = re.findall(r"\]\(\.\./reproduce/(\w+\.ipynb)\)", text)
    assert links, f"{name} links no reproduction"
    for l in links: assert (ROOT / "reproduce" / l).exists(), l

@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("myst_nb", reason="the docs extra is not installed (pip install -e '.[docs]')")
    return docs.build(tmp_path_factory.mktemp("site"), docs.mathjax_dir(None))

def test_site_has_every_page_and_local_math(site):
    assert (site / "index.html").exists() and (site / "CHANGELOG.html").exists()
    for nb in (ROOT / "nbs").glob("*.ipynb"):
        if nb.stem != "index": assert (site / "nbs" / f"{nb.stem}.html").exists(), nb.stem
    for nb in (ROOT / "reproduce").glob("*.ipynb"): assert (site / "reproduce" / f"{nb.stem}.html").exists(), nb.stem
    assert (site / "reproduce" / "report" / "report.html").exists()
    page = (site / "nbs" / "13_dsp.html").read_text()
    scripts = re.findall(r'<script[^>]*src="([^"]+)"', page)
    assert any(s.split("?")[0].endswith("_static/mathjax/tex-mml-chtml.js") for s in scripts)
    assert not any(s.startswith(("http:", "https:", "//")) for s in scripts), "nothing is fetched from the network"
    assert (site / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()
    assert 'href="../reproduce/dsp2021.html"' in page                      # the method page links its reproduction
    assert "#| export" not in page                                         # nbdev directives hidden

@pytest.mark.skipif(shutil.which("chromium") is None, reason="no headless chromium here")
def test_math_is_typeset_in_a_real_browser(site):
    dom = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000",
                          "--dump-dom", (site / "nbs" / "13_dsp.html").as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert dom.count("<mjx-container") > 20 and "<mjx-merror" not in dom     # typeset, no TeX errors

def cells(line: str) -> int:
    "Cells of a Markdown table row: `|` separators not escaped."
    return len(re.split(r"(?<!\\)\|", line.strip())) - 2

@pytest.mark.parametrize("page", ["README.md", "reproduce/report/report.md"])
def test_every_table_row_has_its_header_cells(page):
    "A `|` inside a value (a statistic like max |a - b|) is escaped, or the row would spill into columns it does not have."
    import readme
    assert readme.cell("max |a - b|") == r"max \|a - b\|" and readme.cell("0.5") == "0.50"
    lines, bad = (ROOT / page).read_text().splitlines(), []
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and line.startswith("|") and re.fullmatch(r"\|(---\|)+", lines[i + 1]):
            n, j = cells(line), i + 2
            while j < len(lines) and lines[j].startswith("|"):
                if cells(lines[j]) != n: bad.append(f"{page}:{j + 1}")
                j += 1
    assert not bad, f"rows with more or fewer cells than their header: {bad[:5]}"
