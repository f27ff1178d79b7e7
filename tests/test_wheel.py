"The built wheel and sdist: installed into a fresh virtual environment, `headprune list` and a smoke reproduction work."
import os, subprocess, sys, sysconfig, zipfile, tarfile
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent

@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    r = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                       capture_output=True, text=True, timeout=600)      # the sdist first, then the wheel built from it
    assert r.returncode == 0, r.stderr[-3000:]
    return out

def test_sdist_and_wheel_carry_what_users_need(dist):
    (whl,), (sdist,) = dist.glob("*.whl"), dist.glob("*.tar.gz")
    names = zipfile.ZipFile(whl).namelist()
    assert "headprune_nb/lottery.py" in names and "headprune_nb/_reproduce/behnke2020.ipynb" in names
    assert "headprune_nb/_reproduce/published/michel2019_table4.csv" in names
    assert "headprune_nb/_reproduce/run_hours/dsp2021.csv" in names         # each full run's hours: its Slurm limit
    assert not any("/results/" in n for n in names), "results stay out of the wheel"
    meta = zipfile.ZipFile(whl).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in meta and "Requires-Dist: torch" in meta
    src = tarfile.open(sdist).getnames()
    for f in ("LICENSE", "CHANGELOG.md", "nbs/16_lottery.ipynb", "tests/test_wheel.py"):
        assert any(n.endswith(f) for n in src), f

def test_wheel_in_a_fresh_venv_lists_and_reproduces(dist, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    (whl,) = dist.glob("*.whl")
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(whl)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # the dependencies (torch, transformers, papermill...) come from the test environment, not the network;
    # the package itself only from the wheel (a .pth adds the directory but not its editable-install hooks)
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("HEADPRUNE_REPRODUCE_DIR", "PYTHONPATH")}
    env["HEADPRUNE_CACHE"] = str(tmp_path / "cache")
    where = subprocess.run([str(py), "-c", "import headprune_nb; print(headprune_nb.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, env=env)
    assert where.stdout.startswith(site), where.stdout + where.stderr
    ls = subprocess.run([str(venv / "bin" / "headprune"), "list"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert ls.returncode == 0 and "behnke2020" in ls.stdout, ls.stderr
    rep = subprocess.run([str(venv / "bin" / "headprune"), "reproduce", "michel2019_speed", "--profile", "smoke"],
                         cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert rep.returncode == 0, rep.stderr[-3000:]
    out = tmp_path / "headprune-results" / "smoke" / "michel2019_speed"          # results beside the user, not in site-packages
    assert (out / "table4.csv").exists() and (out / "complete.json").exists()
    rp = subprocess.run([str(venv / "bin" / "headprune"), "report", "--profile", "smoke"], cwd=tmp_path, capture_output=True,
                        text=True, env=env, timeout=600)
    assert rp.returncode == 0, rp.stderr[-3000:]
    report = tmp_path / "headprune-results" / "report"                          # the report too, not site-packages
    md = (report / "report.md").read_text()
    assert (report / "report.html").exists() and not (Path(site) / "headprune_nb" / "_reproduce" / "report").exists()
    assert ("| claim | task | committed verdict | your verdict | published | committed | yours | committed interval | "
            "your interval | inside committed band | rule | budget | why |") in md       # your verdict beside the committed one
    assert "yours: `headprune reproduce michel2019_speed --profile smoke`" in md
