"""RTE recipe check (issue 18, item 4): does a standard fine-tuning recipe lift the cpu RTE baseline?

The cpu baseline (MiniLM-L6, `recipes.CLS_RECIPES['cpu']['rte']`: lr 5e-5, 5 epochs, batch 16)
scores 58.5% on RTE dev, near the 52.7% of the majority class, so pass2023's RTE verdicts can
hardly decide anything. Candidates, each trained with every seed of `--seeds` and scored on all
277 dev examples:

- `registry`: today's recipe, through `recipes.trained`, so its seeds land in the cache that
  pass2023's seeds use;
- `long`: the small-data corner of BERT's fine-tuning grid, lr 2e-5, 10 epochs, batch 16;
- `mnli_init`: intermediate-task transfer (STILTs, Phang et al. 2018; RoBERTa's RTE recipe): the
  encoder of the cpu MNLI-proxy baseline of the same seed, a fresh 2-way head, lr 2e-5, 3 epochs,
  batch 16.

Statistic: a candidate's accuracy minus the registry recipe's, paired per seed, with the paired
bootstrap over the dev examples combined with the seed spread (`verdicts.evidence`). A candidate
would replace the recipe only when its whole interval is above 0 (`verdicts.decide`). Dev is also
the evaluation split, so picking on it flatters the winner: hence an interval, not a point.

Writes OUT/{runs.csv, decision.csv, provenance.json} (default reproduce/results/cpu/rte_recipe).
Each run resumes from its checkpoint and each finished run's per-example scores are cached under
OUT/scores, so the script can be stopped and started again. Usage:
    HEADPRUNE_DATA_DIR=... python tools/rte_recipe.py [--seeds 0 1 2] [--variants registry long mnli_init]
"""
import argparse, dataclasses, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = {"long": dict(lr=2e-5, epochs=10, init=None), "mnli_init": dict(lr=2e-5, epochs=3, init="mnli_proxy")}

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--variants", nargs="+", default=["registry", *CANDIDATES], choices=["registry", *CANDIDATES])
    ap.add_argument("--out", type=Path, default=ROOT / "reproduce/results/cpu/rte_recipe")
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args(argv)
    from headprune_nb import recipes as R
    from headprune_nb.store import provenance, finish_provenance, write_csv, write_json, read_csv, markdown_table
    from headprune_nb.train import train
    from headprune_nb.verdicts import Sample, Rule, cached_sample, correct_per_example, evidence, claim_row
    base = R.find_recipe("cpu", "rte")
    a.out.mkdir(parents=True, exist_ok=True)
    t_start = time.time()
    prov = provenance("cpu", a.seeds[0], dict(seeds=a.seeds, variants=a.variants, registry=dataclasses.asdict(base),
                                            candidates=CANDIDATES), " ".join(["python", *sys.argv]))
    write_json(a.out / "provenance.json", prov)
    rows = {(r["variant"], int(r["seed"])): r for r in read_csv(a.out / "runs.csv")} if (a.out / "runs.csv").exists() else {}

    def score(model, tok, examples):
        eval_b = R._cls_batches(tok, examples, 128, base.max_len, False)(0)   # length-sorted: the same order for every model
        return Sample("accuracy", correct_per_example(model, eval_b))

    def run(variant, seed):
        "(Sample, seconds or None): the variant trained with `seed`, scored on RTE dev."
        t0 = time.time()
        if variant == "registry":
            t = R.trained("cpu", "rte", seed, a.device)
            return score(t.model, t.tokenizer, t.data["eval"]), time.time() - t0
        c = CANDIDATES[variant]
        r = dataclasses.replace(base, lr=c["lr"], epochs=c["epochs"])
        data = R.cls_data(r, seed)
        model, tok = R.cls_model(r, data, seed)
        if c["init"]: model.base_model.load_state_dict(R.trained("cpu", c["init"], seed, a.device).model.base_model.state_dict())
        batches = R._cls_batches(tok, data["train"], r.batch_size, r.max_len, True)
        t1 = time.time()
        train(model, batches, R.train_config(r, len(batches(0)), seed, a.device),
              out_dir=R.cache_dir() / "runs" / "cpu" / "rte-recipe" / f"{variant}-seed{seed}", resume=True)
        return score(model, tok, data["eval"]), time.time() - t1

    samples = {}
    for seed in a.seeds:
        for v in a.variants:
            secs = None
            def compute():
                nonlocal secs
                s, secs = run(v, seed)
                return s
            of = R.spec_digest(dict(registry=dataclasses.asdict(base), candidate=CANDIDATES.get(v), seed=seed))   # a changed recipe: trained anew
            samples[v, seed] = cached_sample(a.out / "scores" / f"{v}-seed{seed}.npz", compute, of=of)
            rows[v, seed] = dict(variant=v, seed=seed, accuracy=round(samples[v, seed].score(), 2),
                                 train_seconds=round(secs, 1) if secs is not None else rows.get((v, seed), {}).get("train_seconds", ""),
                                 recipe=str(dataclasses.asdict(base) if v == "registry" else CANDIDATES[v]))
            write_csv(a.out / "runs.csv", [rows[k] for k in sorted(rows, key=lambda k: (k[1], k[0]))])
            print(f"{v} seed {seed}: {rows[v, seed]['accuracy']:.2f}%", flush=True)
    decisions = []
    for v in (x for x in a.variants if x != "registry"):
        seeds = [s for s in a.seeds if (v, s) in samples and ("registry", s) in samples]
        if not seeds or "registry" not in a.variants: continue
        ev = evidence([{v: samples[v, s], "registry": samples["registry", s]} for s in seeds], lambda m: m[v] - m["registry"])
        decisions.append(claim_row(f"{v} lifts the RTE baseline", "rte", Rule(f"{v} - registry accuracy", ">", 0.0), ev))
    write_csv(a.out / "decision.csv", decisions)
    finish_provenance(a.out, prov, t_start)
    print(markdown_table([{k: d[k] for k in ("claim", "ours", "verdict", "why")} for d in decisions]))

if __name__ == "__main__": main()
