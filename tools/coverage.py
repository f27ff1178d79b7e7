"""Coverage study of the claims' intervals (nbs/93_verdicts): for every statistic form the claims use, on every kind of
metric they use it with and at 2 (smooth forms only), 3 and 6 seeds, the share of simulated experiments whose 95%
interval covers the true value, under no seed effect, a dominant seed effect and equal systems. Metrics: accuracy (0/1
per example), heavy-tailed per-example scores (Student t with 3 df), corpus BLEU (a ratio of sums of n-gram counts),
whole-number counts per seed (`verdicts.per_seed`), perplexity ratios on the log scale (`verdicts.ratio`), and timings
(`bench.speedup_interval`).

Writes reproduce/coverage.csv (a row per cell: form, metric, seeds, scenario, used, runs, coverage, CPU seconds) and
reproduce/coverage.json (its provenance: each run's command, commit, machine, nice, start, cells, wall and CPU seconds;
a run of every cell starts the list, a run of some cells adds to it);
nbs/93_verdicts' test reads the table (every form in use within 93-98%, up to two Monte Carlo sd).

    nice -n 15 python tools/coverage.py                      # every cell, 700 runs (2,800 for smooth forms): the table
    python tools/coverage.py --reps 100 --metric counts      # only these cells, fewer runs; the other rows kept
    python tools/coverage.py --part 0/2 --out a.csv          # cells 0, 2, 4, ... (each cell has its own generator)
    python tools/coverage.py --merge a.csv b.csv             # the parts' cells (and provenance) into the table

`--form`, `--metric`, `--seeds` (each repeatable) pick cells; rows of other cells are kept from `--out`.
"""
import argparse, csv, json, math, os, platform, shlex, subprocess, sys, time
from dataclasses import dataclass
from pathlib import Path
import numpy as np
from headprune_nb.runs import Sample
from headprune_nb.bench import speedup_interval
from headprune_nb.verdicts import evidence, lowest, highest, nth_best, per_seed, ratio, Stat, MIN_JOINT

ROOT = Path(__file__).resolve().parents[1]
N, B = 300, 200                        # shared evaluation examples, bootstrap resamples (they only estimate a variance)
SEEDS = (2, 3, 6)
SCENARIOS = ("no seed effect", "dominant seed effect", "equal systems")
SMOOTH_RUNS = 4                        # smooth forms are fast: 4 times the runs (Monte Carlo sd 0.4 points)
erf = np.vectorize(math.erf)
normal_cdf = lambda x: 0.5 * (1 + erf(np.asarray(x, float) / math.sqrt(2)))
gauss = lambda n: (lambda x, w: (x, w / w.sum()))(*np.polynomial.hermite_e.hermegauss(n))   # E[g(Z)] = sum w g(x)


class Mean:
    "Per-example scores whose mean is the metric (points)."
    def __init__(self, x): self.x = np.asarray(x, float)
    def __len__(self): return len(self.x)
    def score(self, w=None): return float(self.x.mean()) if w is None else (w @ self.x) / len(self.x)


class Ppl:
    "Per-text summed negative log-likelihoods and token counts: perplexity exp(sum nll / sum tokens), a ratio of sums."
    def __init__(self, nll, tokens): self.nll, self.tokens = np.asarray(nll, float), np.asarray(tokens, float)
    def __len__(self): return len(self.nll)
    def score(self, w=None):
        if w is None: return float(np.exp(self.nll.sum() / self.tokens.sum()))
        return np.exp((w @ self.nll) / (w @ self.tokens))


@dataclass(frozen=True)
class Metric:
    "A kind of metric's simulation: `draw(rng, mus, tau, S)` -> runs; `truth(mus, tau)` -> each system's true metric."
    draw: object
    truth: object
    taus: tuple                        # seed-effect sd in the three scenarios (no seed effect, dominant, equal systems)
    equal: float                       # every system's parameter in the equal-systems scenario


def accuracy(rng, mus, tau, S, shared=0.5):
    "Per seed {system: Sample}: a seed's true accuracy is mu + N(0, tau^2); an example drawn alike with prob `shared`."
    u0 = rng.random(N)
    draw = lambda mu: np.where(rng.random(N) < shared, u0, rng.random(N)) < (mu + rng.normal(0, tau)) / 100
    return [{k: Sample("accuracy", draw(mu).astype(np.int8)) for k, mu in mus.items()} for _ in range(S)]


def heavy(rng, mus, tau, S):
    "Scores mu + seed effect + example effect (shared) + interaction, both Student t with 3 df (sd 10 and 15 points)."
    t3 = lambda sd, size: sd * rng.standard_t(3, size) / math.sqrt(3)
    b = t3(10, N)
    return [{k: Mean(mu + rng.normal(0, tau) + b + t3(15, N)) for k, mu in mus.items()} for _ in range(S)]


BLEU_SD = 1.1                          # sd of a sentence's logit quality (its difficulty, shared, and its own part)
LENGTHS = np.arange(1, 5)


def bleu(rng, mus, tau, S):
    "Corpus BLEU: sentence i of system k has unigram precision p = sigmoid(q_k + u + d_i + e), matches Bin(t_n, p^n)."
    r = 4 + rng.poisson(8, N)
    t = np.maximum(r[:, None] - LENGTHS + 1, 0)
    d = rng.normal(0, BLEU_SD / math.sqrt(2), N)
    def sample(q):
        p = 1 / (1 + np.exp(-(q + rng.normal(0, tau) + d + rng.normal(0, BLEU_SD / math.sqrt(2), N))))
        return Sample("bleu", np.column_stack([r, r, rng.binomial(t, p[:, None] ** LENGTHS), t]))
    return [{k: sample(q) for k, q in mus.items()} for _ in range(S)]


def bleu_truth(mus, tau):
    "Each system's BLEU on an unbounded corpus, averaged over seeds: 100 exp(mean_n log E[p^n]) (brevity penalty 1)."
    (z, wz), (u, wu) = gauss(60), gauss(40)
    def one(q):
        p = 1 / (1 + np.exp(-(q + tau * u[:, None] + BLEU_SD * z[None])))             # [seed effect, sentence]
        return float(wu @ (100 * np.exp(np.mean([np.log((p ** n) @ wz) for n in LENGTHS], axis=0))))
    return {k: one(q) for k, q in mus.items()}


def counts(rng, mus, tau, S):
    "Whole numbers per seed (heads a layer keeps): round(mu + N(0, tau^2)), as `per_seed` numbers (counts: step 1)."
    return per_seed([{k: float(np.round(mu + rng.normal(0, tau))) for k, mu in mus.items()} for _ in range(S)])


def counts_truth(mus, tau):
    "E round(mu + N(0, tau^2)): each whole number times its probability."
    k = np.arange(-40, 41)
    p = lambda mu: normal_cdf((k + 0.5 - mu) / tau) - normal_cdf((k - 0.5 - mu) / tau)
    return {name: float(k @ p(mu)) for name, mu in mus.items()}


def perplexity(rng, mus, tau, S):
    "Per text: 10 + Poisson(30) tokens, nll per token mu + seed effect + text effect + its own part (sd 0.4 each)."
    tok = 10 + rng.poisson(30, N)
    d = rng.normal(0, 0.4, N)
    draw = lambda mu: Ppl(tok * (mu + rng.normal(0, tau) + d + rng.normal(0, 0.4, N)), tok)
    return [{k: draw(mu) for k, mu in mus.items()} for _ in range(S)]


METRICS = {
    "accuracy": Metric(accuracy, lambda mus, tau: dict(mus), (0.0, 4.0, 1.0), 78.0),
    "t3 scores": Metric(heavy, lambda mus, tau: dict(mus), (0.0, 4.0, 1.0), 78.0),
    "BLEU": Metric(bleu, bleu_truth, (0.0, 0.25, 0.06), 1.0),
    "counts": Metric(counts, counts_truth, (0.75, 1.5, 1.0), 1.5),
    "perplexity": Metric(perplexity, lambda mus, tau: {k: math.exp(mu + tau ** 2 / 2) for k, mu in mus.items()},
                         (0.0, 0.6, 0.05), math.log(25)),
}
SCENARIO_WORDS = {"counts": ("ties common (spread 0.75 step)", "spread 1.5 steps", "equal systems (spread 1 step)")}

K2 = lambda m, f: [f(m, K) for K in (1, 2)]
RIVALS = dict(L1=80, L2=80, **{f"r{j}{K}": 77 - j for j in range(3) for K in (1, 2)})
GAPS = dict(ref=78, g1=79, g2=77.5)
ACC_FORMS = {   # form: (true accuracies unless equal, statistic)
    "difference": (dict(a=80, b=77), lambda m: m["a"] - m["b"]),
    "mean over K": (dict(a1=80, b1=78, a2=80, b2=76), lambda m: sum(K2(m, lambda m, K: m[f"a{K}"] - m[f"b{K}"])) / 2),
    "ratio": (dict(a=80, b=70), lambda m: 100 * m["a"] / m["b"]),
    "min over 2 K": (dict(a1=80, b1=78, a2=80, b2=76), lambda m: lowest(K2(m, lambda m, K: m[f"a{K}"] - m[f"b{K}"]))),
    "best of 3 rivals": (dict(L=80, r1=77, r2=76, r3=75), lambda m: m["L"] - highest([m["r1"], m["r2"], m["r3"]])),
    "min over 2 K of (leader - best of 3 rivals)": (
        RIVALS, lambda m: lowest(K2(m, lambda m, K: m[f"L{K}"] - highest([m[f"r{j}{K}"] for j in range(3)])))),
    "largest gap of 2 systems (equivalence)": (GAPS, lambda m: highest([m["g1"] - m["ref"], m["g2"] - m["ref"]])),
    "smallest gap of 2 systems (equivalence)": (GAPS, lambda m: lowest([m["g1"] - m["ref"], m["g2"] - m["ref"]])),
}
LATE = dict(u1=0.6, p1=0.45, u2=1.1, p2=0.95)           # michel2019_pruning: unpruned and pruned BLEU at two epochs
rel = lambda m, e: m[f"p{e}"] / m[f"u{e}"]
best = lambda m, p: highest([m[f"{p}{i}"] for i in (1, 2, 3)])   # the best of 3 rivals p1, p2, p3
BLEU_FORMS = {  # systems' logit quality (BLEU about 20-30)
    "difference": (dict(a=1.1, b=0.9), lambda m: m["a"] - m["b"]),
    "best of 3 rivals": (dict(L=1.1, r1=0.95, r2=0.9, r3=0.85), lambda m: m["L"] - best(m, "r")),
    "late-epochs form: min(ratio - 0.85, ratio - ratio)": (LATE, lambda m: np.minimum(rel(m, 2) - 0.85,
                                                                                     rel(m, 2) - rel(m, 1))),
    "late-epochs form on the log scale: min(ratio / 0.85, ratio / ratio) (not used)": (
        LATE, lambda m: lowest([ratio(m["p2"], m["u2"]) / 0.85, ratio(m["p2"], m["u2"]) / ratio(m["p1"], m["u1"])])),
}
LAYERS = lambda *c: {f"l{i}": x for i, x in enumerate(c)}  # expected counts of heads each layer keeps
COUNT_FORMS = {
    "difference": (dict(a=2.4, b=1.7), lambda m: m["a"] - m["b"]),
    "best of 3 rivals (first layer)": (LAYERS(2.4, 1.7, 1.3, 1.5), lambda m: m["l0"] - best(m, "l")),
    "min over 3 layer steps (deeper)": (LAYERS(0.6, 1.4, 2.2, 3.3),
                                        lambda m: lowest([m[f"l{i + 1}"] - m[f"l{i}"] for i in range(3)])),
}
PPL = dict(a=math.log(30), b=math.log(25))               # log perplexities
PPL_FORMS = {
    "ratio on the log scale": (PPL, lambda m: ratio(m["a"], m["b"])),
    "ratio on the linear scale (replaced by the log scale)": (PPL, lambda m: m["a"] / m["b"]),
}
FORMS = dict(accuracy=ACC_FORMS, **{"t3 scores": ACC_FORMS}, BLEU=BLEU_FORMS, counts=COUNT_FORMS, perplexity=PPL_FORMS)
AT_SEEDS = dict(accuracy=SEEDS, **{"t3 scores": (3,)}, BLEU=(3,), counts=(3, 6), perplexity=SEEDS)   # counts at 2: last
NOT_USED = ("not used", "replaced")
SMOOTH = ("difference", "mean over K", "ratio", *PPL_FORMS)
refused = lambda form, S: int(S) < MIN_JOINT and form not in SMOOTH   # an order statistic at 2 seeds: no interval


def truth(metric: str, mus: dict, tau: float, f) -> float:
    "The statistic of the systems' true metrics (their expected per-seed metric)."
    x = f(METRICS[metric].truth(mus, tau))
    return float(x.value({}) if isinstance(x, Stat) else x)


def cell_cover(metric: str, mus: dict, tau: float, f, S: int, n: int):
    "A function of a generator: the share of `n` simulated experiments whose interval of `f` covers its true value."
    th, draw = truth(metric, mus, tau, f), METRICS[metric].draw
    covers = lambda e: e.lo <= th <= e.hi
    return lambda rng: sum(covers(evidence(draw(rng, mus, tau, S), f, n_boot=B, seed=r)) for r in range(n)) / n


def timing_cover(rng, reps: int, sd: float, speed: float, n: int = 10) -> float:
    "Coverage of bench.speedup_interval (a t interval on log ratios of n alternated timing pairs) of the true speed-up."
    true = 100 * (speed - 1)
    pairs = lambda: (np.exp(rng.normal(0, sd, n)) * speed, np.exp(rng.normal(0, sd, n)))
    return float(np.mean([(lambda e, lo, hi: lo <= true <= hi)(*speedup_interval(*pairs())) for _ in range(reps)]))


LATER = dict(accuracy={   # cells added after the table's first run come last: each cell keeps its generator (index)
    "min over 5 K": (dict(base=80, **{f"r{k}": 79 - k / 2 for k in range(5)}),        # the worst change along 5 steps
                     lambda m: lowest([m[f"r{k}"] - m["base"] for k in range(5)]))})


def form_cells(reps: int, forms: dict, seeds: dict = AT_SEEDS):
    "The cells of `forms` ({metric: {form: (true parameters, statistic)}}) at each metric's `seeds` and scenarios."
    for metric, of_metric in forms.items():
        m = METRICS[metric]
        for form, (mus, f) in of_metric.items():
            for S in seeds[metric]:
                for scen, tau, words in zip(SCENARIOS, m.taus, SCENARIO_WORDS.get(metric, SCENARIOS)):
                    n = reps * (SMOOTH_RUNS if form in SMOOTH else 1)
                    at = {k: m.equal for k in mus} if scen == "equal systems" else mus
                    used = not any(w in form for w in NOT_USED)
                    yield form, metric, S, words, used, n, cell_cover(metric, at, tau, f, S, n)


def cells(reps: int):
    "Every cell: (form, metric, seeds, scenario, used, runs, a function of a generator giving its coverage)."
    yield from form_cells(reps, FORMS)
    for scen, (sd, speed) in zip(SCENARIOS, ((0.05, 1.2), (0.3, 1.2), (0.05, 1.0))):
        yield ("ratio of timings (bench.speedup_interval, 10 pairs)", "timings", 10, scen, True, SMOOTH_RUNS * reps,
               lambda rng, sd=sd, speed=speed: timing_cover(rng, SMOOTH_RUNS * reps, sd, speed))
    yield from form_cells(reps, LATER)
    yield from form_cells(reps, dict(counts=dict(difference=COUNT_FORMS["difference"])), dict(counts=(2,)))  # filled


def provenance(args, started: float, cpu0: float, cells: int) -> dict:
    "Command, commit, machine, niceness, cells and cost of this run."
    git = lambda *a: subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    machine = dict(platform=platform.platform(), python=platform.python_version(), cpu=platform.processor(),
                   cpu_count=os.cpu_count(), load_at_end=os.getloadavg()[0])
    return dict(command="python " + shlex.join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]), nice=os.nice(0),
                commit=git("rev-parse", "HEAD"), changed=bool(git("status", "--porcelain", "headprune_nb", "tools")),
                machine=machine, started_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
                wall_s=round(time.time() - started, 1), cpu_s=round(time.process_time() - cpu0, 1),
                cells=cells, reps=args.reps, smooth_reps=SMOOTH_RUNS * args.reps, examples=N, resamples=B)


KEY = ("form", "metric", "seeds", "scenario")
DROPPED = ("largest |difference| of 2 systems", "4th best of 5 K (no longer used)",   # why they were dropped: kept
           "min over 3 rivals of a mean over 2 K (no longer used)")


def kept_rows(path: Path) -> dict:
    "The table's rows by cell (a row from before the metric column: accuracy)."
    rows = list(csv.DictReader(open(path))) if path.exists() else []
    return {tuple(r[x] for x in KEY): r for r in ({"metric": "accuracy", "seconds": "", **r} for r in rows)}


def set_aside(kept: dict) -> list:
    "The rows kept as not used: dropped forms, and order statistics at 2 seeds (Bonferroni's split, before refusal)."
    return [dict(r, used=False) for k, r in kept.items() if k[0] in DROPPED or refused(k[0], k[2])]


def write(out: Path, rows: list[dict], runs: list[dict]):
    "The table and its provenance (the runs that made its rows)."
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, list(rows[-1]))
        w.writeheader()
        w.writerows(rows)
    out.with_suffix(".json").write_text(json.dumps(dict(runs=runs), indent=1) + "\n")


def merge(parts: list, out: Path, keys: list):
    "Every cell's row from the part that computed it, the rows set aside kept from `out`; the parts' runs."
    got = [{k: r for k, r in kept_rows(f).items() if r["seconds"] != ""} for f in parts]
    rows = set_aside(kept_rows(out))
    for form, metric, S, scen in (k for k in keys if not refused(k[0], k[2])):
        have = [g[form, metric, str(S), scen] for g in got if (form, metric, str(S), scen) in g]
        if len(have) != 1: sys.exit(f"coverage.py --merge: {form}, {metric}, {S} seeds, {scen}: in {len(have)} parts")
        rows.append(have[0])
    write(out, rows, [run for f in parts for run in json.loads(f.with_suffix(".json").read_text())["runs"]])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=700, help="runs per cell (smooth forms: 4 times as many)")
    p.add_argument("--part", default="0/1", help="k/n: only cells k, k + n, ...")
    p.add_argument("--form", action="append", default=[])
    p.add_argument("--metric", action="append", default=[])
    p.add_argument("--seeds", action="append", type=int, default=[])
    p.add_argument("--out", type=Path, default=ROOT / "reproduce" / "coverage.csv")
    p.add_argument("--merge", nargs="+", type=Path, default=[], help="part tables (--part k/n --out PART) into --out")
    args = p.parse_args(argv)
    if args.merge: return merge(args.merge, args.out, [c[:4] for c in cells(args.reps)])
    all_cells = list(cells(args.reps))
    for what, given, i in (("form", args.form, 0), ("metric", args.metric, 1)):
        known = {c[i] for c in all_cells}
        bad = [x for x in given if x not in known]
        if bad: sys.exit(f"coverage.py: unknown {what} {bad}: one of {sorted(known)}")
    k, n = map(int, args.part.split("/"))
    given = lambda chosen, x: not chosen or x in chosen
    pick = lambda i, c: i % n == k and given(args.form, c[0]) and given(args.metric, c[1]) and given(args.seeds, c[2])
    kept = kept_rows(args.out)
    started, cpu0 = time.time(), time.process_time()
    rows = set_aside(kept)
    live = [(i, c) for i, c in enumerate(all_cells) if not refused(c[0], c[2])]   # refused: index kept, not computed
    for i, (form, metric, S, scen, used, runs, cover) in live:
        key = (form, metric, str(S), scen)
        if not pick(i, (form, metric, S)):
            if key in kept: rows.append(dict(kept[key], used=used))
            continue
        t0 = time.process_time()
        cov = round(cover(np.random.default_rng(i)), 4)
        examples = N if metric in FORMS and metric != "counts" else 0
        rows.append(dict(form=form, metric=metric, seeds=S, scenario=scen, used=used, reps=runs, coverage=cov,
                         seconds=round(time.process_time() - t0, 1), examples=examples))
        print(f"{form[:48]:48s} {metric:10s} S={S:<2d} {scen[:24]:24s} {cov:.3f} ({rows[-1]['seconds']:.0f} s)",
              flush=True)
    done, log = sum(pick(i, c[:3]) for i, c in live), args.out.with_suffix(".json")
    runs = [] if done == len(live) or not log.exists() else json.loads(log.read_text())["runs"]   # some: added
    write(args.out, rows, runs + [provenance(args, started, cpu0, done)])


if __name__ == "__main__":
    main()
