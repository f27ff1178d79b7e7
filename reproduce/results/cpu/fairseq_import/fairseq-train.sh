#!/bin/bash
# fairseq-train: a transformer_iwslt_de_en-family model in our multi30k-encdec shape, on Multi30k De-En, CPU
OMP_NUM_THREADS=2 /work/main/.venv/bin/fairseq-train data-bin --cpu --arch transformer_iwslt_de_en \
  --encoder-embed-dim 256 --decoder-embed-dim 256 --encoder-layers 3 --decoder-layers 3 \
  --encoder-attention-heads 8 --decoder-attention-heads 8 --encoder-ffn-embed-dim 1024 --decoder-ffn-embed-dim 1024 \
  --share-decoder-input-output-embed --dropout 0.1 --weight-decay 0.0001 \
  --optimizer adam --adam-betas '(0.9, 0.98)' --lr 1e-3 --lr-scheduler inverse_sqrt --warmup-updates 400 \
  --criterion label_smoothed_cross_entropy --label-smoothing 0.1 --max-tokens 2048 \
  --max-epoch 5 --no-epoch-checkpoints --seed 0 --save-dir checkpoints --log-format simple --log-interval 50 \
  --num-workers 0
