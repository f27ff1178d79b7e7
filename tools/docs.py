"""Build the documentation site offline: python tools/docs.py [--out _site] [--mathjax DIR].

nbdev's own pipeline (`nbdev-docs`) needs Quarto, which cannot be installed here without network
access, so this builds the site with Sphinx + MyST-NB (pip-installable; the `docs` extra) and
MathJax 3 served from the site itself (copied from the npm registry's `mathjax` package, or from
--mathjax), so math renders with no network. The nbdev configuration stays for users who have
Quarto.

The site mirrors the repository: README.md as the front page, nbs/*.ipynb (the tutorial, one page
per notebook), reproduce/<name>.ipynb (the committed cpu run of each reproduction, executed, with
its outputs; the bare notebook where no cpu run is committed), the full claim and peer tables
(reproduce/CLAIMS.md), the report (`headprune report` over the committed results) and the changelog.
Relative links between them work as on GitHub. The sidebar reads in a user's order: prune your own
model, the methods, the reproductions, then the internals.

The method notebooks and the API (EXECUTED) are executed while the site builds (MyST-NB, one kernel each, a time
limit per cell), so their "Try it" numbers and figures show; the others are rendered as committed
(clean). Everything Sphinx and MyST-NB write (jupyter_execute/, the doctrees) stays in a temporary
folder: only --out is written.
"""
import argparse, fnmatch, shutil, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CONF = '''
project = "headprune-nb"
author = "headprune-nb developers"
release = {version!r}
extensions = ["myst_nb", "sphinx.ext.mathjax"]
myst_enable_extensions = ["dollarmath", "amsmath"]
nb_execution_mode = "off"                    # pages show the notebooks as committed (cpu runs with outputs) ...
                                             # ... except the method notebooks: their metadata says force (stage)
exclude_patterns = ["_build", "reproduce/results/**/*.ipynb", "**/.ipynb_checkpoints"]
html_theme = "furo"
html_title = "headprune-nb"
html_static_path = ["_static"]
mathjax_path = "mathjax/tex-mml-chtml.js"   # served by the site itself: no CDN, no network
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type", "misc.highlighting_failure"]

def setup(app):
    app.set_html_assets_policy("always")     # MathJax on every page: the sidebar's titles have math too
'''

def mathjax_dir(given: str | None) -> Path:
    "MathJax 3's es5 folder: --mathjax, or installed from the npm registry into build/npm (cached)."
    if given: return Path(given)
    cache = ROOT / "build" / "npm"
    es5 = cache / "node_modules" / "mathjax" / "es5"
    if not (es5 / "tex-mml-chtml.js").exists():
        if shutil.which("npm") is None:
            sys.exit("tools/docs.py: npm not found; install Node.js/npm, or pass --mathjax pointing at MathJax 3's "
                     "es5/ folder")
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--no-save", "--silent", "--prefix", str(cache), "mathjax@3"], check=True)
    return es5

# The notebooks executed while the site builds (nbs/ stems, glob patterns): the methods, whose "Try it" sections
# print numbers and draw figures, and the API a user meets first. Each runs in well under a minute (nbdev-test runs
# them too); a cell that takes longer than EXECUTE_TIMEOUT_S or raises fails the build.
EXECUTED = ("1[0-6]_*", "20_api")
EXECUTE_TIMEOUT_S = 300

# The sidebar, in a reader's order: (caption, nbs/ stems as glob patterns); the reproductions come third.
USER_FIRST = ("Prune your own model", ("20_api",))
METHODS = ("Methods: one notebook per paper's idea", ("1[0-6]_*",))

def executed(stem: str, patterns=EXECUTED) -> bool:
    "Is nbs/<stem>.ipynb executed while the site builds (`patterns`: default EXECUTED)?"
    return any(fnmatch.fnmatch(stem, pat) for pat in patterns)

def strip_directives(path: Path, dest: Path, execute: bool = False) -> None:
    """Copy a notebook without nbdev's `#|` directive lines (as nbdev's own docs show it); drop cells left empty.
    `execute`: MyST-NB runs it while the site builds (its metadata says so), failing the build on an error."""
    import nbformat
    nb = nbformat.read(path, as_version=4)
    for c in nb.cells:
        if c.cell_type == "code":
            c.source = "\n".join(l for l in c.source.splitlines() if not l.startswith("#|")).strip("\n")
    nb.cells = [c for c in nb.cells if c.cell_type != "code" or c.source.strip() or c.get("outputs")]
    if execute:
        nb.metadata["mystnb"] = dict(execution_mode="force", execution_timeout=EXECUTE_TIMEOUT_S,
                                     execution_raise_on_error=True, execution_show_tb=True)
    nbformat.write(nb, dest)

def sidebar(pages: list[str]) -> list[tuple[str, list[str]]]:
    "The table of contents as (caption, pages): prune your own model, the methods, the reproductions, the internals."
    stems = [p.removeprefix("nbs/") for p in pages if p.startswith("nbs/")]
    pick = lambda pats: [s for s in stems if any(fnmatch.fnmatch(s, pat) for pat in pats)]
    first, methods = pick(USER_FIRST[1]), pick(METHODS[1])
    return [(USER_FIRST[0], [f"nbs/{s}" for s in first]), (METHODS[0], [f"nbs/{s}" for s in methods]),
            ("Reproductions: our numbers beside the papers'", [p for p in pages if p.startswith("reproduce/")]),
            ("Internals: the library floor by floor", [f"nbs/{s}" for s in stems if s not in first + methods]),
            ("Project", ["CHANGELOG"])]

def stage(src: Path, es5: Path, execute=EXECUTED) -> list[str]:
    "Copy the site's sources into `src` (`execute`: the nbs/ notebooks to execute); returns the pages of the contents."
    from headprune_nb.reproduce import EXPERIMENTS
    from headprune_nb.report import build_report
    import headprune_nb
    (src / "conf.py").write_text(CONF.format(version=headprune_nb.__version__))
    static = src / "_static" / "mathjax"
    static.mkdir(parents=True)
    shutil.copy(es5 / "tex-mml-chtml.js", static)
    for sub in ("output/chtml/fonts/woff-v2", "input/tex/extensions"):
        shutil.copytree(es5 / sub, static / sub)
    nbs = sorted(p for p in (ROOT / "nbs").glob("*.ipynb") if p.stem != "index")
    (src / "nbs").mkdir()
    for p in nbs: strip_directives(p, src / "nbs" / p.name, execute=executed(p.stem, execute))
    (src / "reproduce").mkdir()
    reproductions = [Path(e.notebook) for e in EXPERIMENTS.values()]     # the registry's order, then any other
    others = (Path(p.name) for p in (ROOT / "reproduce").glob("*.ipynb"))
    reproductions += sorted(p for p in others if p not in reproductions)
    for nb in reproductions:
        ran = ROOT / "reproduce" / "results" / "cpu" / nb.stem / nb
        shutil.copy(ran if ran.exists() else ROOT / "reproduce" / nb, src / "reproduce" / nb)
    shutil.copytree(ROOT / "reproduce" / "published", src / "reproduce" / "published")
    results = ROOT / "reproduce" / "results" / "cpu"
    if results.exists():                      # figures and tables the report and README link to
        shutil.copytree(results, src / "reproduce" / "results" / "cpu", ignore=shutil.ignore_patterns("*.ipynb"))
    build_report(["cpu", "full"], src / "reproduce" / "report")
    shutil.copy(ROOT / "reproduce" / "CLAIMS.md", src / "reproduce" / "CLAIMS.md")     # README links to it
    shutil.copy(ROOT / "CHANGELOG.md", src / "CHANGELOG.md")
    pages = ([f"nbs/{p.stem}" for p in nbs] + ["reproduce/CLAIMS", "reproduce/report/report"]
             + [f"reproduce/{nb.stem}" for nb in reproductions] + ["CHANGELOG"])
    toc = lambda caption, items: f"\n```{{toctree}}\n:caption: {caption}\n:hidden:\n\n" + "\n".join(items) + "\n```\n"
    readme = (ROOT / "README.md").read_text()
    (src / "index.md").write_text(readme + "".join(toc(caption, items) for caption, items in sidebar(pages) if items))
    return pages

def build(out: Path, es5: Path, keep_source: Path | None = None, execute=EXECUTED) -> Path:
    """Stage the sources and run Sphinx in a temporary folder (MyST-NB writes jupyter_execute/ beside Sphinx's output
    folder, the doctrees go there too); only the finished site is moved to `out`. `execute`: the nbs/ notebooks to
    execute (glob patterns of their stems; default EXECUTED, the methods)."""
    src = Path(tempfile.mkdtemp(prefix="headprune-docs-"))
    try:
        stage(src, es5, execute)
        html_dir = src / "_build" / "html"          # "_build" is in exclude_patterns: not read as a source
        r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", "2", str(src), str(html_dir)],
                           capture_output=True, text=True)
        errors = [l for l in r.stderr.splitlines() if "ERROR" in l or "CRITICAL" in l]
        if r.returncode or errors:
            sys.exit(f"sphinx-build failed ({r.returncode}):\n" + "\n".join(errors or r.stderr.splitlines()[-30:]))
        if r.stderr.strip(): print(r.stderr.strip(), file=sys.stderr)
        if out.exists(): shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(html_dir, out)
        return out
    finally:
        if keep_source: shutil.copytree(src, keep_source, dirs_exist_ok=True)
        shutil.rmtree(src, ignore_errors=True)

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "_site"), help="output folder (default _site/)")
    ap.add_argument("--mathjax", help="MathJax 3 es5/ folder (default: from the npm registry, cached in build/npm)")
    a = ap.parse_args()
    site = build(Path(a.out), mathjax_dir(a.mathjax))
    print(f"site: {site / 'index.html'}")
