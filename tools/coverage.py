"""Coverage study of the claims' intervals (nbs/93_verdicts): for every statistic form the claims use, the share of simulated
experiments whose 95% interval covers the true value, under no seed effect, a dominant seed effect and equal systems.
Writes reproduce/coverage.csv, which nbs/93_verdicts' test reads (every form in use within 93-98%).
Run: `python tools/coverage.py [reps [k/n [out]]] [--order-only] [--form NAME ...]` (default 1000 runs per cell, 4000 for the fast smooth forms; the committed
table: 700); `k/n`: only cells k, k + n, ... (each cell has its own generator, so parts give the numbers of one run); merge the parts' CSVs by hand;
`--order-only`: recompute the order statistics' cells, keep the others' rows from out; `--form NAME`: recompute only the cells of these forms, keep
the others' rows from out (a new form's cells, or a renamed one's, without the whole study)."""
import csv, math, sys, time
from pathlib import Path
import numpy as np
from headprune_nb.runs import Sample
from headprune_nb.bench import speedup_interval
from headprune_nb.verdicts import evidence, lowest, highest, nth_best, Stat

S, N, B = 3, 300, 200                  # seeds, shared evaluation examples, bootstrap resamples (they only estimate a variance)
SCENARIOS = {"no seed effect": 0.0, "dominant seed effect": 4.0, "equal systems": 1.0}   # sd of the seed effect, points

def runs(rng, mus: dict, tau: float, shared: float = 0.5) -> list[dict]:
    "Per seed {system: Sample}: seed s's true accuracy of system k is mu_k + N(0, tau^2); an example is shared by all (same draw) with prob `shared`."
    u0 = rng.random(N)
    return [{k: Sample("accuracy", (np.where(rng.random(N) < shared, u0, rng.random(N)) < (mu + rng.normal(0, tau)) / 100).astype(np.int8))
             for k, mu in mus.items()} for _ in range(S)]

K2 = lambda m, f: [f(m, K) for K in (1, 2)]
FORMS = {   # form: (true accuracies unless equal, statistic, used by a claim)
    "difference": (dict(a=80, b=77), lambda m: m["a"] - m["b"], True),
    "mean over K": (dict(a1=80, b1=78, a2=80, b2=76), lambda m: sum(K2(m, lambda m, K: m[f"a{K}"] - m[f"b{K}"])) / 2, True),
    "ratio": (dict(a=80, b=70), lambda m: 100 * m["a"] / m["b"], True),
    "min over 2 K": (dict(a1=80, b1=78, a2=80, b2=76), lambda m: lowest(K2(m, lambda m, K: m[f"a{K}"] - m[f"b{K}"])), True),
    "best of 3 rivals": (dict(L=80, r1=77, r2=76, r3=75), lambda m: m["L"] - highest([m["r1"], m["r2"], m["r3"]]), True),
    "min over 3 rivals of a mean over 2 K (no longer used)": (dict(L1=80, L2=80, **{f"r{j}{K}": 77 - j for j in range(3) for K in (1, 2)}),
                                             lambda m: lowest([(m["L1"] - m[f"r{j}1"] + m["L2"] - m[f"r{j}2"]) / 2 for j in range(3)]), False),
    "min over 2 K of (leader - best of 3 rivals)": (dict(L1=80, L2=80, **{f"r{j}{K}": 77 - j for j in range(3) for K in (1, 2)}),
                                                    lambda m: lowest(K2(m, lambda m, K: m[f"L{K}"] - highest([m[f"r{j}{K}"] for j in range(3)]))), True),
    "largest |difference| of 2 systems": (dict(ref=78, g1=79, g2=77.5), lambda m: highest([abs(m["g1"] - m["ref"]), abs(m["g2"] - m["ref"])]), False),   # 99.3%: Within
    "largest gap of 2 systems (equivalence)": (dict(ref=78, g1=79, g2=77.5), lambda m: highest([m["g1"] - m["ref"], m["g2"] - m["ref"]]), True),
    "smallest gap of 2 systems (equivalence)": (dict(ref=78, g1=79, g2=77.5), lambda m: lowest([m["g1"] - m["ref"], m["g2"] - m["ref"]]), True),
    "4th best of 5 K (no longer used)": ({**{f"a{k}": 80 for k in range(5)}, **{f"b{k}": 79 - k for k in range(5)}},
                                         lambda m: nth_best([m[f"a{k}"] - m[f"b{k}"] for k in range(5)], 4), False),
}

CHEAP = ("difference", "mean over K", "ratio")      # smooth forms, fast: 4 times the runs (Monte Carlo sd 0.35 points)

def truth(mus, f):
    x = f(dict(mus)); return float(x.value({}) if isinstance(x, Stat) else x)

def timing_cover(rng, reps, sd, ratio, n=10):
    "Coverage of bench.speedup_interval (a t interval on log ratios of n alternated timing pairs) of the true speed-up."
    true = 100 * (ratio - 1)
    hits = [(lambda e, lo, hi: lo <= true <= hi)(*speedup_interval(np.exp(rng.normal(0, sd, n)) * ratio, np.exp(rng.normal(0, sd, n))))
            for _ in range(reps)]
    return float(np.mean(hits))

def cell_cover(m: dict, f, tau: float, n: int):
    "A function of a generator: the share of `n` simulated experiments whose interval of `f` covers its true value."
    th = truth(m, f)
    return lambda rng: sum((lambda e: e.lo <= th <= e.hi)(evidence(runs(rng, m, tau), f, n_boot=B, seed=r)) for r in range(n)) / n

def cells(reps: int):
    "Every (form, scenario) cell: form, scenario, used, runs, and a function of a generator giving its coverage."
    for form, (mus, f, used) in FORMS.items():
        for scen, tau in SCENARIOS.items():
            n = reps * (4 if form in CHEAP else 1)
            yield form, scen, used, n, cell_cover({k: 78.0 for k in mus} if scen == "equal systems" else mus, f, tau, n)
    for scen, (sd, ratio) in {"no seed effect": (0.05, 1.2), "dominant seed effect": (0.3, 1.2), "equal systems": (0.05, 1.0)}.items():
        yield "ratio of timings", scen, True, 4 * reps, (lambda rng, sd=sd, ratio=ratio: timing_cover(rng, 4 * reps, sd, ratio))

def main(reps: int = 1000, part: tuple = (0, 1), out: Path = Path(__file__).resolve().parents[1] / "reproduce" / "coverage.csv",
         order_only: bool = False, forms: tuple = ()):
    """Cells part[0], part[0] + part[1], ... (each with its own generator, so a study split in parts gives the same numbers); written to `out`.
    `order_only`: only the order statistics' cells, the others kept from `out` (the smooth forms and timings do not use their calibration);
    `forms`: only these forms' cells, the others kept from `out`."""
    rows, kept = [], {(r["form"], r["scenario"]): r for r in csv.DictReader(open(out))} if order_only or forms else {}
    keep = (lambda form: form not in forms) if forms else (lambda form: form in CHEAP or form == "ratio of timings")
    for i, (form, scen, used, n, cover) in enumerate(cells(reps)):
        if (form, scen) in kept and keep(form): rows.append(dict(kept[form, scen], used=used)); continue     # its numbers; in use as FORMS says
        if i % part[1] != part[0]: continue
        t0 = time.time()
        rows.append(dict(form=form, scenario=scen, used=used, reps=n, coverage=round(cover(np.random.default_rng(i)), 4), seeds=S, examples=N))
        print(f"{form:45s} {scen:22s} {rows[-1]['coverage']:.3f} ({time.time() - t0:.0f} s)", flush=True)
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, list(rows[0])); w.writeheader(); w.writerows(rows)

if __name__ == "__main__":
    argv, forms = sys.argv[1:], []
    while "--form" in argv: i = argv.index("--form"); forms.append(argv[i + 1]); del argv[i:i + 2]
    if unknown := [f for f in forms if f not in FORMS]: sys.exit(f"coverage.py: unknown form(s) {unknown}: choose from {list(FORMS)}")
    a = [x for x in argv if x != "--order-only"]
    main(int(a[0]) if a else 1000, tuple(map(int, a[1].split("/"))) if len(a) > 1 else (0, 1), Path(a[2]) if len(a) > 2 else
         Path(__file__).resolve().parents[1] / "reproduce" / "coverage.csv", "--order-only" in argv, tuple(forms))
