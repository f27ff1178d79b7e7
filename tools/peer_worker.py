"""One timed process of the peer benchmark (tools/peer_bench.py starts it; it prints one JSON line).

Loads the BERT encoder that peer_bench saved (config.json + model.safetensors), removes the heads it is told to with
the library of its side, and times forward passes on the saved inputs at each batch size. Runs under our Python
(`--side ours`: headprune_nb's `prune_heads`) or under the peer's virtualenv (`--side hf4`: transformers 4's
`model.prune_heads(dict)`), so it imports nothing of headprune_nb on the peer's side.

    python tools/peer_worker.py --side ours --model DIR --drop '{"0": [1, 5]}' --batches 1,16 --repeats 3
"""
import argparse, json, statistics, sys, time
from pathlib import Path


def prune_ours(model, drop: dict) -> None:
    "headprune_nb: a keep-mask over the model's flat head index, the heads in `drop` (layer -> head ids) off."
    import torch
    from headprune_nb.heads import HeadIndex
    from headprune_nb.prune import prune_heads
    index = HeadIndex.from_model(model)
    keep = torch.ones(index.H, dtype=torch.bool)
    for i, site in enumerate(index.sites):
        for h in drop.get(str(site.layer), []): keep[index.offsets[i] + h] = False
    prune_heads(model, keep)


def prune_hf4(model, drop: dict) -> None:
    "transformers 4: `PreTrainedModel.prune_heads({layer: [heads]})`."
    model.prune_heads({int(l): list(h) for l, h in drop.items() if h})


SIDES = {"ours": prune_ours, "hf4": prune_hf4}


def load(model_dir: Path):
    "The saved encoder, every weight loaded (strict), in eval mode."
    import transformers
    from safetensors.torch import load_file
    config = transformers.BertConfig(**json.loads((model_dir / "config.json").read_text()))
    model = transformers.BertModel(config, add_pooling_layer=False)
    model.load_state_dict(load_file(str(model_dir / "model.safetensors")), strict=True)
    return model.eval()


def time_batch(model, ids, repeats: int, min_seconds: float, max_repeats: int = 50) -> list[float]:
    "Seconds of each forward pass after one warm-up: at least `repeats` passes and `min_seconds` in all."
    import torch
    mask = torch.ones_like(ids)
    model(input_ids=ids, attention_mask=mask)
    out = []
    while len(out) < repeats or (sum(out) < min_seconds and len(out) < max_repeats):
        t0 = time.perf_counter(); model(input_ids=ids, attention_mask=mask); out.append(time.perf_counter() - t0)
    return out


def run(args) -> dict:
    "Load, prune (per `args.drop`), time each batch size; the record peer_bench reads."
    import torch, transformers
    from safetensors.torch import load_file
    if args.threads: torch.set_num_threads(args.threads)
    model = load(Path(args.model))
    drop = json.loads(args.drop or "{}")
    if drop: SIDES[args.side](model, drop)
    inputs = load_file(str(Path(args.model) / "inputs.safetensors"))
    rec = dict(side=args.side, transformers=transformers.__version__, torch=torch.__version__,
               threads=torch.get_num_threads(), attn=model.config._attn_implementation,
               params=sum(p.numel() for p in model.parameters()), seconds={}, check={},
               fused_qkv=sum(type(m).__name__ == "QKVPart" for m in model.modules()) // 3)   # sites (ours: after pruning)
    with torch.inference_mode():
        for b in (int(x) for x in args.batches.split(",")):
            ids = inputs[f"ids_{b}"]
            rec["seconds"][str(b)] = time_batch(model, ids, args.repeats, args.min_seconds)
            out = model(input_ids=ids[:1], attention_mask=torch.ones_like(ids[:1])).last_hidden_state
            rec["check"][str(b)] = out[0, :4, :4].flatten().tolist()
    rec["median_seconds"] = {b: statistics.median(s) for b, s in rec["seconds"].items()}
    return rec


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", choices=sorted(SIDES), required=True)
    ap.add_argument("--model", required=True, help="folder with config.json, model.safetensors, inputs.safetensors")
    ap.add_argument("--drop", default="", help='heads to remove, JSON {"layer": [head, ...]}; empty: the original model')
    ap.add_argument("--batches", default="1,16,64")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--min-seconds", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    return ap


def main(argv=None) -> int:
    print(json.dumps(run(parser().parse_args(argv))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
