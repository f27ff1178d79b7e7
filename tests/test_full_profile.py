"""The `full` profile cannot run here (no GPU, no bert-base weights, no IWSLT training split offline):
check that each of its recipes builds the paper-sized model and takes a real optimizer step through
the same configuration code the full runs use."""
import dataclasses
import pytest
import torch
from headprune_nb.heads import HeadIndex
from headprune_nb.models import build_architecture
from headprune_nb.recipes import find_recipe, train_config, ClsRecipe
from headprune_nb.train import train

@pytest.mark.parametrize("task, heads", [("mnli", 144), ("iwslt14", 72)])
def test_full_recipe_takes_a_training_step(task, heads):
    torch.manual_seed(0)
    r = find_recipe("full", task)
    model = build_architecture(r.model)
    assert HeadIndex.from_model(model).H == heads
    if isinstance(r, ClsRecipe):
        assert (r.model, r.lr, r.epochs, r.eval_split) == ("bert-base", 2e-5, 3, "dev_mismatched")
        ids = torch.randint(1000, 2000, (2, 16))
        batch = dict(input_ids=ids, attention_mask=torch.ones_like(ids), labels=torch.tensor([0, 1]))
    else:
        assert (r.model, r.epochs, r.lr, r.warmup, r.max_tokens) == ("iwslt-encdec", 60, 5e-4, 4000, 4096)
        src, tgt = torch.randint(4, 9000, (2, 10)), torch.randint(4, 9000, (2, 8))
        batch = dict(input_ids=src, attention_mask=torch.ones_like(src), decoder_input_ids=tgt, labels=tgt)
    cfg = dataclasses.replace(train_config(r, n_batches=1000), max_steps=1)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    train(model, lambda epoch: [batch], cfg, progress=False)
    changed = sum(not torch.equal(before[n], p) for n, p in model.named_parameters())
    assert changed > len(before) // 2, f"only {changed} of {len(before)} tensors moved"
