"tools/peer_fairseq.py's plumbing (issue 42 item 1b) without fairseq: our own decoder on both sides of a tiny random model."
import importlib.util, json, sys
from pathlib import Path
import pytest
from headprune_nb.data import read_lines

TOOL = Path(__file__).resolve().parent.parent / "tools" / "peer_fairseq.py"


@pytest.fixture(scope="module")
def pf():
    spec = importlib.util.spec_from_file_location("peer_fairseq", TOOL)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    return m


@pytest.fixture(scope="module")
def tiny(pf, tmp_path_factory):
    work = tmp_path_factory.mktemp("peer")
    imported = pf.self_check_model(work)
    kept = pf.removal_layout(imported, 0.5, 0)
    return dict(imported=str(imported), text=str(work / "text"), kept=kept, sentences=4, beam=2, batch_size=2, warmup=1,
                threads=1)


def test_layout_removes_half_of_every_site(pf, tiny):
    assert len(tiny["kept"]) == 6 and all(len(v) == 2 and v == sorted(set(v)) for v in tiny["kept"].values())
    assert pf.fairseq_name("model.decoder.layers.1.encoder_attn") == "decoder.layers.1.encoder_attn"


def test_rounds_alternate_and_results_are_written(pf, tiny, tmp_path):
    calls = []
    def inline(py, spec, tmp):                    # the worker in this process: the plumbing, not the processes
        calls.append((spec["side"], tuple(spec["variants"]), py))
        return json.loads(json.dumps(pf.worker(spec)))
    pythons = {"ours-as-peer": Path("peer-python"), "ours": Path(sys.executable)}
    timings = pf.bench_rounds(pythons, tiny, 2, tmp_path, peer="ours-as-peer", runner=inline)
    assert calls == [("ours", ("unpruned", "pruned"), Path("peer-python")), ("ours", ("unpruned", "pruned"), Path(sys.executable)),
                     ("ours", ("pruned", "unpruned"), Path(sys.executable)), ("ours", ("pruned", "unpruned"), Path("peer-python"))]
    assert [t["side"] for t in timings[:4]] == ["ours-as-peer"] * 2 + ["ours"] * 2
    pruned = [t for t in timings if t["variant"] == "pruned"]
    assert len(timings) == 8 and all(t["params"] < u["params"] for t, u in zip(pruned, (t for t in timings if t["variant"] == "unpruned")))
    refs = read_lines(Path(tiny["text"]) / "test.en")[:4]
    rows = pf.summarise(timings, refs, "ours-as-peer")
    assert [r["variant"] for r in rows] == ["unpruned", "pruned"]
    for r in rows:                                  # the same decoder on both sides: the same translations and BLEU
        assert r["identical"] == 4 and r["bleu_equal"] and r["outputs_stable"] and r["rounds"] == 2
        assert r["ratio_low"] <= r["ratio_peer_over_ours"] <= r["ratio_high"]
        assert r["goal_met"] == (r["ratio_low"] >= 1)
    files = pf.write_results(tmp_path / "out", rows, timings, dict(heads_kept=tiny["kept"]), prefix="selfcheck")
    saved = json.loads(files[2].read_text())
    assert [f.name for f in files] == ["selfcheck_decode.csv", "selfcheck_rounds.csv", "selfcheck_decode.json"]
    assert len(saved["timings"]) == 8 and "hyps" not in saved["timings"][0] and saved["heads_kept"] == tiny["kept"]
    assert files[1].read_text().count("\n") == 9


def test_unequal_outputs_and_missing_timings_are_caught(pf, tiny):
    base = dict(round=1, order=1, seconds=1.0, sentences_per_s=4.0, params=10, load_competing=False)
    same = ["a b c d e", "f g h i j", "k l m n o", "p q r s t"]
    timings = [dict(base, side=s, variant=v, round=r, hyps=same if s == "ours" or v == "unpruned" else ["x"] * 4,
                    seconds=1.0 + 0.1 * r + (s == "ours") * 0.5)
               for r in (1, 2) for s in ("peer", "ours") for v in ("unpruned", "pruned")]
    rows = pf.summarise(timings, same, "peer")
    assert rows[0]["identical"] == 4 and rows[0]["bleu_equal"] and rows[0]["ratio_high"] < 1 and not rows[0]["goal_met"]
    assert rows[1]["identical"] == 0 and not rows[1]["bleu_equal"]
    with pytest.raises(ValueError, match="pruned: 2 peer timings against 1 of ours"):
        pf.summarise(timings[:-1], same, "peer")


def test_worker_runs_in_its_own_process(pf, tiny, tmp_path):
    res = pf.run_worker(Path(sys.executable), dict(tiny, side="ours", round="0-0", variants=["pruned"]), tmp_path)
    assert list(res["variants"]) == ["pruned"] and len(res["variants"]["pruned"]["hyps"]) == 4
    assert res["variants"]["pruned"]["seconds"] > 0 and "transformers" in res["versions"]


def test_bad_arguments_exit_2(pf, capsys):
    for bad in (["--rounds", "1"], ["--remove", "1"], ["--sentences", "0"]):
        with pytest.raises(SystemExit) as e: pf.main(bad)
        assert e.value.code == 2
    assert "--sentences must be at least 1" in capsys.readouterr().err
