#!/usr/bin/env bash
# Redo one seed's runs of one task in committed cpu experiments, on the baseline now in the cache (a retrained one),
# and put the seed's new records back into the committed folders (then re-derive them from their records).
#
#   tools/redo_seed.sh SEED TASK EXPERIMENT...     # e.g. tools/redo_seed.sh 1 multi30k michel2019_ablation michel2019_pruning
#
# Each experiment's committed folder is copied to $SCRATCH (default /tmp/redo-seed<SEED>), the seed's records of TASK
# removed there, `headprune reproduce EXPERIMENT --profile cpu --out <copy>` resumes it (every other record is reused),
# and the seed's new records replace the committed ones. One thread; HEADPRUNE_DATA_DIR and HEADPRUNE_CACHE as set.
set -euo pipefail
s=$1; task=$2; shift 2
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=${MKL_NUM_THREADS:-1}
S=${SCRATCH:-/tmp/redo-seed$s}; mkdir -p "$S"
for exp in "$@"; do
  copy=$S/$exp; committed=reproduce/results/cpu/$exp/scores/$task
  echo "$(date -u +%FT%TZ) start $exp seed $s"
  if [ ! -e "$copy/.prepared" ]; then                        # resumable: a prepared copy is resumed, not remade
    rm -rf "$copy"; cp -r "reproduce/results/cpu/$exp" "$copy"; rm -f "$copy/complete.json"
    find "$copy/scores/$task" \( -name "*-seed$s.json" -o -name "*-seed$s.npz" \) -delete
    touch "$copy/.prepared"
  fi
  .venv/bin/headprune reproduce "$exp" --profile cpu --out "$copy"
  find "$committed" \( -name "*-seed$s.json" -o -name "*-seed$s.npz" \) -delete
  find "$copy/scores/$task" \( -name "*-seed$s.json" -o -name "*-seed$s.npz" \) -exec cp {} "$committed/" \;
  echo "$(date -u +%FT%TZ) end $exp seed $s: $(ls "$committed" | grep -c -- "-seed$s\.") files"
done
