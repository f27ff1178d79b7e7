"""The fairseq adapter end to end: fairseq's own tools train a tiny model, `headprune import-fairseq` converts it.

Skipped when fairseq (the optional extra, see the README) is not installed."""
import json, os, shutil, subprocess, sys
from pathlib import Path
import pytest
import torch

pytest.importorskip("fairseq")
BIN = Path(sys.executable).parent


def run(*cmd, **kw):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert r.returncode == 0, f"{cmd[0]} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


@pytest.fixture(scope="module")
def fairseq_run(tmp_path_factory):
    "A fairseq checkpoint trained by fairseq-train on the synthetic corpus, with separate dictionaries."
    from headprune_nb.recipes import translation_data
    d = tmp_path_factory.mktemp("fairseq")
    data = translation_data("synthetic")
    for split, (src, tgt) in data.items():
        (d / f"{split}.de").write_text("\n".join(src) + "\n"); (d / f"{split}.en").write_text("\n".join(tgt) + "\n")
    run(BIN / "fairseq-preprocess", "--source-lang", "de", "--target-lang", "en", "--trainpref", d / "train",
        "--validpref", d / "valid", "--destdir", d / "data-bin", "--workers", "1")
    run(BIN / "fairseq-train", d / "data-bin", "--cpu", "--arch", "transformer_iwslt_de_en",
        "--encoder-embed-dim", "32", "--decoder-embed-dim", "32", "--encoder-layers", "2", "--decoder-layers", "2",
        "--encoder-attention-heads", "4", "--decoder-attention-heads", "4", "--encoder-ffn-embed-dim", "64",
        "--decoder-ffn-embed-dim", "64", "--share-decoder-input-output-embed", "--dropout", "0.0",
        "--optimizer", "adam", "--lr", "3e-3", "--max-tokens", "1024", "--max-update", "300", "--seed", "0",
        "--save-dir", d / "ckpt", "--no-epoch-checkpoints", "--num-workers", "0", "--log-format", "none",
        # without this, fairseq-fixed on torch 2.13 aborts at exit after training ("terminate called without an
        # active exception", from the thread of its buffered batch iterator); the checkpoints are complete either way
        "--data-buffer-size", "0",
        env=dict(os.environ, OMP_NUM_THREADS="1"))
    return d


def test_import_matches_fairseq(fairseq_run, tmp_path):
    from headprune_nb.fairseq_adapter import load_fairseq_checkpoint
    from headprune_nb.prune import load_pruned
    from headprune_nb.data import vocab_beside, PairVocab, collate_translation
    out = tmp_path / "imported"
    r = run(BIN / "headprune", "import-fairseq", fairseq_run / "ckpt" / "checkpoint_last.pt", "--data",
            fairseq_run / "data-bin", "--out", out, "--check", "50", "--corpus", "synthetic", "--beam", "4")
    assert "enc_self: 8, cross: 8, dec_self: 8" in r.stdout
    res = json.loads((out / "import.json").read_text())
    assert res["sentences"] == 50 and res["unknown_source_tokens_pct"] == 0
    assert res["identical_pct"] >= 90, res                      # near-ties of an under-trained model may flip a few
    assert res["provenance"]["command"].startswith("headprune import-fairseq")
    fs, vocab = load_fairseq_checkpoint(fairseq_run / "ckpt" / "checkpoint_last.pt", fairseq_run / "data-bin")
    hf, saved = load_pruned(out), vocab_beside(out)
    assert isinstance(saved, PairVocab) and saved.source.itos == vocab.source.itos and saved.target.itos == vocab.target.itos
    pairs = [("w1 w2 w3", "v1 v2"), ("w4 w5", "v3 v4 v5 v6")]
    b = collate_translation(vocab, pairs)
    with torch.no_grad():
        theirs = fs(b["input_ids"], b["attention_mask"].sum(1), b["decoder_input_ids"])[0]
        ours = hf(input_ids=b["input_ids"], attention_mask=b["attention_mask"], decoder_input_ids=b["decoder_input_ids"]).logits
    real = b["labels"] != -100
    torch.testing.assert_close(ours[real], theirs[real], atol=1e-5, rtol=1e-5)


def test_import_as_baseline(fairseq_run, tmp_path, monkeypatch):
    "--as makes the import a recipe's cached baseline (model and dictionaries); an existing one needs --replace."
    monkeypatch.setenv("HEADPRUNE_CACHE", str(tmp_path))
    ckpt = fairseq_run / "ckpt" / "checkpoint_last.pt"
    run(BIN / "headprune", "import-fairseq", ckpt, "--data", fairseq_run / "data-bin", "--as", "smoke/synthetic_mt")
    r = subprocess.run([BIN / "headprune", "import-fairseq", ckpt, "--data", fairseq_run / "data-bin", "--as",
                        "smoke/synthetic_mt"], capture_output=True, text=True)
    assert r.returncode == 2 and "--replace" in r.stderr
    run(BIN / "headprune", "import-fairseq", ckpt, "--data", fairseq_run / "data-bin", "--as", "smoke/synthetic_mt", "--replace")
    assert len(list((tmp_path / "models" / "smoke").glob("synthetic_mt.replaced-*"))) == 1
    from headprune_nb.recipes import trained, task_metric
    from headprune_nb.data import PairVocab
    t = trained("smoke", "synthetic_mt", progress=False)
    assert isinstance(t.tokenizer, PairVocab) and t.origin and t.run_dir.name.startswith("synthetic_mt-imported-")
    assert task_metric(t, "test", limit=30, beam=1)(t.model) > 10    # it translates with the imported dictionaries
