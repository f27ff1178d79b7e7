"""Attention-head pruning for Hugging Face Transformers: five papers, literate notebooks, real speed-ups

Modules:

- `headprune_nb.almost_sure`: *Pruning Attention Heads with Almost-Sure Sparsity Targets* (PASS, 2023, under review at ICLR). `../shared/papers/pass2023_almost_sure_sparsity.md`.
- `headprune_nb.fairseq_adapter`: fairseq (Ott et al., 2019) trained the Enc-Dec of Michel et al., Voita et al., Li et al. and Behnke and Heafield. This notebook lets the rest of the package reach fairseq models.
- `headprune_nb.fidelity`: Loading and checking the cases in `../shared/fidelity/` (see its README): numbers computed by running the authors' own code on stored inputs. Every method notebook checks its `code` variant against them.
- `headprune_nb.hard_concrete`: Louizos, Welling and Kingma (2018). *Learning Sparse Neural Networks through L0 Regularization*. ICLR. Used for heads by Voita et al. (2019), and by PASS (2023) and the LAG baseline.
- `headprune_nb.lag`: Xia, Zhong and Chen (2022). *Structured Pruning Learns Compact and Accurate Models* (CoFi). ACL. Used as the LAG baseline in the PASS paper (section 3.1.2).
- `headprune_nb.lottery`: Behnke and Heafield (2020). *Losing Heads in the Lottery: Pruning Transformer Attention in Neural Machine Translation*. EMNLP.
- `headprune_nb.voita`: Voita, Talbot, Moiseev, Sennrich and Titov (2019). *Analyzing Multi-Head Self-Attention: Specialized Heads Do the Heavy Lifting, the Rest Can Be Pruned*. ACL."""

__version__ = "0.1.0"
