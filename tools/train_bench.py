"""Training steps/s of the cpu recipes under each candidate setting, against today's fp32 (a benchmark, not a test).

For each cpu recipe (MiniLM-L6 on SST-2, RTE and the MNLI proxy; the Multi30k Enc-Dec) it builds the model and the
recipe's own first training batches (bucketed by length, as the recipe trains), then times training steps (forward,
loss, backward, clipping, AdamW step, as `train.train` does them) under each setting, in rounds: each round runs every
setting on the same batches, the order reversed every other round (ABBA), so a drift of the machine's speed hits every
setting alike. A setting's speed-up is the geometric mean of its per-round time ratios to fp32 at 2 threads, with a
95% t interval over the rounds (`bench.ratio_interval`); the load on the machine is read beside every round
(`bench.LoadMonitor`). Settings: precision (fp32, bf16 autocast), torch.compile (inductor, dynamic shapes), and torch
threads (2, 1: one worker per core, as `--executor cores` runs them, is twice the 1-thread rate).

    python tools/train_bench.py                          # every recipe -> reproduce/train_bench.csv
    python tools/train_bench.py --recipes sst2 --rounds 4 --steps 8
    python tools/train_bench.py --settings fp32 bf16     # leave out compile (its first steps compile for minutes)

What a setting does to the metric takes training the recipes: `--metric` sets each committed baseline's metric at bf16
(reproduce/results/cpu/baselines/bf16/<task>-seed<s>) beside the committed fp32 seeds' (baselines/, baselines/seeds/),
with each precision's mean and seed spread, into reproduce/train_bench_metric.csv.

    python tools/train_bench.py --metric
"""
import argparse, csv, math, os, platform, subprocess, sys, time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "reproduce" / "train_bench.csv"
SETTINGS = {"fp32": ("fp32", False, 2), "bf16": ("bf16", False, 2), "fp32-1t": ("fp32", False, 1),
            "bf16-1t": ("bf16", False, 1), "fp32-compile": ("fp32", True, 2), "bf16-compile": ("bf16", True, 2)}
RECIPES = ("sst2", "rte", "mnli_proxy", "multi30k")


def recipe_batches(task: str, n: int) -> tuple:
    "(model, `n` training batches spread evenly over the cpu recipe's epoch 0 (its lengths), label smoothing, clip norm)."
    spread = lambda bs: [bs[round(i * (len(bs) - 1) / max(1, n - 1))] for i in range(min(n, len(bs)))]
    from headprune_nb import recipes
    r = recipes.find_recipe("cpu", task)
    if isinstance(r, recipes.MtRecipe):
        from headprune_nb.data import Vocab
        data = recipes.translation_data(r.corpus, 0)
        vocab = Vocab.build(data["train"][0] + data["train"][1])
        return recipes.mt_model(r, vocab, 0), spread(recipes.mt_batches(r, data, vocab, 0)(0)), r.label_smoothing, None
    data = recipes.cls_data(r, 0)
    model, tok = recipes.cls_model(r, data, 0)
    for name, p in model.named_parameters():
        if any(f in name for f in r.freeze): p.requires_grad_(False)
    return model, spread(recipes._cls_batches(tok, data["train"], r.batch_size, r.max_len, True)(0)), 0.0, 1.0


def stepper(model, precision: str, compiled: bool, smoothing: float, clip):
    "A function of a batch that takes one training step of a copy of `model` (its own AdamW) at this setting."
    import copy
    import torch
    from headprune_nb.train import autocast, task_loss
    m = copy.deepcopy(model).train()
    params = [p for p in m.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5)
    run = torch.compile(m, dynamic=True) if compiled else m

    def step(batch):
        with autocast(precision, "cpu"):
            loss = task_loss(run, batch, smoothing)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if clip: torch.nn.utils.clip_grad_norm_(params, clip)
        opt.step()
    return step


def time_steps(step, batches, threads: int) -> float:
    "Seconds to take one step on each of `batches`."
    import torch
    torch.set_num_threads(threads)
    t0 = time.perf_counter()
    for b in batches: step(b)
    return time.perf_counter() - t0


def bench_recipe(task: str, settings: list, rounds: int, steps: int) -> list[dict]:
    "One row per setting: median seconds per step, the speed-up over fp32 with its interval, the load meanwhile."
    from headprune_nb.bench import LoadMonitor, ratio_interval
    model, batches, smoothing, clip = recipe_batches(task, steps)
    steppers = {s: stepper(model, SETTINGS[s][0], SETTINGS[s][1], smoothing, clip) for s in settings}
    for s in settings:                                           # warm-up (compiles): each setting's every shape once
        time_steps(steppers[s], batches, SETTINGS[s][2])
    seconds, loads = {s: [] for s in settings}, []
    for r in range(rounds):
        with LoadMonitor(f"round {r} of {task}", warn=False) as load:
            for s in (settings if r % 2 == 0 else settings[::-1]):
                seconds[s].append(time_steps(steppers[s], batches, SETTINGS[s][2]))
        loads.append(load.record)
        print(f"{task} round {r + 1}/{rounds}: " + ", ".join(f"{s} {seconds[s][-1] / steps:.3f} s/step" for s in settings)
              + f" (other cores busy {load.record['other_cores']})", flush=True)
    rows = []
    for s in settings:
        est, lo, hi = ratio_interval(seconds["fp32"], seconds[s])
        rows.append(dict(recipe=task, setting=s, precision=SETTINGS[s][0], compiled=SETTINGS[s][1],
                         threads=SETTINGS[s][2], steps_per_round=steps, rounds=rounds,
                         s_per_step=round(sorted(seconds[s])[rounds // 2] / steps, 4), speedup=round(est, 3),
                         speedup_low=round(lo, 3), speedup_high=round(hi, 3),
                         other_cores_max=max((x["other_cores"] or 0) for x in loads),
                         competing=any(x["competing"] for x in loads)))
    return rows


def machine() -> str:
    "CPU model and core count."
    name = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                 if line.startswith("model name")), platform.processor())
    return f"{name}, {os.cpu_count()} cores"


def metric_rows() -> list[dict]:
    "Each committed cpu baseline's metric by task, precision and seed, then each (task, precision)'s mean and seed sd."
    import statistics
    from headprune_nb.store import read_csv
    base = ROOT / "reproduce" / "results" / "cpu" / "baselines"
    found = [("fp32", base / "baselines.csv")] + [("fp32", p) for p in sorted(base.glob("seeds/*/baselines.csv"))] \
        + [("bf16", p) for p in sorted(base.glob("bf16/*/baselines.csv"))]
    rows = []
    for prec, path in found:
        seed = int(path.parent.name.rsplit("seed", 1)[1]) if "seed" in path.parent.name else 0
        rows += [dict(task=r["task"], precision=prec, seed=seed, metric=r["metric"], value=r["value"],
                      train_seconds=r["train_seconds"]) for r in read_csv(path)]
    out = sorted(rows, key=lambda r: (r["task"], r["precision"], r["seed"]))
    for (t, p) in sorted({(r["task"], r["precision"]) for r in rows}):
        v = [float(r["value"]) for r in rows if (r["task"], r["precision"]) == (t, p)]
        out.append(dict(task=t, precision=p, seed="mean", metric="", value=round(statistics.mean(v), 2),
                        train_seconds=f"sd {statistics.stdev(v):.2f} over {len(v)} seeds" if len(v) > 1 else "one seed"))
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--recipes", nargs="+", default=list(RECIPES), choices=RECIPES)
    p.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--steps", type=int, default=12, help="training steps per setting per round")
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--metric", action="store_true", help="the committed baselines' metric at bf16 beside fp32 instead")
    a = p.parse_args(argv)
    if a.metric:
        from headprune_nb.store import write_csv
        rows = metric_rows()
        write_csv(OUT.with_name("train_bench_metric.csv"), rows)
        for r in rows: print(f"{r['task']:>10} {r['precision']} seed {r['seed']}: {r['value']} ({r['train_seconds']})")
        return
    if a.rounds < 2 or a.steps < 1: p.error("--rounds must be at least 2 (an interval) and --steps at least 1")
    if "fp32" not in a.settings: a.settings.insert(0, "fp32")
    if not os.environ.get("HEADPRUNE_DATA_DIR"): p.error("set HEADPRUNE_DATA_DIR to the offline data (GLUE, Multi30k)")
    import torch
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    stamp = dict(commit=commit, torch=torch.__version__, machine=machine(),
                 date=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                 command="python tools/train_bench.py " + " ".join(sys.argv[1:] if argv is None else argv))
    rows = [dict(r, **stamp) for t in a.recipes for r in bench_recipe(t, a.settings, a.rounds, a.steps)]
    old = [r for r in csv.DictReader(open(a.out))] if a.out.exists() else []
    keep = [r for r in old if (r["recipe"], r["setting"]) not in {(x["recipe"], x["setting"]) for x in rows}]
    tmp = a.out.with_suffix(".tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(keep + rows)
    tmp.replace(a.out)
    for r in rows:
        print(f"{r['recipe']:>10} {r['setting']:>13}: {r['s_per_step']:.3f} s/step, x{r['speedup']:.2f} "
              f"[{r['speedup_low']:.2f}, {r['speedup_high']:.2f}]" + (" (competing work)" if r["competing"] else ""))


if __name__ == "__main__":
    main()
