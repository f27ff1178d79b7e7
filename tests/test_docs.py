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

# The site the tests build executes one method notebook (13_dsp: about 20 s) rather than all of them (`make docs`:
# about 4 min of a busy 2-core machine): CI runs every notebook already (nbdev-test); this checks the mechanism.
EXECUTED_HERE = ("13_dsp",)

@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("myst_nb", reason="the docs extra is not installed (pip install -e '.[docs]')")
    return docs.build(tmp_path_factory.mktemp("build") / "site", docs.mathjax_dir(None), execute=EXECUTED_HERE)

def test_the_method_notebooks_run_when_the_site_builds(tmp_path):
    "`make docs` executes the method notebooks and the API: their staged copies ask MyST-NB to run them, no others."
    import nbformat
    stems = sorted(p.stem for p in (ROOT / "nbs").glob("*.ipynb"))
    assert [s for s in stems if docs.executed(s)] == METHOD_NOTEBOOKS
    for stem, run in (("13_dsp", True), ("00_heads", False)):
        docs.strip_directives(ROOT / "nbs" / f"{stem}.ipynb", tmp_path / f"{stem}.ipynb", execute=docs.executed(stem))
        meta = nbformat.read(tmp_path / f"{stem}.ipynb", 4).metadata.get("mystnb", {})
        assert meta.get("execution_mode") == ("force" if run else None), (stem, meta)

def test_the_build_writes_only_its_site(site):
    "Nothing beside --out (MyST-NB's jupyter_execute/ went to the repository root when the site was built there)."
    assert sorted(p.name for p in site.parent.iterdir()) == ["site"]

def test_the_sidebar_reads_in_a_users_order(site):
    "Prune your own model, the methods, the reproductions (the full claim table among them), then the internals."
    index = (site / "index.html").read_text()
    captions = re.findall(r'caption-text">([^<]*)', index)
    assert [c.split(":")[0] for c in captions] == ["Prune your own model", "Methods", "Reproductions", "Internals",
                                                   "Project"], captions
    nav = index[index.index('caption-text">Prune'):]
    order = [nav.index(f'href="{page}.html"') for page in ("nbs/20_api", "nbs/10_michel", "reproduce/CLAIMS",
                                                           "nbs/00_heads")]
    assert order == sorted(order), order
    assert 'href="reproduce/CLAIMS.html"' in index[index.index("<article"):]     # README's link works
    assert (site / "reproduce" / "CLAIMS.html").exists()

def test_site_has_every_page_and_local_math(site):
    assert (site / "index.html").exists() and (site / "CHANGELOG.html").exists()
    for nb in (ROOT / "nbs").glob("*.ipynb"):
        if nb.stem != "index": assert (site / "nbs" / f"{nb.stem}.html").exists(), nb.stem
    for nb in (ROOT / "reproduce").glob("*.ipynb"): assert (site / "reproduce" / f"{nb.stem}.html").exists(), nb.stem
    assert (site / "reproduce" / "report" / "report.html").exists() and (site / "reproduce" / "CLAIMS.html").exists()
    page = (site / "nbs" / "13_dsp.html").read_text()
    scripts = re.findall(r'<script[^>]*src="([^"]+)"', page)
    assert any(s.split("?")[0].endswith("_static/mathjax/tex-mml-chtml.js") for s in scripts)
    assert not any(s.startswith(("http:", "https:", "//")) for s in scripts), "nothing is fetched from the network"
    assert (site / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()
    assert 'href="../reproduce/dsp2021.html"' in page                      # the method page links its reproduction
    assert "#| export" not in page                                         # nbdev directives hidden

@pytest.fixture(scope="module")
def browser():
    "Headless Chromium (Debian's `chromium`, which .ci/run installs) driven by Playwright; skipped, in one line, without them."
    exe = shutil.which("chromium")
    if exe is None: pytest.skip("no chromium here: apt-get install chromium (CI installs it)")
    sync = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the dev extra has it)")
    with sync.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                                          "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield b
        b.close()

def open_page(browser, path: Path) -> dict:
    "What a reader sees of one page: console errors, MathJax's typeset math and its errors, images that did not load."
    page, errors = browser.new_page(), []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_function("() => !window.MathJax || (MathJax.startup && MathJax.startup.promise)", timeout=30000)
    page.evaluate("() => window.MathJax ? MathJax.startup.promise : null")
    seen = page.evaluate("""() => ({math: document.querySelectorAll('mjx-container').length,
        merror: document.querySelectorAll('mjx-merror').length,
        broken: [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.getAttribute('src'))})""")
    return dict(seen, errors=errors, page=page)

def test_the_browser_check_sees_what_breaks(browser, tmp_path):
    "The page check can fail: a console error and an image that does not load are both seen."
    (tmp_path / "p.html").write_text('<html><body><img src="missing.png"><script>console.error("boom")</script></body></html>')
    got = open_page(browser, tmp_path / "p.html")
    assert "boom" in got["errors"] and any("ERR_FILE_NOT_FOUND" in e for e in got["errors"])   # the missing file too
    assert got["broken"] == ["missing.png"] and got["math"] == 0
    got["page"].close()

def test_every_page_reads_in_a_real_browser(site, browser, tmp_path_factory):
    "Every method, tutorial and reproduction page opens without a console error, its math typeset, its figures loaded."
    pages = sorted((site / "nbs").glob("*.html")) + sorted((site / "reproduce").glob("*.html")) + [site / "index.html"]
    assert len(pages) > 25
    bad = {}
    for path in pages:
        got = open_page(browser, path)
        rel = str(path.relative_to(site))
        if got["errors"] or got["merror"] or got["broken"]: bad[rel] = {k: got[k] for k in ("errors", "merror", "broken")}
        if path.stem in METHOD_NOTEBOOKS[:-1] and got["math"] < 10: bad[rel] = f"only {got['math']} formulas typeset"
        if path.stem == "13_dsp":
            got["page"].screenshot(path=str(tmp_path_factory.mktemp("screens") / "13_dsp.png"), full_page=True)
            bad.update({rel: missing} if (missing := shown_outputs(got["page"])) else {})
        got["page"].close()
    assert not bad, bad

def shown_outputs(page) -> str:
    "What an executed method page lacks: an output cell with text, a figure inside an output that loaded ('' if none)."
    seen = page.evaluate("""() => ({
        text: [...document.querySelectorAll('.cell_output')].filter(o => o.innerText.trim().length > 0).length,
        figures: [...document.querySelectorAll('.cell_output img')].filter(i => i.complete && i.naturalWidth > 100)
                 .length})""")
    if seen["text"] and seen["figures"]: return ""
    return f"executed, yet shows {seen['text']} output(s) with text and {seen['figures']} figure(s)"

def cells(line: str) -> int:
    "Cells of a Markdown table row: `|` separators not escaped."
    return len(re.split(r"(?<!\\)\|", line.strip())) - 2

@pytest.mark.parametrize("page", ["README.md", "reproduce/CLAIMS.md", "reproduce/report/report.md"])
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
