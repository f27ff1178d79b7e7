"""The timing server of one side of the peer benchmark (tools/peer_bench.py starts one per side).

Loads the BERT encoder that peer_bench saved (config.json + model.safetensors) once per variant of `--variants`
({"name": {"layer": [head, ...]}}, {} the original), removes those heads with the library of its side, prints one JSON
line describing the variants (versions, threads, parameters, fused Q/K/V sites, an output check per batch size), then
answers each line "VARIANT BATCH" on stdin with the seconds of one forward pass on the saved inputs (the first pass of
each pair untimed), and each line "profile VARIANT BATCH" with where one pass spends its time (torch.profiler: the
operators with the most self CPU time), until "quit". Runs under our Python (`--side ours`: headprune_nb's `prune_heads`) or under the
peer's virtualenv (`--side hf4`: transformers 4's `model.prune_heads(dict)`), so it imports nothing of headprune_nb on
the peer's side. Two servers let peer_bench alternate single passes of ours and theirs: the machine's slow drift (its
speed wanders by 10-30% over minutes here) falls on both sides of a pair, not on one side of a process-long round.

    printf '0 16\nquit\n' | python tools/peer_worker.py --side ours --model DIR --variants '{"0": {}, "0.5": {"0": [1, 5]}}'
"""
import argparse, json, sys, time
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


def describe(side: str, model, inputs, batches) -> dict:
    "A variant's record without timings: versions, threads, attention, parameters, fused Q/K/V sites, and output checks."
    import torch, transformers
    rec = dict(side=side, transformers=transformers.__version__, torch=torch.__version__, threads=torch.get_num_threads(),
               attn=model.config._attn_implementation, params=sum(p.numel() for p in model.parameters()), check={},
               fused_qkv=sum(type(m).__name__ == "QKVPart" for m in model.modules()) // 3)   # sites (ours: after pruning)
    with torch.inference_mode():
        for b in batches:
            ids = inputs[f"ids_{b}"][:1]
            rec["check"][str(b)] = model(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state[0, :4, :4].flatten().tolist()
    return rec


def profile(model, ids, mask, top: int = 8) -> dict:
    "One pass under torch.profiler: its total self CPU ms and the `top` operators by self CPU ms ([name, ms, calls])."
    import torch
    from torch.profiler import profile as prof, ProfilerActivity
    with prof(activities=[ProfilerActivity.CPU]) as p: model(input_ids=ids, attention_mask=mask)
    ops = sorted(p.key_averages(), key=lambda e: -e.self_cpu_time_total)
    return dict(total_ms=round(sum(e.self_cpu_time_total for e in ops) / 1e3, 2),
                top=[[e.key, round(e.self_cpu_time_total / 1e3, 2), e.count] for e in ops[:top]])


def serve(args) -> int:
    "Load every variant once, describe them (one JSON line), then time one forward pass per request line."
    import torch
    from safetensors.torch import load_file
    if args.threads: torch.set_num_threads(args.threads)
    variants, inputs = json.loads(args.variants), load_file(str(Path(args.model) / "inputs.safetensors"))
    batches = [int(x) for x in args.batches.split(",")]
    models = {}
    for v, drop in variants.items():
        models[v] = load(Path(args.model))
        if drop: SIDES[args.side](models[v], drop)
    print(json.dumps({v: describe(args.side, m, inputs, batches) for v, m in models.items()}), flush=True)
    warm = set()
    with torch.inference_mode():
        for line in sys.stdin:
            if line.strip() == "quit": break
            *prof, v, b = line.split(); ids = inputs[f"ids_{b}"]; mask = torch.ones_like(ids)
            if prof: print(json.dumps(profile(models[v], ids, mask)), flush=True); continue
            if (v, b) not in warm: models[v](input_ids=ids, attention_mask=mask); warm.add((v, b))   # the first pass: not timed
            t0 = time.perf_counter(); models[v](input_ids=ids, attention_mask=mask)
            print(json.dumps(time.perf_counter() - t0), flush=True)
    return 0


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", choices=sorted(SIDES), required=True)
    ap.add_argument("--model", required=True, help="folder with config.json, model.safetensors, inputs.safetensors")
    ap.add_argument("--batches", default="1,16,64")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    ap.add_argument("--variants", default='{"0": {}}', help='{"name": {"layer": [head, ...]}, ...}; {} is the original model')
    return ap


def main(argv=None) -> int:
    return serve(parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
