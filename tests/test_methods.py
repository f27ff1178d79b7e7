"The methods registry (nbs/20_api): one entry per method and variant, one default variant, K checked once at the edge."
import copy
import pytest
import torch
from headprune_nb import api
from headprune_nb.api import make_pruner, prune_to_k
from headprune_nb.models import tiny_bert
from headprune_nb.data import synthetic_classification, WordTokenizer, collate_classification


@pytest.fixture(scope="module")
def batches():
    ex = synthetic_classification(64, seed=0)
    tok = WordTokenizer.build([e.text_a for e in ex])
    return [collate_classification(tok, ex[i:i + 32]) for i in range(0, 64, 32)]


def test_voita_k_beyond_the_model_is_refused():
    m = tiny_bert(36)                                   # 36 layers x 4 heads = 144 heads
    with pytest.raises(ValueError, match=r"1\.\.144") as e:
        make_pruner("voita", m, K=200)
    assert "\n" not in str(e.value)                    # one clear line


def test_make_pruner_returns_the_registry_entrys_class():
    m = tiny_bert()
    for (method, variant), entry in api.REGISTRY.items():
        if entry.cls is not None:
            assert type(make_pruner(method, m, 3, 20, variant=variant)) is entry.cls, (method, variant)


def test_michel_and_dsp_share_one_default_variant(batches, monkeypatch):
    seen = []
    real = api.head_importance
    monkeypatch.setattr(api, "head_importance", lambda *a, **kw: seen.append(kw.get("variant", "paper")) or real(*a, **kw))
    prune_to_k(copy.deepcopy(tiny_bert()), batches, K=3, method="michel", progress=False)
    assert seen == [make_pruner("dsp", tiny_bert(), 3, 10).variant]


def test_soft_topk_is_not_checked_every_step(monkeypatch):
    import headprune_nb.dsp as dsp
    calls = []
    real = dsp.check_k
    monkeypatch.setattr(dsp, "check_k", lambda *a: calls.append(a) or real(*a))
    pr = dsp.DSPPruner(8, 3, n_cooldown=10).train()
    n = len(calls)
    for step in range(5): pr.gates(step)
    assert len(calls) == n                              # K was checked when the pruner was built, not per step


def test_the_classes_default_to_the_default_variant():
    from headprune_nb.fidelity import DEFAULT_VARIANT
    from headprune_nb.dsp import DSPPruner, STEPruner
    from headprune_nb.voita import VoitaPruner
    from headprune_nb.almost_sure import PassPruner, PassConcPruner
    pruners = [DSPPruner(8, 2), STEPruner(8, 2), VoitaPruner(8, 0.1), PassPruner(8, 2), PassConcPruner(8, 2, [4, 4])]
    assert [p.variant for p in pruners] == [DEFAULT_VARIANT] * 5

def test_michels_functions_default_to_the_default_variant():
    "Michel's module functions follow the one default too (they defaulted to 'paper' while prune_to_k used 'code')."
    import inspect
    from headprune_nb.fidelity import DEFAULT_VARIANT
    from headprune_nb.michel import head_importance, iterative_pruning, pruning_schedule
    for f in (head_importance, iterative_pruning, pruning_schedule):
        assert inspect.signature(f).parameters["variant"].default == DEFAULT_VARIANT, f.__name__
