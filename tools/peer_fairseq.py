"""Peer benchmark, Enc-Dec side (issue 42 item 1b): our beam-5 decoding against fairseq's on the same model.

One command (`tools/peer_bench.py --peer fairseq ...` calls `main(argv)`; or run this file):
1. fairseq in its own virtualenv, made once and reused: `$HEADPRUNE_CACHE/peers/fairseq/venv` (default
   ~/.cache/headprune/peers/fairseq): CPU torch as `tools/install_torch.py` picks it, this package's dependencies and its
   `fairseq` extra, then `pip install --no-build-isolation --no-deps fairseq-fixed==0.12.3.1`.
2. Multi30k De-En as this package prepares it (`recipes.translation_data`, BPE; $HEADPRUNE_DATA_DIR), binarised by
   fairseq-preprocess, and a fairseq model trained on it in our multi30k-encdec shape exactly as
   reproduce/results/cpu/fairseq_import/fairseq-train.sh does (resumable: fairseq-train continues from checkpoint_last.pt),
   unless the cache holds it; then `headprune import-fairseq` converts it into our HF Enc-Dec.
3. Timing: fairseq's SequenceGenerator and our `train.translate`, beam 5, on the same test sentences with the same length
   buckets and length limits, unpruned and with the same heads removed from both (`prune.apply_layout` slices the
   fairseq model's weights exactly as it slices ours: fairseq has no head pruning of its own), each side in its own
   process, alternated over rounds (the order flips every round), under `bench.LoadMonitor`. The ratio fairseq time /
   ours gets a 95% t interval over the rounds (`bench.ratio_interval`); translations and BLEU of both are compared.
4. `fairseq_decode.csv` (one row per variant), `fairseq_rounds.csv` (every timing) and `fairseq_decode.json` (both, the
   heads removed, provenance, the peer's versions) under --out (default reproduce/results/<device>/peer_bench).

    python tools/peer_fairseq.py                       # prepare what is missing, then 3 rounds on 1,000 sentences
    python tools/peer_fairseq.py --prepare-only        # venv, data, training, import; no timing
    python tools/peer_fairseq.py --self-check --sentences 8 --rounds 2 --out /tmp/x   # plumbing only: ours on both sides
"""
from __future__ import annotations
import argparse, json, os, random, shutil, statistics, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAIRSEQ_SPEC = "fairseq-fixed==0.12.3.1"
# reproduce/results/cpu/fairseq_import/fairseq-train.sh, without --max-epoch (the --epochs option)
TRAIN_ARGS = ["--cpu", "--arch", "transformer_iwslt_de_en", "--encoder-embed-dim", "256", "--decoder-embed-dim", "256",
              "--encoder-layers", "3", "--decoder-layers", "3", "--encoder-attention-heads", "8",
              "--decoder-attention-heads", "8", "--encoder-ffn-embed-dim", "1024", "--decoder-ffn-embed-dim", "1024",
              "--share-decoder-input-output-embed", "--dropout", "0.1", "--weight-decay", "0.0001", "--optimizer", "adam",
              "--adam-betas", "(0.9, 0.98)", "--lr", "1e-3", "--lr-scheduler", "inverse_sqrt", "--warmup-updates", "400",
              "--criterion", "label_smoothed_cross_entropy", "--label-smoothing", "0.1", "--max-tokens", "2048",
              "--no-epoch-checkpoints", "--seed", "0", "--log-format", "simple", "--log-interval", "50", "--num-workers", "0"]


def say(msg: str) -> None: print(f"peer fairseq: {msg}", file=sys.stderr, flush=True)


def run(cmd, log=None, env=None, **kw) -> None:
    "Run `cmd`, its output appended to `log` (or shown); a failure raises one line naming the command and the log."
    env = dict(os.environ, **(env or {}))
    if log is None: rc = subprocess.run([str(c) for c in cmd], env=env, **kw).returncode
    else:
        with open(log, "a") as f: rc = subprocess.run([str(c) for c in cmd], env=env, stdout=f, stderr=subprocess.STDOUT, **kw).returncode
    if rc: raise RuntimeError(f"{Path(str(cmd[0])).name} {' '.join(map(str, cmd[1:4]))} ... failed (exit {rc})" + (f"; see {log}" if log else ""))


def peer_home() -> Path:
    from headprune_nb.recipes import cache_dir
    return cache_dir() / "peers" / "fairseq"


# ---------------------------------------------------------------- 1. fairseq's own virtualenv
def package_requirements() -> list[str]:
    "This package's dependencies and its `fairseq` extra (pyproject.toml), torch left out (installed first), transformers pinned to ours."
    import tomllib, transformers
    proj = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = [r for r in proj["dependencies"] + proj["optional-dependencies"]["fairseq"] if not r.startswith(("torch", "transformers"))]
    return reqs + [f"transformers=={transformers.__version__}"]


def ensure_venv() -> Path:
    "fairseq's virtualenv's python (peer_bench.prepare_venv: made once, reused): our dependencies, then fairseq without its pins."
    from peer_bench import prepare_venv
    return Path(prepare_venv("fairseq", package_requirements(), ["--no-build-isolation", "--no-deps", FAIRSEQ_SPEC],
                             check="import fairseq, transformers, torch"))


# ---------------------------------------------------------------- 2. data, training, import
def write_text(work: Path, corpus: str) -> Path:
    "The prepared (BPE) corpus as fairseq-preprocess reads it: text/{train,valid,test}.{de,en}."
    from headprune_nb.recipes import translation_data
    from headprune_nb.store import write_atomic
    text = work / "text"
    if (text / "test.en").exists(): return text
    say(f"writing {corpus} (BPE) to {text}")
    text.mkdir(parents=True, exist_ok=True)
    for split, (src, tgt) in translation_data(corpus).items():
        for lang, lines in (("de", src), ("en", tgt)):
            write_atomic(text / f"{split}.{lang}", "".join(l + "\n" for l in lines))
    return text


def binarise(py: Path, work: Path, text: Path) -> Path:
    "fairseq-preprocess's data-bin (separate dictionaries), once."
    out = work / "data-bin"
    if (out / "done").exists(): return out
    say(f"binarising with fairseq-preprocess into {out}")
    shutil.rmtree(out, ignore_errors=True)
    run([py.parent / "fairseq-preprocess", "--source-lang", "de", "--target-lang", "en", "--trainpref", text / "train",
         "--validpref", text / "valid", "--testpref", text / "test", "--destdir", out, "--workers", "2"], work / "preprocess.log")
    (out / "done").write_text("")
    return out


def train(py: Path, work: Path, data_bin: Path, epochs: int, threads: int) -> Path:
    "fairseq-train as fairseq-train.sh, to `epochs` epochs; an interrupted run continues from checkpoint_last.pt."
    ckpt, done = work / "checkpoints", work / "checkpoints" / f"done-{epochs}-epochs"
    if done.exists(): return ckpt / "checkpoint_best.pt"
    log = work / "train.log"
    say(f"training fairseq's model ({epochs} epochs; about 4 min an epoch on 2 idle cores; progress in {log})")
    run([py.parent / "fairseq-train", data_bin, *TRAIN_ARGS, "--max-epoch", str(epochs), "--save-dir", ckpt], log,
        env={"OMP_NUM_THREADS": str(threads)})
    done.write_text("")
    return ckpt / "checkpoint_best.pt"


def import_model(py: Path, work: Path, ckpt: Path, data_bin: Path, corpus: str, check: int = 100) -> Path:
    "Our HF Enc-Dec converted from the checkpoint by `headprune import-fairseq` (in the peer venv, which has fairseq), checked on `check` test sentences."
    out = work / "imported"
    stamp, mark = f"{ckpt} {ckpt.stat().st_mtime_ns}", work / "imported.stamp"     # re-imported when the checkpoint changes
    if (out / "config.json").exists() and mark.exists() and mark.read_text() == stamp: return out
    say(f"importing {ckpt} into {out}")
    shutil.rmtree(out, ignore_errors=True)
    cli = "import sys; from headprune_nb.cli import main; sys.exit(main(sys.argv[1:]))"      # `headprune`, in the peer venv
    run([py, "-c", cli, "import-fairseq", ckpt, "--data", data_bin, "--out", out, "--check", str(check), "--corpus", corpus],
        work / "import.log", env={"PYTHONPATH": str(ROOT)})
    if not (out / "config.json").exists(): raise RuntimeError(f"headprune import-fairseq wrote no model in {out}; see {work / 'import.log'}")
    mark.write_text(stamp)
    return out


def self_check_model(work: Path) -> Path:
    "--self-check: a tiny random Enc-Dec on the synthetic corpus (no fairseq), saved as an import would be."
    from headprune_nb.recipes import translation_data
    from headprune_nb.data import Vocab, save_vocab
    from headprune_nb.models import encdec_config
    from headprune_nb.prune import save_pruned
    from headprune_nb.store import write_atomic
    import torch
    from transformers import MarianMTModel
    data = translation_data("synthetic")
    (work / "text").mkdir(parents=True, exist_ok=True)
    for lang, lines in zip(("de", "en"), data["test"]): write_atomic(work / "text" / f"test.{lang}", "".join(l + "\n" for l in lines))
    vocab = Vocab.build(data["train"][0] + data["train"][1])
    torch.manual_seed(0)
    model = MarianMTModel(encdec_config(len(vocab), d_model=32, layers=2, heads=4, ffn=64, max_len=64)).eval()
    out = save_pruned(model, work / "imported", overwrite=True)
    save_vocab(vocab, out)
    return out


# ---------------------------------------------------------------- 3. the heads removed: the same in both
def removal_layout(imported: Path, remove: float, seed: int) -> dict[str, list[int]]:
    "Heads kept per attention site of the model saved in `imported` (`heads_layout`)."
    from headprune_nb.prune import load_pruned
    return heads_layout(load_pruned(imported), remove, seed)


def heads_layout(model, remove: float, seed: int) -> dict[str, list[int]]:
    "Heads kept per attention site (our site names): `remove` of each site's heads removed, chosen at random by `seed`."
    from headprune_nb.heads import HeadIndex
    kept = {}
    for i, s in enumerate(HeadIndex.from_model(model).sites):
        n = s.n_heads - round(remove * s.n_heads)
        kept[s.name] = sorted(random.Random(seed * 1000 + i).sample(range(s.n_heads), n))
    return kept


def fairseq_name(site: str) -> str: return site.removeprefix("model.")   # fairseq's model is our `.model`, same names below


# ---------------------------------------------------------------- worker: one side, one round, both variants
class Side:
    "How one side loads its model and translates; `SIDES` picks it by name."
    def load(self, spec): raise NotImplementedError
    def prune(self, model, kept: dict): raise NotImplementedError
    def translate(self, model, vocab, sources, spec): raise NotImplementedError
    def versions(self) -> dict:
        import torch; return dict(torch=torch.__version__)


class Ours(Side):
    def load(self, spec):
        from headprune_nb.prune import load_pruned
        from headprune_nb.data import vocab_beside
        return load_pruned(spec["imported"]), vocab_beside(spec["imported"])
    def prune(self, model, kept):
        from headprune_nb.prune import apply_layout
        return apply_layout(model, kept)
    def translate(self, model, vocab, sources, spec):
        from headprune_nb.train import translate
        return translate(model, vocab, sources, beam=spec["beam"], batch_size=spec["batch_size"])
    def versions(self):
        import transformers; return dict(super().versions(), transformers=transformers.__version__)


class Fairseq(Side):
    def load(self, spec):
        from headprune_nb.fairseq_adapter import load_fairseq_checkpoint
        return load_fairseq_checkpoint(spec["checkpoint"], spec["data_bin"])
    def prune(self, model, kept):
        from headprune_nb.prune import apply_layout
        return apply_layout(model, {fairseq_name(k): v for k, v in kept.items()})
    def translate(self, model, vocab, sources, spec):
        from headprune_nb.fairseq_adapter import translate_fairseq
        return translate_fairseq(model, vocab, sources, beam=spec["beam"], batch_size=spec["batch_size"])
    def versions(self):
        import fairseq; return dict(super().versions(), fairseq=getattr(fairseq, "__version__", "?"))


SIDES = {"ours": Ours, "fairseq": Fairseq}


def worker(spec: dict) -> dict:
    "Load one side's model, then per variant (in the given order): prune a copy if asked, warm up, time the decoding."
    import copy, torch
    from headprune_nb.bench import LoadMonitor
    from headprune_nb.data import read_lines
    torch.set_num_threads(spec["threads"])
    side = SIDES[spec["side"]]()
    sources = read_lines(Path(spec["text"]) / "test.de")[:spec["sentences"]]
    model, vocab = side.load(spec)
    out = dict(side=spec["side"], versions=side.versions(), variants={})
    for variant in spec["variants"]:
        m = side.prune(copy.deepcopy(model), spec["kept"]) if variant == "pruned" else model
        side.translate(m, vocab, sources[:spec["warmup"]], spec)
        with LoadMonitor(f"{spec['side']} {variant} decoding", warn=False) as mon:
            t0 = time.perf_counter(); hyps = side.translate(m, vocab, sources, spec); seconds = time.perf_counter() - t0
        out["variants"][variant] = dict(seconds=seconds, hyps=hyps, load=mon.record,
                                        params=sum(p.numel() for p in m.parameters()))
    return out


def run_worker(py: Path, spec: dict, tmp: Path) -> dict:
    "One worker in its own process (`py`: the side's environment); its result as a dict."
    path = tmp / f"{spec['side']}-{spec['round']}.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               OMP_NUM_THREADS=str(spec["threads"]))
    r = subprocess.run([str(py), str(Path(__file__).resolve()), "--worker", json.dumps(spec), "--worker-out", str(path)],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode: raise RuntimeError(f"the {spec['side']} worker failed (exit {r.returncode}): {r.stdout.strip()[-2000:]}")
    return json.loads(path.read_text())


# ---------------------------------------------------------------- 4. rounds, ratios, results
VARIANTS = ("unpruned", "pruned")


def bench_rounds(pythons: dict, base: dict, rounds: int, tmp: Path, peer: str = "fairseq", runner=None) -> list[dict]:
    "`rounds` rounds; each runs the peer and ours in separate processes (`runner`), the order of sides and of variants flipping every round."
    runner = runner or run_worker
    timings = []
    for r in range(rounds):
        sides = [peer, "ours"] if r % 2 == 0 else ["ours", peer]
        variants = list(VARIANTS) if r % 2 == 0 else list(VARIANTS)[::-1]
        for pos, side in enumerate(sides):
            say(f"round {r + 1}/{rounds}: {side} ({', '.join(variants)})")
            res = runner(pythons[side], dict(base, side=SIDES_OF.get(side, side), round=f"{r}-{pos}", variants=variants), tmp)
            for v in variants:
                x = res["variants"][v]
                timings.append(dict(round=r + 1, side=side, order=pos + 1 + (variants.index(v) * 2), variant=v,
                                    seconds=x["seconds"], sentences_per_s=base["sentences"] / x["seconds"], params=x["params"],
                                    **{f"load_{k}": x["load"].get(k) for k in ("other_cores", "steal_pct", "competing")},
                                    hyps=x["hyps"], versions=res["versions"]))
    return timings


SIDES_OF = {"ours-as-peer": "ours"}      # --self-check: our decoder plays the peer


def summarise(timings: list[dict], refs: list[str], peer: str = "fairseq") -> list[dict]:
    "Per variant: median sentences/s of both, the ratio peer time / ours with its 95% interval, BLEU of both, identical share."
    from headprune_nb.bench import ratio_interval
    from headprune_nb.train import bleu
    rows = []
    for v in VARIANTS:
        them = sorted((t for t in timings if t["variant"] == v and t["side"] == peer), key=lambda t: t["round"])
        us = sorted((t for t in timings if t["variant"] == v and t["side"] == "ours"), key=lambda t: t["round"])
        if not them or len(them) != len(us): raise ValueError(f"{v}: {len(them)} {peer} timings against {len(us)} of ours")
        est, lo, hi = ratio_interval([t["seconds"] for t in them], [t["seconds"] for t in us])
        h_them, h_us = them[0]["hyps"], us[0]["hyps"]
        stable = all(t["hyps"] == h_them for t in them) and all(t["hyps"] == h_us for t in us)
        b_them, b_us = bleu(h_them, refs)["bleu_tok"], bleu(h_us, refs)["bleu_tok"]
        rows.append(dict(variant=v, sentences=len(refs), rounds=len(us),
                         peer_sentences_per_s=statistics.median(t["sentences_per_s"] for t in them),
                         ours_sentences_per_s=statistics.median(t["sentences_per_s"] for t in us),
                         peer_seconds_median=statistics.median(t["seconds"] for t in them),
                         ours_seconds_median=statistics.median(t["seconds"] for t in us),
                         ratio_peer_over_ours=est, ratio_low=lo, ratio_high=hi,
                         goal_met=lo >= 1, inconclusive=lo < 1 <= hi,
                         bleu_peer=b_them, bleu_ours=b_us, bleu_equal=b_them == b_us,
                         identical=sum(a == b for a, b in zip(h_them, h_us)), outputs_stable=stable,
                         peer_params=them[0]["params"], ours_params=us[0]["params"],
                         competing_timings=sum(bool(t["load_competing"]) for t in them + us)))
    return rows


def write_results(out: Path, rows: list[dict], timings: list[dict], extra: dict, prefix: str = "fairseq") -> list[Path]:
    "CSV per variant and per timing, and one JSON with both and the provenance, written atomically."
    from headprune_nb.store import write_csv, write_json
    out.mkdir(parents=True, exist_ok=True)
    flat = [{k: v for k, v in t.items() if k not in ("hyps", "versions")} for t in timings]
    return [write_csv(out / f"{prefix}_decode.csv", rows), write_csv(out / f"{prefix}_rounds.csv", flat),
            write_json(out / f"{prefix}_decode.json", dict(rows=rows, timings=flat, **extra))]


# ---------------------------------------------------------------- the command
def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="peer_fairseq", description=__doc__.split("\n\n")[0])
    p.add_argument("--sentences", type=int, default=1000, help="test sentences decoded (default: all 1,000)")
    p.add_argument("--beam", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=64, help="sentences per length bucket, both sides (train.translate's default)")
    p.add_argument("--rounds", type=int, default=3, help="alternated rounds (>= 2 for an interval)")
    p.add_argument("--remove", type=float, default=0.5, help="share of each attention's heads removed in the pruned variant")
    p.add_argument("--seed", type=int, default=0, help="which heads are removed")
    p.add_argument("--warmup", type=int, default=32, help="sentences decoded before each timing")
    p.add_argument("--threads", type=int, default=os.cpu_count(), help="torch threads of both sides")
    p.add_argument("--epochs", type=int, default=5, help="fairseq-train epochs if no checkpoint is cached (fairseq-train.sh: 5)")
    p.add_argument("--checkpoint", type=Path, help="a fairseq checkpoint trained on --work's data-bin to use instead of training one")
    p.add_argument("--corpus", default="multi30k")
    p.add_argument("--import-check", type=int, default=100, help="test sentences import-fairseq translates with both (0: none)")
    p.add_argument("--work", type=Path, help="the peer's cache (default $HEADPRUNE_CACHE/peers/fairseq)")
    p.add_argument("--out", type=Path, help="results folder (default reproduce/results/<cpu|gpu>/peer_bench)")
    p.add_argument("--prepare-only", action="store_true", help="make the venv, data, checkpoint and import; time nothing")
    p.add_argument("--self-check", action="store_true", help="plumbing only: a tiny random model, ours on both sides, no fairseq")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--worker-out", help=argparse.SUPPRESS)
    return p


def check_args(p, a) -> None:
    "Bad input: one line naming it (argparse exits 2)."
    if a.rounds < 2: p.error("--rounds must be at least 2 (an interval needs two rounds)")
    if not 0 < a.remove < 1: p.error("--remove must be between 0 and 1 (a share of each attention's heads)")
    for k in ("sentences", "beam", "batch_size", "threads", "epochs"):
        if getattr(a, k) < 1: p.error(f"--{k.replace('_', '-')} must be at least 1")
    if a.warmup < 0: p.error("--warmup must be at least 0")
    if a.checkpoint and not a.checkpoint.is_file(): p.error(f"--checkpoint {a.checkpoint}: no such file (a fairseq checkpoint*.pt)")


def prepare(a) -> dict:
    "Everything the timing needs: pythons per side and the worker spec's paths (made once, under the work folder's lock)."
    from headprune_nb.store import folder_lock
    work = a.work or (peer_home() / ("self-check" if a.self_check else "work"))
    work.mkdir(parents=True, exist_ok=True)
    with folder_lock(work, wait=True): return _prepare(a, work)     # a second run waits for the first's training


def _prepare(a, work: Path) -> dict:
    if a.self_check:
        return dict(work=work, pythons={"ours-as-peer": Path(sys.executable), "ours": Path(sys.executable)},
                    paths=dict(imported=str(self_check_model(work)), text=str(work / "text")), peer="ours-as-peer")
    py = ensure_venv()
    text = write_text(work, a.corpus)
    data_bin = binarise(py, work, text)
    ckpt = a.checkpoint.resolve() if a.checkpoint else train(py, work, data_bin, a.epochs, a.threads)
    imported = import_model(py, work, ckpt, data_bin, a.corpus, a.import_check)
    return dict(work=work, pythons={"fairseq": py, "ours": Path(sys.executable)}, peer="fairseq",
                paths=dict(imported=str(imported), text=str(text), checkpoint=str(ckpt), data_bin=str(data_bin)))


def main(argv=None) -> int:
    p = parser()
    a = p.parse_args(argv)
    if a.worker:
        Path(a.worker_out).write_text(json.dumps(worker(json.loads(a.worker)))); return 0
    check_args(p, a)
    try:
        from headprune_nb.data import read_lines
        from headprune_nb.store import provenance
        import torch, tempfile
        prep = prepare(a)
        if a.prepare_only: say(f"prepared in {prep['work']}"); return 0
        kept = removal_layout(Path(prep["paths"]["imported"]), a.remove, a.seed)
        base = dict(prep["paths"], kept=kept, sentences=a.sentences, beam=a.beam, batch_size=a.batch_size,
                    warmup=a.warmup, threads=a.threads)
        refs = read_lines(Path(prep["paths"]["text"]) / "test.en")[:a.sentences]
        base["sentences"] = len(refs)
        prov = provenance("peer_bench", a.seed, {k: str(v) for k, v in vars(a).items() if k not in ("worker", "worker_out")},
                          "python tools/peer_fairseq.py " + " ".join(sys.argv[1:] if argv is None else argv))
        with tempfile.TemporaryDirectory() as tmp:
            timings = bench_rounds(prep["pythons"], base, a.rounds, Path(tmp), prep["peer"])
        rows = summarise(timings, refs, prep["peer"])
        out = a.out or ROOT / "reproduce" / "results" / ("gpu" if torch.cuda.is_available() else "cpu") / "peer_bench"
        peer_versions = next(t["versions"] for t in timings if t["side"] == prep["peer"])
        files = write_results(out, rows, timings, dict(peer=prep["peer"], peer_versions=peer_versions, heads_kept=kept,
                                                       self_check=a.self_check, provenance=prov),
                              prefix="selfcheck" if a.self_check else "fairseq")
    except (ValueError, RuntimeError, FileNotFoundError, OSError) as e:
        print(f"peer fairseq: error: {e}", file=sys.stderr); return 2
    from headprune_nb.store import markdown_table
    print(markdown_table(rows, ["variant", "peer_sentences_per_s", "ours_sentences_per_s", "ratio_peer_over_ours", "ratio_low",
                                "ratio_high", "goal_met", "bleu_peer", "bleu_ours", "identical", "competing_timings"]))
    say("wrote " + ", ".join(map(str, files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
