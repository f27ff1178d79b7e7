"""A papermill `smoke` run of every reproduction notebook, and checks of what it leaves on disk.

Each notebook's default smoke run is made once (`smoke_run`, in conftest: tests/test_slurm.py compares with it too; in one cache of smoke baselines that the
baselines notebook fills first: seed 0's baselines; the other seeds' are trained on demand by `trained`)
and read by every test about it; a test that resumes or changes a run does so in its own copy of the folder."""
import json, re, shutil
import pytest
from headprune_nb.reproduce import EXPERIMENTS, run_experiment, reproduce_dir
from headprune_nb.store import read_csv
from headprune_nb.verdicts import VERDICTS, UNDER_TRAINED


def unguarded(c: dict) -> str:
    "The verdict row `c` has, or would have had before `verdicts.guard` (smoke models need not converge: nbs/19_convergence)."
    if c["verdict"] != UNDER_TRAINED: return c["verdict"]
    return re.match(r"would be (\w+)", c["why"])[1]

def own_copy(folder, tmp_path):
    "A test's own copy of a shared smoke run, to resume or change."
    return shutil.copytree(folder, tmp_path / folder.name)

@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_smoke_run_writes_results_with_provenance(name, smoke_run):
    out = smoke_run(name)
    exp = EXPERIMENTS[name]
    assert (out / exp.notebook).exists(), "the executed notebook is kept beside its results"
    prov = json.loads((out / "provenance.json").read_text())
    for key in ("command", "profile", "seed", "headprune_nb", "machine", "params", "finished_utc", "wall_seconds"):
        assert key in prov, key
    assert prov["profile"] == "smoke" and prov["command"].startswith("headprune reproduce " + name)
    assert list(out.glob("*.csv")), "a reproduction writes CSV results"

def test_michel2019_speed_smoke_tables(tmp_path):
    out = run_experiment("michel2019_speed", "smoke", out_dir=tmp_path, progress=False,
                         params=dict(batch_sizes=[1, 2], levels=[4, 2], n_masks=2))
    t4 = read_csv(out / "table4.csv")
    assert [r["batch_size"] for r in t4] == [1, 2]
    for r in t4:
        assert r["heads"] == 8 and r["heads_kept"] == 4 and r["ideal_speedup"] > 1
    f4 = read_csv(out / "figure4.csv")
    assert [r["heads_left"] for r in f4] == [4, 2] and all(r["masks"] == 2 for r in f4)
    assert f4[1]["size_shrinkage_pct"] > f4[0]["size_shrinkage_pct"] > 0     # fewer heads, smaller model
    assert (out / "figure4.png").stat().st_size > 0
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["params"]["batch_sizes"] == [1, 2]
    claims = {c["claim"][:24]: c for c in read_csv(out / "claims.csv")}     # timings on their interval, no training seeds
    timed = [c for c in claims.values() if "a timing of random weights" in str(c.get("why"))]
    assert len(timed) == 6 and all(c["lo"] <= c["point"] <= c["hi"] and c["verdict"] in ("supported", "contradicted", "inconclusive")
                                   and not c.get("seeds") for c in timed)
    assert {c["of_paper"] for c in claims.values() if "Li et al" in c["claim"]} == {"dsp2021"}
    assert all(c["verdict"] == "not run" for c in claims.values() if "point check" in str(c.get("rule")))   # every run claim on an interval
    rise = next(c for c in timed if "smallest rise" in c["rule"])                         # figure 4 read step by step, masks as the noise
    f4m = read_csv(out / "figure4_masks.csv")
    means = [sum(r["speedup_pct"] for r in f4m if r["heads_left"] == L) / 2 for L in (4, 2)]
    assert abs(rise["point"] - (means[1] - means[0])) < 1e-2

def test_every_published_table_exists():
    for exp in EXPERIMENTS.values():
        for f in exp.published:
            rows = read_csv(reproduce_dir() / "published" / f)
            assert rows and all(r.get("source") for r in rows), f

def test_baselines_smoke_learns_and_caches(monkeypatch, smoke_run, smoke_cache):
    monkeypatch.setenv("HEADPRUNE_CACHE", str(smoke_cache))
    out = smoke_run("baselines")
    rows = {r["task"]: r for r in read_csv(out / "baselines.csv")}
    assert set(rows) == {"synthetic_cls", "synthetic_mt"}
    assert rows["synthetic_cls"]["value"] > 85 and rows["synthetic_mt"]["value"] > 50     # the tiny tasks are learnt
    assert (smoke_cache / "models" / "smoke" / "synthetic_mt" / "config.json").exists()
    assert (out / "synthetic_mt_log.csv").exists()
    rec = json.loads((smoke_cache / "models" / "smoke" / "synthetic_cls" / "baseline.json").read_text())
    assert rec["seed"] == 0 and rec["weights"]                          # its record: `trained` takes it without a word
    from headprune_nb.recipes import trained
    import contextlib, io
    err = io.StringIO()
    with contextlib.redirect_stderr(err): t = trained("smoke", "synthetic_cls", 0)
    assert t.weights == rec["weights"] and "without a record" not in err.getvalue()

def test_michel2019_pruning_smoke_curves(smoke_run):
    out = smoke_run("michel2019_pruning")
    f3 = read_csv(out / "figure3.csv")
    for task, H in (("synthetic_cls", 8), ("synthetic_mt", 24)):
        for order in ("importance", "one-head ablation"):
            curve = [r for r in f3 if r["task"] == task and r["order"] == order]
            assert curve[0]["heads_left"] == H and curve[-1]["heads_left"] == 0
            assert all(a["heads_left"] > b["heads_left"] for a, b in zip(curve, curve[1:]))
    masks = read_csv(out / "figure3_masks.csv")
    assert all(str(m["kept"]).count("1") == r["heads_left"] for m, r in zip(masks, f3))
    f4 = read_csv(out / "figure4.csv")
    assert {r["kind"] for r in f4} == {"enc_self", "cross", "dec_self"}
    f5 = read_csv(out / "figure5.csv")
    assert sorted({r["epoch"] for r in f5}) == [2, 10]      # the smoke recipe's snapshots
    assert all(r["relative"] == 1.0 for r in f5 if r["removed"] == 0)
    claims = read_csv(out / "claims.csv")
    checks = {c["claim"]: c["our_check"] for c in read_csv(reproduce_dir() / "published" / "michel2019_claims.csv")}
    got = sorted((checks[c["claim"]], c["task"]) for c in claims)
    assert got == [("cross_most_fragile", "synthetic_mt"), ("harmless_share", "synthetic_cls"),
                   ("harmless_share", "synthetic_mt"), ("late_epochs_flat", "synthetic_mt")]   # the SST-2 claim has no smoke task
    three_way = [c for c in claims if c.get("lo") not in (None, "")]       # every claim: an interval over examples
    assert len(three_way) == len(claims), claims
    assert all(c["verdict"] in VERDICTS + (UNDER_TRAINED,) and c["lo"] <= c["point"] <= c["hi"]      # smoke baselines need not
               and "supported if" in c["rule"] and c["seeds"] == 2 and "2 baseline seeds" in c["budget"]   # converge: guarded
               and "baseline seed" in c["trained"] for c in three_way)
    from headprune_nb.runs import run_grid
    from headprune_nb.michel_exp import pruning_params, curve_keys, by_what, seed_masks
    P = pruning_params("smoke", share=0.1, oracle=True, dynamics=True, variant="code", per_token=False)
    curves = by_what(run_grid([k for k in curve_keys(P) if k.task == "synthetic_mt"], None, out / "scores"))   # each curve a record
    seed1 = seed_masks(curves, "synthetic_mt", 1)                              # seed 1's baseline, pruned the same ways
    side = json.loads((out / "scores" / "synthetic_mt" / "masks-importance-seed1.json").read_text())["provenance"]   # with its provenance
    assert side["seed"] == 1 and side["profile"] == "smoke" and side["command"] and side["machine"] and side["params"]["baseline_weights"]
    assert {m["what"] for m in seed1} == {"importance", "kind:enc_self", "kind:cross", "kind:dec_self", "epoch:2", "epoch:10"}
    assert all(str(m["kept"]).count("1") == 24 - m["removed"] for m in seed1 if m["what"] in ("importance", "epoch:10"))
    main = [m["kept"] for m in read_csv(out / "figure3_masks.csv") if m["task"] == "synthetic_mt" and m["order"] == "importance"]
    assert [m["kept"] for m in seed1 if m["what"] == "importance"] != main         # another model: other heads go
    scores = out / "scores" / "synthetic_mt"                                   # per-example scores kept for resuming,
    assert len(list(scores.glob("epoch10-removed9-*-n60-seed0.npz"))) == 1       # named by heads removed, a digest of the mask, the examples
    assert len(list(scores.glob("unpruned-*-n60-seed0.npz"))) == 1               # (one file: the curve's band and the claims
                                                                                 # score the same 60 sentences in smoke)
    band = {(r["task"], r["order"], r["removed"]): r for r in read_csv(out / "figure3_band.csv")}
    assert len(band) == len(f3)                                                  # every point of figure 3 has its band,
    for r in f3:                                                                 # around the point the curve reports
        b = band[r["task"], r["order"], r["removed"]]
        assert abs(b["metric_from_scores"] - r["metric"]) < 1e-6 and b["lo"] <= r["metric"] <= b["hi"], (r, b)
    for name, key, col, scale in (("figure4", "kind", "metric", 1), ("figure5", "epoch", "relative", 100)):   # figures 4 and 5 too
        rows, band = read_csv(out / f"{name}.csv"), {(r["task"], r[key], r["removed"]): r for r in read_csv(out / f"{name}_band.csv")}
        assert len(band) == len(rows) > 0
        for r in rows:
            b = band[r["task"], r[key], r["removed"]]
            assert abs(b["metric_from_scores"] - scale * r[col]) < 1e-6 and b["lo"] <= scale * r[col] <= b["hi"], (name, r, b)

def test_michel2019_ablation_smoke_tables(tmp_path, monkeypatch, smoke_cache, smoke_run):
    monkeypatch.setenv("HEADPRUNE_CACHE", str(smoke_cache))
    out = smoke_run("michel2019_ablation")
    t1 = read_csv(out / "table1.csv")
    assert sum(r["task"] == "synthetic_cls" for r in t1) == 8 and sum(r["task"] == "synthetic_mt" for r in t1) == 24
    best = read_csv(out / "tables_2_3_5_6.csv")
    assert sum(r["task"] == "synthetic_mt" for r in best) == 6           # 2 layers x 3 kinds
    assert all(r["delta_best_on_test"] >= r["delta_chosen_on_separate_set"] - 1e-9 for r in best)
    claims = read_csv(out / "claims.csv")                         # two claims per task, intervals over the examples
    assert sorted((c["task"], c["claim"][:9]) for c in claims) == sorted((t, c) for t in ("synthetic_cls", "synthetic_mt")
                                                                         for c in ("At test t", "For most "))
    assert all(c["verdict"] in VERDICTS + (UNDER_TRAINED,) and c["lo"] <= c["point"] <= c["hi"] and "supported if" in c["rule"]
               and c["seeds"] == 2 and "2 baseline seeds" in c["budget"] and "baseline seed" in c["trained"] for c in claims)
    sig = read_csv(out / "table1_significance.csv")                 # every head of table 1: its change and its 99% interval
    assert [(r["task"], r["kind"], r["layer"], r["head"]) for r in sig] == [(r["task"], r["kind"], r["layer"], r["head"]) for r in t1]
    assert all(abs(a["delta"] - b["delta"]) < 1e-6 and a["lo"] <= a["delta"] <= a["hi"] and a["level"] == 0.99
               and str(a["significant"]) == str(a["lo"] > 0 or a["hi"] < 0) for a, b in zip(sig, t1))
    rec = json.loads((out / "scores" / "synthetic_mt" / "chosen-seed1.json").read_text())   # seed 1's heads, chosen on its own scores
    chosen, side = rec["extra"]["chosen"], rec["provenance"]                                 # (a run record, its provenance inside)
    assert len(chosen) == 6 and all(1 <= r["head"] <= 4 for r in chosen)
    assert side["seed"] == 1 and side["command"] and side["machine"] and side["params"]["baseline_weights"]
    assert len(list((out / "scores" / "synthetic_mt").glob("mask-head*-seed1.npz"))) == 24
    from headprune_nb.reproduce import head_scan_path                 # the scans are kept: an interrupted run resumes after them
    from headprune_nb.recipes import trained
    mt = {s: trained("smoke", "synthetic_mt", s, progress=False) for s in (0, 1)}     # cached: named by their weights
    assert all(head_scan_path(mt[s], "one_head_per_site", "valid", 300, 0, 1).exists() for s in (0, 1))
    assert head_scan_path(mt[0], "one_head", "test", 60, 0, 1).exists()
    from headprune_nb.runs import baseline_of, sample_of                  # scores and kept choices name their baseline
    of1 = baseline_of("smoke", "synthetic_mt", 1)
    assert side["params"]["baseline_of"] == of1 and sample_of(out / "scores" / "synthetic_mt" / "mask-head0-seed1.npz") == of1
    out = run_experiment("michel2019_ablation", "smoke", out_dir=own_copy(out, tmp_path), progress=False, params=dict(seeds=[0]))   # cached
    one = {r["task"]: r for r in read_csv(out / "claims.csv") if r["claim"].startswith("For most")}["synthetic_mt"]
    deltas = sorted((r["delta_chosen_on_separate_set"] for r in best if r["task"] == "synthetic_mt"), reverse=True)
    assert abs(one["point"] - sum(deltas) / len(deltas)) < 1e-3 and one["seeds"] == 1  # one seed: the table's own deltas' mean,
    assert unguarded(one) == "inconclusive"                                            # and no verdict from one baseline

def test_voita_lambda_smoke_sweep_resumes(tmp_path, monkeypatch, smoke_cache):
    monkeypatch.setenv("HEADPRUNE_CACHE", str(smoke_cache))
    out = run_experiment("voita_lambda", "smoke", out_dir=tmp_path, progress=False, params=dict(lambdas=[0.01, 1.0]))
    rows = read_csv(out / "sweep.csv")
    assert [r["lam"] for r in rows] == [0.01, 1.0] and all(0 <= r["heads_kept"] <= 8 for r in rows)
    out = run_experiment("voita_lambda", "smoke", out_dir=tmp_path, progress=False, params=dict(lambdas=[0.01, 0.1, 1.0], seeds=[0, 1]))
    again = read_csv(out / "sweep.csv")
    assert [(r["seed"], r["lam"]) for r in read_csv(out / "sweep_seeds.csv")] == [(1, 0.01), (1, 0.1), (1, 1.0)]   # the other seed's sweep
    assert [r["lam"] for r in again] == [0.01, 0.1, 1.0]
    assert [again[0]["seconds"], again[2]["seconds"]] == [rows[0]["seconds"], rows[1]["seconds"]]   # not rerun
    assert len(list((out / "records" / "synthetic_cls").glob("voita-lam*-seed*.json"))) == 6     # one record per seed and lambda
    claims = read_csv(out / "claims.csv")                      # counts along the grid: one vote per seed, no interval
    assert len(claims) == 4 and all("no interval" in c["rule"] and "seed 0:" in c["ours"] and "seed 1:" in c["ours"] for c in claims)
    assert all(c["budget"].endswith(" steps") for c in claims)   # each lambda's joint phase, as every claim row says
    from headprune_nb.verdicts import VERDICTS, verdict_kind, seed_vote
    for c in claims:                                           # three-way, decided by the two seeds' votes
        assert unguarded(c) in VERDICTS and c["seeds_holding"] in ("0/2", "1/2", "2/2") and verdict_kind(c) == c["verdict"], c
    for c in claims[:2]:                                       # two seeds never decide a vote (a coin flip per seed agrees half the time)
        assert unguarded(c) == "inconclusive" and (c["seeds_holding"] == "1/2" or "coin flip" in c["why"]), c
    H = int(re.search(r"of (\d+),", claims[3]["ours"])[1])
    counts = [[r["heads_kept"] for r in again], [r["heads_kept"] for r in read_csv(out / "sweep_seeds.csv")]]   # lambda ascending
    bound = [False if max(k) >= H else True if k[0] == k[1] else None for k in counts]   # a seed still rising at the small end: None
    assert unguarded(claims[3]) == seed_vote(bound)[0] and "117" in claims[3]["paper"], (counts, claims[3])
    reach = [False if set(k) >= set(range(H + 1)) else b or None for k, b in zip(counts, bound)]
    assert unguarded(claims[2]) == seed_vote(reach)[0], (counts, claims[2])
    assert "within the noise" not in claims[2]["why"] + claims[3]["why"]      # an undecided seed is the grid's, not noise

def test_dsp2021_smoke_keeps_exactly_k(tmp_path, monkeypatch, smoke_cache, smoke_run):
    monkeypatch.setenv("HEADPRUNE_CACHE", str(smoke_cache))
    out = smoke_run("dsp2021")
    rows = read_csv(out / "table3.csv")
    methods = {"michel", "pipelined_dsp", "voita", "ste", "joint_dsp"}
    for task, ks in (("synthetic_cls", {2, 6}), ("synthetic_mt", {3, 16})):
        assert {(r["method"], r["K"]) for r in rows if r["task"] == task} == {(m, k) for m in methods for k in ks}
    for m in read_csv(out / "table3_masks.csv"):
        assert str(m["kept"]).count("1") == m["K"]           # every method keeps exactly K heads
    f7 = read_csv(out / "figure7.csv")
    assert {r["annealing"] for r in f7} == {"True", "False"} and all(0 <= r["kept_share"] <= 1 for r in f7)
    for task in ("synthetic_cls", "synthetic_mt"):   # annealed: tau falls from tau_ini to tau_end; not annealed (code variant): held at tau_end
        tau = lambda a: [r["tau"] for r in f7 if r["task"] == task and r["annealing"] == a]
        held = tau("False")
        assert max(held) - min(held) < 1e-12 and held[0] < 1e-7
        assert abs(tau("True")[-1] - held[0]) < 1e-9 and all(a >= b - 1e-12 for a, b in zip(tau("True"), tau("True")[1:]))
    cls_tau = [r["tau"] for r in f7 if r["task"] == "synthetic_cls" and r["annealing"] == "True"]
    assert cls_tau[0] > 1e3 * cls_tau[-1]            # synthetic_cls's 7 steps show the fall (synthetic_mt's 2 end it at the first)
    assert len(read_csv(out / "figure5.csv")) == len(rows)
    claims = read_csv(out / "claims.csv")
    assert {c["task"] for c in claims} == {"synthetic_cls", "synthetic_mt"}
    decided = [c for c in claims if c.get("lo") not in (None, "")]        # three-way verdicts with an interval and a rule
    assert decided and all(c["verdict"] in VERDICTS + (UNDER_TRAINED,) for c in decided)    # a run that did not train: no verdict
    assert all(c["lo"] <= c["point"] <= c["hi"] and c["seeds"] == 2 and "supported if" in c["rule"] for c in decided)
    # the budget table: the budget forms of the two claims (joint and pipelined DSP at budget_ks, K=2 and K=3; only the
    # Enc-Dec's K=3 of 24 heads is below H/6), at the default phase (the main table's steps) and at 4 and 12 steps; the
    # Enc-Dec's budget_rivals (STE) trained at its K below H/6 too, for a third row with STE among the others
    budget_rows = read_csv(out / "budgets.csv")
    steps = {c["task"]: int(str(c["budget"]).split()[0]) for c in decided}
    forms = {("synthetic_cls", "joint DSP beats pipelined DSP"), ("synthetic_mt", "joint DSP beats pipelined DSP"),
             ("synthetic_mt", "joint DSP leads pipelined DSP and Michel below H/6"),
             ("synthetic_mt", "joint DSP leads pipelined DSP, Michel and STE below H/6")}
    assert sorted((c["task"], c["claim"].split(" (")[0], c["phase"], c["budget"]) for c in budget_rows) == sorted(
        (t, f, p, b) for t, f in forms for p, b in (("default", steps[t]), ("budget", 4), ("budget", 12)))
    for c in budget_rows:
        rival = "STE below" in c["claim"]
        assert ("Voita not run" if rival else "Voita and STE not run") in c["claim"] and c["verdict"] in VERDICTS + (UNDER_TRAINED,)
        assert c["lo"] <= c["point"] <= c["hi"] and c["seeds"] == 2 and "supported if" in c["rule"]
        assert ("(joint DSP - pipelined DSP)" if "beats" in c["claim"] else "(joint DSP - max(pipelined DSP, Michel, STE))" if rival
                else "(joint DSP - max(pipelined DSP, Michel))") in c["rule"]
        assert c["published_claim"] in {p["claim"] for p in read_csv(reproduce_dir() / "published" / "li2021_claims.csv")}
    band = read_csv(out / "figure2_band.csv")                  # figure 2's bars: every method at every K, over both seeds
    assert {(b["task"], b["method"], b["K"]) for b in band} == {(r["task"], r["method"], r["K"]) for r in rows}
    assert all(b["lo"] <= b["mean"] <= b["hi"] and b["seeds"] == 2 for b in band)
    main = {(r["task"], r["method"], r["K"]): r["metric"] for r in rows}
    assert any(abs(b["mean"] - main[b["task"], b["method"], b["K"]]) > 1e-6 for b in band)   # a mean over seeds, not the curve
    assert (out / "scores/synthetic_mt/joint_dsp-K3-seed1-steps12.npz").exists()     # per-example scores kept for resuming
    trained_at_budgets = {p.name.split("-K")[0] for p in out.glob("scores/*/*-steps*.npz")}
    assert trained_at_budgets == {"pipelined_dsp", "joint_dsp", "ste"}                   # Voita: not at budgets; Michel: reused
    assert {p.name for p in out.glob("scores/*/ste-*-steps*.npz")} == {f"ste-K3-seed{s}-steps{b}.npz" for s in (0, 1) for b in (4, 12)}
    assert not list(out.glob("scores/synthetic_mt/*-K16-*-steps*.npz"))                 # only the K of budget_ks
    # resuming a finished run redoes nothing and gives the same table
    again = run_experiment("dsp2021", "smoke", out_dir=own_copy(out, tmp_path), progress=False)
    assert read_csv(again / "table3.csv") == read_csv(out / "table3.csv")
    assert read_csv(again / "claims.csv") == claims and read_csv(again / "budgets.csv") == budget_rows
    assert read_csv(again / "figure5.csv") == read_csv(out / "figure5.csv")      # masks timed once: not timed again

def test_pass2023_smoke_equal_k_speed_and_almost_sure(tmp_path, monkeypatch, smoke_cache, smoke_run):
    monkeypatch.setenv("HEADPRUNE_CACHE", str(smoke_cache))
    out = smoke_run("pass2023")
    rows = read_csv(out / "table1.csv")
    methods = {"pass", "passconc", "dsp", "lag", "voita"}
    for task in ("synthetic_cls", "synthetic_mt"):
        assert {(r["method"], r["K"]) for r in rows if r["task"] == task} == {(m, k) for m in methods for k in (2, 6)}
    for m in read_csv(out / "table1_masks.csv"):
        assert str(m["kept"]).count("1") == m["K"]               # every method keeps exactly K heads
    states = read_csv(out / "almost_sure.csv")                   # every gate-distribution method is checked; DSP has none
    assert {r["method"] for r in states} == methods - {"dsp"}
    assert all(r["open"] + r["closed"] + r["undecided"] == (8 if r["task"] == "synthetic_cls" else 24) for r in states)
    decided = read_csv(out / "decided.csv")                      # when each fixed-size selection stopped changing (not Voita's)
    assert {(r["task"], r["method"], r["K"]) for r in decided} == {(r["task"], r["method"], r["K"]) for r in rows if r["method"] != "voita"}
    assert all(0 < r["decided_share"] <= 1 and 0 <= r["final_heads_selected_at_first_step"] <= 1 for r in decided)
    speed = read_csv(out / "table2.csv")
    assert len(speed) == len(rows) and all(r["speedup_pct"] > 0 for r in speed)
    side = read_csv(out / "tables_vs_published.csv")
    assert {r["table"] for r in side} == {"metric", "speedup_pct"}
    claims = read_csv(out / "claims.csv")
    assert {c["task"] for c in claims} == {"synthetic_cls", "synthetic_mt"}
    best = [c for c in claims if c.get("lo") not in (None, "")]       # "best accuracy", speed-up: three-way, with interval, 2 seeds
    assert sorted(c["task"] for c in best if c["examples"]) == ["synthetic_cls", "synthetic_mt"]
    assert all(c["verdict"] in VERDICTS + (UNDER_TRAINED,) and c["seeds"] == 2 for c in best)
    speeds = [c for c in best if c["examples"] == 0]                  # PASSCONC's speed-up: numbers per seed, a t interval (issue 38)
    assert sorted(c["task"] for c in speeds) == ["synthetic_cls", "synthetic_mt"], speeds
    assert all(c["claim"].startswith("PASSCONC") and "best other method's" in c["ours"] and "seed 1:" in c["detail"]
               and c["lo"] <= c["point"] <= c["hi"] for c in speeds), speeds
    votes = [c for c in claims if c.get("lo") in (None, "")]         # gate states: one vote per seed at K=2
    assert sorted((c["task"], c["claim"][:8]) for c in votes) == [(t, "PASS end") for t in ("synthetic_cls", "synthetic_mt")]
    assert all(c["seeds"] == 2 and "per-seed check" in c["rule"] and "seed 1:" in c["ours"] and c["budget"] for c in votes)
    record = lambda task, name: json.loads((out / "scores" / task / f"{name}.json").read_text())    # a run's record (nbs/95_compare)
    for task in ("synthetic_cls", "synthetic_mt"):                   # seed 1's runs at K=2 kept, with gate states, and timed
        kept = {m: record(task, f"{m}-K2-seed1") for m in methods}
        assert all(r["key"]["budget"] is None and sum(r["kept"]) == 2 for r in kept.values())
        timed = lambda kind, s: {p.name.split("-K")[0].removeprefix(kind) for p in (out / "scores" / task).glob(f"{kind}*-K2-seed{s}.json")}
        assert {m for m in timed("attention_", 1) if not m.startswith("again_")} == methods
        assert timed("attention_again_", 0) == methods                 # timed again: the noise
    # the budget table: its budget form (PASS, DSP and LAG at K=2, the smoke K of the claim) on budget_tasks, at the default
    # phase (the main table's steps) and at 4 and 12 steps
    budget_rows = read_csv(out / "budgets.csv")
    steps = {c["task"]: int(str(c["budget"]).split()[0]) for c in best}
    assert [(c["task"], c["phase"], c["budget"]) for c in budget_rows] == [("synthetic_cls", "default", steps["synthetic_cls"]),
                                                                         ("synthetic_cls", "budget", 4), ("synthetic_cls", "budget", 12)]
    published = {p["claim"] for p in read_csv(reproduce_dir() / "published" / "pass2023_claims.csv")}
    for c in budget_rows:
        assert "Voita not run" in c["claim"] and "PASS - best of DSP, LAG at K=2 >" in c["rule"] and c["published_claim"] in published
        assert c["verdict"] in VERDICTS + (UNDER_TRAINED,) and c["lo"] <= c["point"] <= c["hi"] and c["seeds"] == 2
    assert {p.name.split("-steps")[0] for p in out.glob("scores/*/*-steps*.npz")} == {f"{m}-K2-seed{s}" for m in ("pass", "dsp", "lag")
                                                                                     for s in (0, 1)}
    assert not list(out.glob("scores/synthetic_mt/*-steps*.npz"))                    # only the tasks of budget_tasks
    band = read_csv(out / "figure6_band.csv")                  # figure 6's bars: the claim's methods at its K, over both seeds
    assert {(b["task"], b["method"], b["K"]) for b in band} == {(t, m, 2) for t in ("synthetic_cls", "synthetic_mt")
                                                                for m in ("pass", "passconc", "dsp", "lag", "voita")}
    assert all(b["lo"] <= b["mean"] <= b["hi"] and b["seeds"] == 2 for b in band)
    out = own_copy(out, tmp_path)
    again = run_experiment("pass2023", "smoke", out_dir=out, progress=False)   # resuming redoes nothing
    assert read_csv(again / "table1.csv") == rows
    assert [c for c in read_csv(again / "claims.csv") if c.get("lo") not in (None, "")] == best   # scores cached: same intervals
    for p in (out / "scores" / "synthetic_cls").glob("*-K2-seed1.json"):   # seed 1's run records lost, their scores kept: the runs
        if not p.name.startswith("attention_"): p.unlink()
    again = run_experiment("pass2023", "smoke", out_dir=out, progress=False)   # are reopened (not retrained), the same votes
    assert [c for c in read_csv(again / "claims.csv") if c.get("lo") in (None, "")] == votes
    assert read_csv(again / "budgets.csv") == budget_rows
    monkeypatch.setenv("HEADPRUNE_CACHE", str(tmp_path / "another-machine"))   # no run folder (nor K-selection log) here: the
    again = run_experiment("pass2023", "smoke", out_dir=out, progress=False)   # baselines retrain, every finished row stays
    assert read_csv(again / "decided.csv") == decided and read_csv(again / "table1.csv") == rows

def test_behnke2020_smoke_rounds_tables_and_resume(tmp_path, monkeypatch, smoke_cache, smoke_run):
    monkeypatch.setenv("HEADPRUNE_CACHE", str(smoke_cache))
    out = smoke_run("behnke2020")
    rounds = read_csv(out / "rounds.csv")
    assert [r["heads_left"] for r in rounds] == [24, 21, 18, 15]              # 3 heads (half of 6 layers) per round
    for r in rounds:
        assert sum(int(x) for k in ("enc_self", "cross", "dec_self") for x in str(r[k]).split()) == r["heads_left"]
    assert [r["round"] for r in read_csv(out / "table3.csv")] == [0, 2, 3]
    assert [r["round"] for r in read_csv(out / "table5.csv")] == [3]
    t7 = read_csv(out / "table7.csv")
    assert t7[0]["model"] == "baseline" and t7[1]["params"] < t7[0]["params"]   # physically smaller
    import statistics
    times = [[float(x) for x in str(r["times"]).split()] for r in t7]            # every timing kept: the noise is measured
    assert [len(t) for t in times] == [3, 3] and all(abs(statistics.median(t) - r["seconds"]) < 1e-4 for t, r in zip(times, t7))
    claims = read_csv(out / "claims.csv")
    assert len(claims) == 6
    three_way = [c for c in claims if c.get("lo") not in (None, "")]        # every claim: an interval (issue 38: no votes left)
    numbers = {"Decoder self-attention is pruned first", "Decoder self-attention needs only its first layer",
               "Context attention gets more important as layers go on", "The pruned model translates faster"}
    assert {c["claim"] for c in three_way} == {"Quality holds until about 50-70% of the heads are removed",
                                               "The lottery ticket beats the same architecture re-initialised"} | numbers
    assert all(c["lo"] <= c["point"] <= c["hi"] and "supported if" in c["rule"] and c["seeds"] == 2 and "2 seeds" in c["budget"]
               and c["verdict"] in VERDICTS + (UNDER_TRAINED,) and "ticket round" in c["trained"]
               for c in three_way)              # the smoke profile's two seeds; its tickets need not converge (guarded)
    seed1 = read_csv(out / "seed1" / "claims.csv")                         # seed 1: the whole lottery again, its own folder
    assert len(seed1) == 6 and read_csv(out / "seed1" / "rounds.csv") != rounds     # other weights, other heads removed
    assert len(list((out / "seed1" / "records" / "synthetic_mt").glob("ticket-K15-seed1.npz"))) == 1   # round 3's ticket: its scores
    band = read_csv(out / "figure_rounds_band.csv")                      # the figure's band: every converged ticket, around its BLEU
    assert [b["round"] for b in band] == [0, 2, 3] and all(b["lo"] <= b["bleu_from_scores"] <= b["hi"] for b in band)
    assert all(abs(b["bleu_from_scores"] - r["bleu"]) < 0.006 for b, r in zip(band, read_csv(out / "table3.csv")))
    per_seed = [c for c in three_way if c["claim"] in numbers]              # counts of heads, a timing: numbers per seed, no examples
    assert all(c["examples"] == 0 and "seed 0:" in c["detail"] and "seed 1:" in c["detail"] and not c.get("seeds_holding")
               for c in per_seed), per_seed
    import math
    speed = lambda folder: math.log(read_csv(folder / "table7.csv")[1]["speedup"])   # a seed's log speed ratio (medians)
    fast = next(c for c in claims if c["claim"] == "The pruned model translates faster")
    assert abs(fast["point"] - (speed(out) + speed(out / "seed1")) / 2) < 2e-3, (fast, speed(out), speed(out / "seed1"))
    one = run_experiment("behnke2020", "smoke", out_dir=tmp_path / "one", progress=False, params=dict(seeds=[0]))
    assert all(unguarded(c) == "inconclusive" for c in read_csv(one / "claims.csv") if c["verdict"] != "not checked")   # one seed
    again = run_experiment("behnke2020", "smoke", out_dir=tmp_path / "b", progress=False)   # everything from the cache
    assert read_csv(again / "rounds.csv") == rounds
    assert read_csv(again / "table3.csv") == read_csv(out / "table3.csv")
    apart = tmp_path / "apart"                                             # seed 1 run on its own (another session, another machine)
    run_experiment("behnke2020", "smoke", out_dir=apart / "seed1", progress=False, params=dict(seed=1, seeds=[1]))
    seed1_prov = (apart / "seed1" / "provenance.json").read_text()
    gathered = run_experiment("behnke2020", "smoke", out_dir=apart, progress=False)   # the main run reads it back, runs it not again
    assert (apart / "seed1" / "provenance.json").read_text() == seed1_prov
    untimed = lambda rows: [c for c in rows if c.get("lo") not in (None, "") and c["claim"] != fast["claim"]]   # timed again here
    assert untimed(read_csv(gathered / "claims.csv")) == untimed(three_way)
    assert json.loads((gathered / "provenance.json").read_text())["other_seeds"]["1"]["finished_utc"] == json.loads(seed1_prov)["finished_utc"]
    p = json.loads(seed1_prov)                                             # one run with another beam: set aside, run again
    (apart / "seed1" / "provenance.json").write_text(json.dumps(dict(p, params=dict(p["params"], beam=2))))
    run_experiment("behnke2020", "smoke", out_dir=apart, progress=False)
    assert json.loads((apart / "seed1" / "provenance.json").read_text())["params"] == p["params"]
    assert json.loads((apart / "seed1.previous" / "provenance.json").read_text())["params"]["beam"] == 2
    alone = tmp_path / "alone" / "seed1"                                  # seed 1 started on its own, interrupted: the main run
    alone.mkdir(parents=True)                                              # says how to finish it, and does not run it with its own
    (alone / ".headprune-params.json").write_text(json.dumps(dict(profile="smoke", params=dict(seed=1, seeds=[1]))))
    with pytest.raises(Exception, match=r'seed 1: .*unfinished run started on its own; finish it first .*--param "seed=1" --param "seeds=\[1\]"'):
        run_experiment("behnke2020", "smoke", out_dir=alone.parent, progress=False)
    assert [f.name for f in alone.iterdir()] == [".headprune-params.json"]          # left as it was

def test_llm_heads_smoke_grid_payoff_and_claims(smoke_run):
    "The llm_heads smoke run (`headprune reproduce llm_heads`): the grid with every row's serving cost, the payoff phase after it, ten claims."
    from headprune_nb.llm_exp import PROFILES, grid
    out = smoke_run("llm_heads")
    rows = read_csv(out / "ppl.csv")
    assert len(rows) == len(grid(PROFILES["smoke"])) and all(r["kv_heads"] and r["params"] and r["prefill_tok_s"] for r in rows)
    pay = read_csv(out / "payoff.csv")
    assert {(r["method"], r["mode"], r["batch_size"]) for r in pay} == {(m, mo, b) for m, mo in (("none", "uneven"), ("michel", "group"),
                                                                       ("michel", "even")) for b in (1, 2)}
    assert len(json.loads((out / "payoff_provenance.json").read_text())["loads"]) == 2
    claims = read_csv(out / "claims.csv")
    assert len(claims) == 10 and claims[-1]["claim"] == "removing 50% of the KV groups makes decoding after a long prompt faster"
    assert all(r["ratio"] for r in claims[:8]) and read_csv(out / "versus.csv")
