"""Decode the Multi30k test sentences with one of `train.SEARCHES` (our beam search or HF generate) on an imported model.

Writes one hypothesis per line to --out, so that two runs (old vs new search) can be compared line by line and timed
with /usr/bin/time. Issue 42: `python tools/beam_check.py --search hf --out a.txt; ... --search beam --out b.txt`.
"""
from __future__ import annotations
import argparse, sys, time
from pathlib import Path

IMPORTED = Path.home() / ".cache/headprune/peers/fairseq/work/imported"
TEXT = Path.home() / ".cache/headprune/peers/fairseq/work/text"


def main(argv=None) -> int:
    from headprune_nb.beam import SEARCHES
    from peer_fairseq import heads_layout          # the benchmark's rule: the same heads removed
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--search", choices=sorted(SEARCHES), default="beam")
    p.add_argument("--imported", type=Path, default=IMPORTED)
    p.add_argument("--text", type=Path, default=TEXT, help="folder with test.de (BPE)")
    p.add_argument("--remove", type=float, default=0.0, help="share of each site's heads removed (seed 0)")
    p.add_argument("--sentences", type=int, default=1000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", type=Path, required=True)
    a = p.parse_args(argv)
    if not (a.imported / "config.json").exists():
        p.error(f"{a.imported} holds no imported model (config.json): run tools/peer_fairseq.py first, or give --imported")
    if not (a.text / "test.de").exists(): p.error(f"{a.text / 'test.de'} not found: give --text, the folder of the BPE test set")
    if not 0 <= a.remove < 1 or a.sentences < 1 or a.threads < 1:
        p.error("--remove must lie in [0, 1), --sentences and --threads must be >= 1")
    import torch
    from headprune_nb.prune import load_pruned, apply_layout
    from headprune_nb.data import vocab_beside, read_lines
    from headprune_nb.train import translate
    from headprune_nb.store import write_atomic
    torch.set_num_threads(a.threads)
    model, vocab = load_pruned(a.imported), vocab_beside(a.imported)
    if a.remove: model = apply_layout(model, heads_layout(model, a.remove, 0))
    sources = read_lines(a.text / "test.de")[:a.sentences]
    t0 = time.process_time()
    hyps = translate(model, vocab, sources, search=a.search)
    print(f"{a.search} remove={a.remove}: {len(hyps)} sentences, {time.process_time() - t0:.1f} CPU-s in translate",
          file=sys.stderr)
    write_atomic(a.out, "".join(h + "\n" for h in hyps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
