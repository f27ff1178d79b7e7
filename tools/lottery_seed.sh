#!/usr/bin/env bash
# One seed of the behnke2020 lottery on its own, one thread, so that seeds run side by side on a 2-core machine
# (reproduce/planned/behnke2020_rerun.csv). Resumable: the same command goes on from its checkpoints.
#
#   tools/lottery_seed.sh SEED            # into .cache/behnke-rerun/seed<SEED> (inside the tree, ignored by git)
#
# Then the main run reads every seed back (seed 0's records copied into the main folder first, so nothing is
# trained or translated again): mkdir -p .cache/behnke-rerun/records && cp -r .cache/behnke-rerun/seed0/records/. \
#   .cache/behnke-rerun/records/ &&
# headprune reproduce behnke2020 --profile cpu --out .cache/behnke-rerun (Table 7 timed there on idle cores).
set -euo pipefail
cd "$(dirname "$0")/.."
s=${1:-}
if [[ ! "$s" =~ ^[0-9]+$ ]]; then
  echo "tools/lottery_seed.sh: give a training seed (a whole number), e.g. tools/lottery_seed.sh 2" >&2
  exit 2
fi
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 HEADPRUNE_CACHE=${HEADPRUNE_CACHE:-$PWD/.cache/headprune}
echo "$(date -u +%FT%TZ) start seed $s"
nice -n 5 .venv/bin/headprune reproduce behnke2020 --profile cpu --param seed="$s" --param "seeds=[$s]" \
  --out ".cache/behnke-rerun/seed$s"
echo "$(date -u +%FT%TZ) end seed $s"
