#!/usr/bin/env bash
# Gather the behnke2020 re-run (reproduce/planned/behnke2020_rerun.csv) once each seed's folder has finished
# (tools/lottery_seed.sh S): those timings ran beside another seed on one thread, so Table 7 is timed again for every
# seed, one seed at a time on the machine's idle cores (the other seeds in their folders, the main seed in the main
# folder, as the committed run did); then the main run reads every seed back. Nothing is trained again.
#
#   tools/lottery_assemble.sh            # seeds 0 (main), 1, 2 into .cache/behnke-rerun; resumable
#
# Then copy .cache/behnke-rerun (not seed<S>/checkpoints) into reproduce/results/cpu/behnke2020.
set -euo pipefail
cd "$(dirname "$0")/.."
root=.cache/behnke-rerun
export HEADPRUNE_CACHE=${HEADPRUNE_CACHE:-$PWD/.cache/headprune}
unset OMP_NUM_THREADS MKL_NUM_THREADS             # every timing on all the cores, as the committed run timed
for s in 0 1 2; do
  if [[ ! -f $root/seed$s/complete.json ]]; then
    echo "tools/lottery_assemble.sh: seed $s has not finished: run tools/lottery_seed.sh $s first" >&2
    exit 2
  fi
done
if pgrep -f "headprune reproduce" > /dev/null; then
  echo "tools/lottery_assemble.sh: another headprune run is on this machine: time Table 7 when it has ended" >&2
  exit 2
fi
for s in 1 2; do                          # a seed folder's timing record gone: its run times Table 7 again, nothing else
  if [[ ! -f $root/seed$s/retimed ]]; then
    rm -f "$root/seed$s"/records/multi30k/timing-*.json
    .venv/bin/headprune reproduce behnke2020 --profile cpu --param seed="$s" --param "seeds=[$s]" --out "$root/seed$s"
    date -u +%FT%TZ > "$root/seed$s/retimed"
  fi
done
if [[ ! -d $root/records ]]; then         # the main seed's records, its timing left out: the main run times it
  mkdir -p "$root/records.part"
  cp -r "$root/seed0/records/." "$root/records.part/"
  rm -f "$root/records.part"/multi30k/timing-*.json
  mv "$root/records.part" "$root/records"
fi
.venv/bin/headprune reproduce behnke2020 --profile cpu --out "$root"
