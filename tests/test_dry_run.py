"""Dry runs of the full profile (`headprune reproduce NAME --profile full --dry-run`): the papers' models at
their real sizes, real schedules and K lists, capped loops, into a scratch folder; and the full data path's
one-line errors. Every experiment's dry run runs here, in one shared scratch folder and model cache as
`headprune reproduce --all --profile full --dry-run` shares them (baselines first: the others start from its
models). They fit CI because of the caps in `store.DRY_RUN_CAPS` (nbs/00_store): a couple of optimizer steps on
short sequences, a few evaluation examples, beam search cut to a few tokens, timings on short inputs, one
checkpoint per dry run, and each code path run in full once and replayed for its other K, lambda and seed."""
import json, os, shutil, subprocess, time
from pathlib import Path
import pytest
from headprune_nb.reproduce import EXPERIMENTS, dry_run_experiment, reproduce_dir, cost_table, COST_FILE
from headprune_nb.data import load_glue, prepare_iwslt14, FIXTURES
from headprune_nb.store import DRY_RUN_ENV, DRY_RUN_CAPS

@pytest.fixture(scope="module")
def dry_root(tmp_path_factory):
    "One scratch folder (and model cache) shared by the dry runs below, as `--all --dry-run` shares it; gone after them."
    root = tmp_path_factory.mktemp("dry")
    yield root
    shutil.rmtree(root, ignore_errors=True)         # gigabytes of full-size models: not kept for the session's end

@pytest.mark.parametrize("name", ["baselines"] + [n for n in EXPERIMENTS if n != "baselines" and "full" in EXPERIMENTS[n].profiles])
def test_dry_run_writes_everything_into_scratch(name, dry_root):
    before = sorted((reproduce_dir() / "results" / "full").rglob("*")) if (reproduce_dir() / "results" / "full").exists() else []
    t0, cached = time.time() - 1, set((dry_root / ".cache").glob("*/full/*"))
    out = dry_run_experiment(name, out_dir=dry_root / name, progress=False, cache=dry_root / ".cache")
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["profile"] == "full" and "dry_run" in prov and prov["command"].endswith("--dry-run")
    assert (out / EXPERIMENTS[name].notebook).exists() and list(out.glob("*.csv"))
    cost = json.loads((out / "full_cost.json").read_text())
    assert cost["assumption"]["tflops"] > 0 and cost["gpu_hours"] >= 0
    if name != "michel2019_speed":            # the real run's steps (or, where nothing trains, evaluation examples)
        assert cost["train_steps"] > 1000 or cost["eval_examples"] > 1000, "the real run's, not the dry run's"
        assert cost["peak_memory_gib"] > 0.1
    else:
        assert prov["params"]["repeats"] == DRY_RUN_CAPS["repeats"] and prov["params"]["n_masks"] == DRY_RUN_CAPS["masks"]
        assert prov["params"]["model_name"] == "bert-base" and prov["params"]["batch_sizes"] == [1, 4, 16, 64]   # the real ones
        for f in ("table4.csv", "table4_vs_published.csv", "figure4.csv", "figure4.png"): assert (out / f).exists(), f
    new = [p for p in (dry_root / ".cache").rglob("*") if p.is_file() and p.stat().st_mtime >= t0]
    big = [p for p in new if p.suffix == ".pt" and p.stat().st_size > 2**29]
    written = sum(p.stat().st_size for p in new) / 2**30
    for p in big: p.unlink()      # only an interrupted run resumes from it: 8 of them would hold 10 GB of CI's disk
    if name != "baselines":       # its own runs and other seeds' baselines (bert-base: 0.4 GB each): a later dry run retrains them
        for d in set((dry_root / ".cache").glob("*/full/*")) - cached: shutil.rmtree(d)
    assert len(big) <= 1, f"a dry run writes one checkpoint at most (bert-base's: 1.3 GB); got {big}"
    assert written < 6.0, f"{name}'s dry run wrote {written:.1f} GiB into the cache"   # measured 2.5-4.9 (pass2023, retraining the seeds' baselines the earlier cleanups removed); the scratch peaked at 7.8 GB (11.3 before)
    after = sorted((reproduce_dir() / "results" / "full").rglob("*")) if (reproduce_dir() / "results" / "full").exists() else []
    assert before == after, "a dry run never writes into reproduce/results/full"

def test_dry_run_refuses_the_real_results_folder(tmp_path):
    with pytest.raises(ValueError, match="scratch"):
        dry_run_experiment("michel2019_speed", out_dir=reproduce_dir() / "results" / "full" / "michel2019_speed")

def test_cli_dry_run_needs_the_full_profile(headprune):
    r = subprocess.run([headprune, "reproduce", "michel2019_speed", "--dry-run"], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1 and "--profile full" in r.stderr

def test_list_shows_the_cost_table(headprune):
    r = subprocess.run([headprune, "list"], capture_output=True, text=True)
    assert r.returncode == 0
    rows = cost_table()
    if rows:
        assert "GPU hours" in r.stdout and "TFLOP/s" in r.stdout
        assert {row["name"] for row in rows} <= set(EXPERIMENTS)
    else:
        assert "not estimated yet" in r.stdout

def test_missing_glue_file_is_one_line_naming_the_fix(tmp_path, monkeypatch):
    monkeypatch.delenv(DRY_RUN_ENV, raising=False)
    (tmp_path / "glue").mkdir()
    with pytest.raises(FileNotFoundError) as e: load_glue("mnli", "train", tmp_path)
    msg = str(e.value)
    assert "\n" not in msg and "glue/MNLI/train.tsv" in msg and "headprune-nb[hub]" in msg

def test_missing_iwslt14_train_is_one_line_naming_the_fix(tmp_path, monkeypatch):
    from headprune_nb.recipes import translation_data
    monkeypatch.delenv(DRY_RUN_ENV, raising=False)
    (tmp_path / "iwslt14.tokenized.de-en").mkdir()
    monkeypatch.setenv("HEADPRUNE_DATA_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError) as e: translation_data("iwslt14")
    msg = str(e.value)
    assert "\n" not in msg and "train.de" in msg and "prepare_iwslt14" in msg

def test_fixtures_are_in_the_real_formats(tmp_path, monkeypatch):
    monkeypatch.delenv(DRY_RUN_ENV, raising=False)
    for task, split, n in (("mnli", "train", 6), ("mnli", "dev_mismatched", 6), ("sst2", "dev", 6), ("qnli", "train", 4),
                           ("qqp", "dev", 4), ("rte", "train", 4)):
        assert len(load_glue(task, split, FIXTURES)) == n
    prep = prepare_iwslt14(FIXTURES / "iwslt14-raw" / "de-en", tmp_path / "iwslt14.tokenized.de-en", merges=30)
    assert {p.name for p in prep.iterdir()} >= {f"{s}.{l}" for s in ("train", "valid", "test") for l in ("de", "en")}

def test_dry_run_stands_in_for_missing_data(tmp_path, monkeypatch):
    monkeypatch.setenv(DRY_RUN_ENV, str(tmp_path))
    monkeypatch.setenv("HEADPRUNE_DATA_DIR", str(tmp_path))            # an empty data folder: the fixtures stand in
    ex = load_glue("mnli", "train")
    assert len(ex) == 4                                                 # capped
    notes = [json.loads(l) for l in (tmp_path / "dry_run.jsonl").read_text().splitlines()]
    assert notes[0]["kind"] == "data" and "fixtures" in notes[0]["stand_in"]

def test_dry_run_starts_afresh_and_never_empties_a_foreign_folder(tmp_path):
    (tmp_path / "mine").mkdir(); (tmp_path / "mine" / "keep.txt").write_text("x")
    with pytest.raises(ValueError, match="holds no earlier dry run"):
        dry_run_experiment("michel2019_speed", out_dir=tmp_path / "mine")
    assert (tmp_path / "mine" / "keep.txt").exists()
