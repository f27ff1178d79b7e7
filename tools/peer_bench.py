"""Faster than the peers, in one command: our pruned models against a peer library's, timed in one run (issue 42).

`--peer hf4`: bert-base shapes (random weights saved once as safetensors, loaded by both sides), sequence 128, the
same heads removed (each share of every layer's heads, the same ids on both sides: ours `prune_heads`, which
also runs each site's Q/K/V as one matmul; theirs transformers 4's `model.prune_heads(dict)`), batch 1, 16, 64,
examples/s of the original and the pruned model. Each side runs one timing server (tools/peer_worker.py) holding every
variant; single forward passes of ours and theirs alternate (ABBA, pass by pass), so the machine's drift falls on both
sides of a pair; a round is every batch size and variant once (at least --repeats pairs and --min-seconds per side),
under `bench.LoadMonitor`. The peer runs in its own virtualenv ($HEADPRUNE_CACHE/peers/hf4: created once, reused) with
transformers < 5 and the same torch build as ours. Each ratio gets a 95% t interval over the rounds. The goals:
3a the speed-up that pruning buys (same library) ours above theirs (interval of the difference above 0) and at least
90% of the FLOP-ideal gain at batch >= 16; 3b our pruned model faster than theirs (interval of the ratio above 1).
A goal missed says by how much. Written as PEER.csv and PEER.json (provenance) under --out.
`--peer fairseq`: part B, tools/peer_fairseq.py. `--peer self`: ours against ours, both servers under this Python (the plumbing).

    python tools/peer_bench.py --peer hf4                           # the real run (about 12 min on 2 idle cores)
    python tools/peer_bench.py --peer hf4 --rounds 2 --batches 1 --shape tiny --out /tmp/pb   # a quick look
"""
import argparse, json, math, os, shlex, statistics, subprocess, sys, time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKER = Path(__file__).resolve().parent / "peer_worker.py"
HF4_SPEC = "transformers==4.57.6"          # the last transformers with `PreTrainedModel.prune_heads`
SHAPES = {"bert-base": dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
                            vocab_size=30522),
          "tiny": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, vocab_size=1000)}
IDEAL_SHARE, IDEAL_FROM_BATCH = 0.9, 16    # goal 3a's second half: >= 90% of the FLOP-ideal gain at batch >= 16


@dataclass
class Peer:
    "A library we time against: the worker side that prunes with it, and how to get a Python that has it."
    name: str
    side: str
    packages: tuple = ()          # pip specs for its own virtualenv; () with `this_python`: no venv

    this_python: bool = False      # its server runs under this Python

    def python(self) -> str:
        "The interpreter its server runs under (its venv, prepared once)."
        return sys.executable if self.this_python else prepare_venv(self.name, self.packages)


PEERS = {"hf4": Peer("hf4", "hf4", (HF4_SPEC, "safetensors")), "self": Peer("self", "ours", this_python=True)}


def prepare_venv(name: str, *installs, check: str | None = None) -> str:
    """The peer's virtualenv under $HEADPRUNE_CACHE/peers/NAME: our torch build, then each of `installs` (pip arguments),
    then `check` (Python code that must run there); made once (locked; a half-made one is made again), reused."""
    import torch
    from headprune_nb.recipes import cache_dir
    from headprune_nb.store import folder_lock, write_atomic
    folder = cache_dir() / "peers" / name
    want = json.dumps(dict(torch=torch.__version__, installs=[list(i) for i in installs], check=check))
    py = folder / "venv" / "bin" / "python"
    with folder_lock(folder, wait=True):
        ready = folder / "ready.json"
        if ready.exists() and ready.read_text() == want and py.exists(): return str(py)
        print(f"peer {name}: preparing its virtualenv in {folder / 'venv'} (once; a few minutes)", file=sys.stderr, flush=True)
        ready.unlink(missing_ok=True)
        steps = [[sys.executable, "-m", "venv", "--clear", str(folder / "venv")],
                 [str(py), str(ROOT / "tools" / "install_torch.py"), f"torch=={torch.__version__.split('+')[0]}"],
                 *[[str(py), "-m", "pip", "install", "-q", *i] for i in installs], *([[str(py), "-c", check]] if check else [])]
        for cmd in steps:
            if subprocess.run(cmd).returncode:
                sys.exit(f"peer {name}: `{shlex.join(cmd)}` failed; see above (a network or disk problem?), then run again")
        write_atomic(ready, want)
    return str(py)


def make_model(folder: Path, shape: str, batches, seq: int, seed: int) -> None:
    "Random bert weights (`shape`) and token ids for each batch size, saved once in `folder` for both sides."
    import torch, transformers
    from safetensors.torch import save_file, save_model
    from headprune_nb.store import write_json
    cfg = dict(SHAPES[shape], max_position_embeddings=max(512, seq), hidden_dropout_prob=0.0,
               attention_probs_dropout_prob=0.0)
    torch.manual_seed(seed)
    model = transformers.BertModel(transformers.BertConfig(**cfg), add_pooling_layer=False)
    folder.mkdir(parents=True, exist_ok=True)
    save_model(model, str(folder / "model.safetensors"))
    g = torch.Generator().manual_seed(seed)
    save_file({f"ids_{b}": torch.randint(3, cfg["vocab_size"], (b, seq), generator=g) for b in batches},
              str(folder / "inputs.safetensors"))
    write_json(folder / "config.json", cfg)


def drop_heads(shape: str, share: float, seed: int) -> dict:
    "The heads to remove: round(share * heads) of every layer's, random ids per layer (the same for both sides)."
    import torch
    s = SHAPES[shape]; n = s["num_attention_heads"]; k = round(share * n)
    return {str(l): sorted(torch.randperm(n, generator=torch.Generator().manual_seed(seed + l))[:k].tolist())
            for l in range(s["num_hidden_layers"])}


def ideal_speedup(folder: Path, drop: dict) -> float:
    "FLOP-ideal speed-up of removing `drop` (our pruned model's FLOPs at batch 1 against the original's)."
    import torch
    from safetensors.torch import load_file
    from headprune_nb.bench import forward_flops
    w = worker_module()
    model = w.load(folder)
    ids = next(iter(load_file(str(folder / "inputs.safetensors")).values()))[:1]
    batch = dict(input_ids=ids, attention_mask=torch.ones_like(ids))
    fo = forward_flops(model, batch); w.prune_ours(model, drop)
    return fo / forward_flops(model, batch)


def worker_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("peer_worker", WORKER)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod


class Server:
    "One side's timing server (tools/peer_worker.py), started once: `info` describes its variants, `time(v, b)` is one pass."
    def __init__(self, side: str, python: str, folder: Path, variants: dict, args):
        import tempfile
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} if python != sys.executable else None
        self.cmd = [python, str(WORKER), "--side", side, "--model", str(folder), "--variants", json.dumps(variants),
                    "--batches", ",".join(map(str, args.batches)), "--threads", str(args.threads)]
        self.err = tempfile.TemporaryFile("w+")            # a file, not a pipe: warnings cannot fill it and stall the server
        self.p = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True, env=env)
        self.info = json.loads(self._answer())

    def _ask(self, line: str) -> str:
        self.p.stdin.write(line + "\n"); self.p.stdin.flush()
        return self._answer()

    def _answer(self) -> str:
        line = self.p.stdout.readline()
        if not line:
            self.err.seek(0)
            sys.exit(f"the timing server failed (exit {self.p.wait()}): {shlex.join(self.cmd)}\n" + "\n".join(self.err.read().strip().splitlines()[-5:]))
        return line

    def profile(self, variant: str, batch: int) -> dict:
        "Where one pass spends its time (peer_worker's `profile`)."
        return json.loads(self._ask(f"profile {variant} {batch}"))

    def time(self, variant: str, batch: int) -> float:
        return float(self._ask(f"{variant} {batch}"))

    def close(self) -> None:
        try: self.p.stdin.write("quit\n"); self.p.stdin.close(); self.p.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired): self.p.kill()
        self.err.close()


# ---- statistics over rounds ------------------------------------------------------------------------------------------
def verdict(lo: float, hi: float, threshold: float) -> str:
    "met: the interval lies above `threshold`; missed: below it; else inconclusive."
    return "met" if lo > threshold else "missed" if hi < threshold else "inconclusive"


def row_for(eps: dict, b: str, share: float, ideal: float, ours: str, theirs: str) -> dict:
    "One batch size and share: examples/s, the speed-ups and ratios with their intervals, the goals and their gaps."
    from headprune_nb.bench import mean_interval, ratio_interval
    o0, o1, t0, t1 = (eps[s][v][b] for s, v in ((ours, "0"), (ours, str(share)), (theirs, "0"), (theirs, str(share))))
    s_o, s_t = ratio_interval(o1, o0), ratio_interval(t1, t0)
    diff = mean_interval([100 * (a / c - b_ / d) for a, c, b_, d in zip(o1, o0, t1, t0)])
    gain = mean_interval([(a / c - 1) / (ideal - 1) for a, c in zip(o1, o0)])
    pruned, orig = ratio_interval(o1, t1), ratio_interval(o0, t0)
    row = dict(batch_size=int(b), heads_removed_pct=round(100 * share), rounds=len(o0),
               ours_original_eps=statistics.median(o0), ours_pruned_eps=statistics.median(o1),
               peer_original_eps=statistics.median(t0), peer_pruned_eps=statistics.median(t1),
               ideal_speedup_pct=100 * (ideal - 1))
    for name, (e, lo, hi), scale in (("ours_speedup_pct", s_o, 100), ("peer_speedup_pct", s_t, 100),
                                     ("speedup_diff_pts", diff, None), ("ours_share_of_ideal_gain", gain, None),
                                     ("pruned_ratio", pruned, None), ("original_ratio", orig, None)):
        f = (lambda v: 100 * (v - 1)) if scale else (lambda v: v)
        row.update({name: f(e), f"{name}_low": f(lo), f"{name}_high": f(hi)})
    row["goal_3a_speedup"] = verdict(diff[1], diff[2], 0.0)
    row["goal_3a_ideal"] = verdict(gain[1], gain[2], IDEAL_SHARE) if int(b) >= IDEAL_FROM_BATCH else "n/a"
    row["goal_3b_pruned"] = verdict(pruned[1], pruned[2], 1.0)
    gaps = [f"3a speed-up {diff[0]:+.1f} [{diff[1]:+.1f}, {diff[2]:+.1f}] pts vs the peer's" * (row["goal_3a_speedup"] != "met"),
            f"3a {100 * gain[0]:.0f}% [{100 * gain[1]:.0f}, {100 * gain[2]:.0f}] of the ideal gain (goal >= {100 * IDEAL_SHARE:.0f}%)" * (row["goal_3a_ideal"] not in ("met", "n/a")),
            f"3b pruned ours/peer {pruned[0]:.3f} [{pruned[1]:.3f}, {pruned[2]:.3f}]" * (row["goal_3b_pruned"] != "met")]
    row["gap"] = "; ".join(g for g in gaps if g)
    return row


# ---- the run ------------------------------------------------------------------------------------------------------
def parse_list(text: str, kind, what: str, ok) -> list:
    try: xs = [kind(x) for x in text.split(",") if x.strip()]
    except ValueError: xs = []
    if not xs or not all(ok(x) for x in xs): raise SystemExit(f"--{what} {text!r}: expected a comma-separated list ({ok.__doc__})")
    return xs


def positive(x): "positive numbers"; return x > 0
def share(x): "shares of heads removed, each in (0, 1)"; return 0 < x < 1


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", required=True, help="hf4 (transformers 4's prune_heads), fairseq (Enc-Dec decoding), "
                    "self (ours against ours, two servers of this Python: a plumbing check)")
    ap.add_argument("--rounds", type=int, default=10, help="rounds (each: every batch size and variant, passes of both sides alternated)")
    ap.add_argument("--batches", default="1,16,64")
    ap.add_argument("--shares", default="0.5,0.75", help="shares of every layer's heads removed")
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=1, help="timed passes per side, batch size and variant in a round (at least)")
    ap.add_argument("--min-seconds", type=float, default=0.5, help="and at least this long (at most 50 passes)")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="bert-base")
    ap.add_argument("--threads", type=int, default=0, help="torch threads in each timing server (0: torch's default)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep-going", action="store_true", help="time on when other work competes (the rows say so)")
    ap.add_argument("--out", default=None, help="folder for PEER.csv and PEER.json (default: reproduce/results/cpu/peer_bench)")
    return ap


def check_args(args) -> None:
    "Bad input: one line naming it (exit 2)."
    if args.peer not in PEERS: raise SystemExit(f"--peer {args.peer!r}: choose hf4, fairseq or self")
    if args.rounds < 2: raise SystemExit(f"--rounds {args.rounds}: need at least 2 for an interval")
    if args.seq < 1 or args.repeats < 1: raise SystemExit("--seq and --repeats must be >= 1")
    args.batches = parse_list(args.batches, int, "batches", positive)
    args.shares = parse_list(args.shares, float, "shares", share)


def timed_round(r: int, servers: dict, variants, args) -> dict:
    """One round: for each batch size and variant, pairs of single passes, one per side, the side that goes first
    alternating pair by pair (ABBA), until each side has `repeats` passes and `min_seconds`; {(side, variant): {batch: seconds}}."""
    names, out, i = list(servers), {}, r
    for b in args.batches:
        for v in variants:
            got = {n: out.setdefault((n, v), {}).setdefault(str(b), []) for n in names}
            while min(map(len, got.values())) < args.repeats or (min(map(sum, got.values())) < args.min_seconds and len(got[names[0]]) < 50):
                for n in (names if i % 2 == 0 else names[::-1]): got[n].append(servers[n].time(v, b))
                i += 1
    return out


GEMM_OPS = ("aten::addmm", "aten::mm", "aten::bmm", "aten::baddbmm", "aten::_scaled_dot_product_flash_attention_for_cpu")

def gemm_shares(profiles: dict) -> dict:
    "{side|variant|batch: share of a pass's self CPU time in matrix products (GEMMs and the fused attention kernel)}."
    return {k: round(sum(ms for name, ms, _ in p["top"] if name in GEMM_OPS) / p["total_ms"], 3) if p["total_ms"] else None
            for k, p in profiles.items()}


def summarise(records: list[dict], info: dict, batches, shares, ideals: dict, peer: str) -> tuple[list[dict], dict]:
    "Rows (one per batch and share) from the rounds' records, and whether both sides computed the same outputs."
    eps = {s: {v: {str(b): [b / statistics.median(rec[s, v][str(b)]) for rec in records] for b in batches}
               for v in ["0", *map(str, shares)]} for s in ("ours", peer)}
    agree = {v: max(abs(a - c) for b in batches for a, c in zip(info["ours"][v]["check"][str(b)], info[peer][v]["check"][str(b)]))
             for v in ["0", *map(str, shares)]}
    rows = [dict(row_for(eps, str(b), sh, ideals[str(sh)], "ours", peer), max_abs_output_diff=agree[str(sh)])
            for sh in shares for b in batches]
    return rows, agree


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    which, rest = argparse.ArgumentParser(add_help=False), None
    which.add_argument("--peer")
    known, rest = which.parse_known_args(argv)
    if known.peer == "fairseq":                    # part B: its own options; it gets every argument but --peer
        sys.path.insert(0, str(WORKER.parent))
        try: from peer_fairseq import main as fairseq_main
        except ImportError:
            print("--peer fairseq: tools/peer_fairseq.py is not here yet (issue 42 part B)", file=sys.stderr); return 2
        return fairseq_main(rest)
    args = parser().parse_args(argv)
    try: check_args(args)
    except SystemExit as e: print(e, file=sys.stderr); return 2
    import tempfile
    from headprune_nb.bench import LoadMonitor
    from headprune_nb.store import provenance, write_csv, write_json, utc_now
    peer = PEERS[args.peer]
    out = Path(args.out) if args.out else ROOT / "reproduce" / "results" / "cpu" / "peer_bench"
    prov = provenance("cpu", args.seed, {k: v for k, v in vars(args).items() if k not in ("out",)},
                      command=os.environ.get("HEADPRUNE_COMMAND") or shlex.join(["python", "tools/peer_bench.py", *argv]))
    python = peer.python()
    t0, records, loads, stopped = time.time(), [], [], None
    with tempfile.TemporaryDirectory(prefix="peer-bench-") as d:
        folder = Path(d)
        make_model(folder, args.shape, args.batches, args.seq, args.seed)
        variants = {"0": {}, **{str(s): drop_heads(args.shape, s, args.seed) for s in args.shares}}
        ideals = {v: ideal_speedup(folder, drop) for v, drop in variants.items() if v != "0"}
        print(f"starting the timing servers (ours, {peer.name}): {len(variants)} models each", file=sys.stderr, flush=True)
        servers = {"ours": Server("ours", sys.executable, folder, variants, args)}
        try:
            servers[peer.name] = Server(peer.side, python, folder, variants, args)
            info = {n: sv.info for n, sv in servers.items()}
            for r in range(args.rounds):
                print(f"round {r + 1}/{args.rounds}: {len(variants)} models x 2 sides ...", file=sys.stderr, flush=True)
                with LoadMonitor(f"round {r + 1}", warn=False, pids=[sv.p.pid for sv in servers.values()]) as mon:
                    records.append(timed_round(r, servers, variants, args))
                loads.append(mon.record)
                if mon.record["competing"] and not args.keep_going and r + 1 < args.rounds:
                    stopped = (f"stopped after round {r + 1} of {args.rounds}: other work competes for the cores "
                               f"({mon.record['other_cores']} cores busy elsewhere, steal {mon.record['steal_pct']}%); re-run on idle cores")
                    print(stopped, file=sys.stderr, flush=True); break
            top = str(max(args.shares))                  # why the ratios are what they are: each side's operators, one pass each
            profiles = {f"{n}|{v}|{b}": sv.profile(v, b) for v in ("0", top) for b in args.batches for n, sv in servers.items()}
        finally:
            for sv in servers.values(): sv.close()
    if len(records) < 2:
        print("fewer than 2 rounds were timed: no interval; nothing written", file=sys.stderr); return 1
    rows, agree = summarise(records, info, args.batches, args.shares, ideals, peer.name)
    comp = any(l["competing"] for l in loads)
    for row in rows: row.update(other_cores_max=max((l["other_cores"] or 0) for l in loads), competing=comp, stopped=bool(stopped))
    ours, theirs = info["ours"], info[peer.name]          # each side's description of its variants
    prov.update(peer=peer.name, peer_transformers=theirs["0"]["transformers"], peer_torch=theirs["0"]["torch"],
                ours_torch=ours["0"]["torch"], threads=ours["0"]["threads"], attn=dict(ours=ours["0"]["attn"], peer=theirs["0"]["attn"]),
                params={**prov["params"], "heads_removed": variants},
                params_pruned={v: dict(ours=ours[v]["params"], peer=theirs[v]["params"]) for v in variants},
                fused_qkv_sites={v: dict(ours=ours[v]["fused_qkv"], peer=theirs[v]["fused_qkv"]) for v in variants},
                max_abs_output_diff=agree, load=loads, profiles=profiles, gemm_share=gemm_shares(profiles), stopped=stopped, finished_utc=utc_now(),
                wall_seconds=round(time.time() - t0, 1),
                timings=[{f"{s}|{v}": rec[s, v] for s, v in rec} for rec in records])
    write_csv(out / f"{peer.name}.csv", rows)
    write_json(out / f"{peer.name}.json", prov)
    for row in rows:
        print(f"batch {row['batch_size']:>3}, {row['heads_removed_pct']}% removed: pruned ours/peer {row['pruned_ratio']:.3f} "
              f"[{row['pruned_ratio_low']:.3f}, {row['pruned_ratio_high']:.3f}], speed-up ours {row['ours_speedup_pct']:+.1f}% "
              f"peer {row['peer_speedup_pct']:+.1f}%, ideal {row['ideal_speedup_pct']:+.1f}%; 3a {row['goal_3a_speedup']}, "
              f"ideal {row['goal_3a_ideal']}, 3b {row['goal_3b_pruned']}" + (f" ({row['gap']})" if row["gap"] else ""))
    if max(agree.values()) > 1e-3:
        print(f"warning: ours and the peer's outputs differ by up to {max(agree.values()):.2g}: not the same model", file=sys.stderr)
    if comp: print("warning: other work competed during the timing: its numbers measure the machine too", file=sys.stderr)
    print(f"wrote {out / (peer.name + '.csv')} and {peer.name}.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
