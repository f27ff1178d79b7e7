"""How often one `prune_to_k` call builds a `HeadIndex` (`HeadIndex.from_model`), and how many library files it enters.

    python tools/index_builds.py [method ...]     # default: dsp michel confidence pass voita; tiny_bert, 12 steps
"""
import collections
import sys
import warnings

import torch

from headprune_nb import heads
from headprune_nb.api import prune_to_k
from headprune_nb.models import tiny_bert


def batches(n: int = 6) -> list[dict]:
    "`n` labelled batches of 4 random sentences of 12 tokens."
    g = torch.Generator().manual_seed(0)
    return [dict(input_ids=torch.randint(5, 90, (4, 12), generator=g), attention_mask=torch.ones(4, 12, dtype=torch.long),
                 labels=torch.randint(0, 2, (4,), generator=g)) for _ in range(n)]


def count(method: str) -> tuple[collections.Counter, set]:
    "({caller file:function: builds}, library files entered) of one `prune_to_k(method)` over 2 epochs of 6 batches."
    built, files, orig = collections.Counter(), set(), heads.HeadIndex.from_model.__func__

    def counted(cls, model):
        f = sys._getframe(1)
        built[f"{f.f_code.co_filename.split('/')[-1]}:{f.f_code.co_name}"] += 1
        return orig(cls, model)

    def entered(frame, event, arg):
        if event == "call" and "headprune_nb" in frame.f_code.co_filename:
            files.add(frame.f_code.co_filename.split("/")[-1])

    heads.HeadIndex.from_model = classmethod(counted)
    sys.setprofile(entered)
    try: prune_to_k(tiny_bert(), batches(), K=4, method=method, progress=False, epochs=2)
    finally:
        sys.setprofile(None)
        heads.HeadIndex.from_model = classmethod(orig)
    return built, files


if __name__ == "__main__":
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    for m in sys.argv[1:] or ["dsp", "michel", "confidence", "pass", "voita"]:
        built, files = count(m)
        print(f"{m}: {sum(built.values())} HeadIndex builds over 12 steps, {len(files)} library files; {dict(built)}")
