#!/usr/bin/env bash
# Gather the behnke2020 re-run (reproduce/planned/behnke2020_rerun.csv) once each seed's folder has finished
# (tools/lottery_seed.sh S): those timings ran beside another seed on one thread, so Table 7 is timed again for every
# seed, one seed at a time on the machine's idle cores (the other seeds in their folders, the main seed in the main
# folder, as the committed run did); then the main run reads every seed back. Nothing is trained again.
#
#   tools/lottery_assemble.sh            # seeds 0 (main), 1, 2 into .cache/behnke-rerun; resumable
#
# Then copy .cache/behnke-rerun into reproduce/results/cpu/behnke2020 (its markers are in .cache/behnke-assemble).
set -euo pipefail
cd "$(dirname "$0")/.."
root=.cache/behnke-rerun
marks=.cache/behnke-assemble
export HEADPRUNE_CACHE=${HEADPRUNE_CACHE:-$PWD/.cache/headprune}
unset OMP_NUM_THREADS MKL_NUM_THREADS             # every timing on all the cores, as the committed run timed
say() { echo "tools/lottery_assemble.sh: $*" >&2; }
for s in 0 1 2; do                                # a seed being timed again has no complete.json for a while
  if [[ ! -f $root/seed$s/complete.json && ! -f $marks/retiming-seed$s ]]; then
    say "seed $s has not finished: run tools/lottery_seed.sh $s first"
    exit 2
  fi
done
load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" 'BEGIN { exit !(l > 0.5) }'; then
  say "the machine is busy (load $load): time Table 7 when the other work has ended"
  exit 2
fi
mkdir -p "$marks"
for s in 1 2; do                          # a seed folder without its timing record: its run times Table 7 again
  if [[ ! -f $marks/retimed-seed$s ]]; then
    touch "$marks/retiming-seed$s"
    rm -f "$root/seed$s"/records/multi30k/timing-*.json
    .venv/bin/headprune reproduce behnke2020 --profile cpu --param seed="$s" --param "seeds=[$s]" --out "$root/seed$s"
    date -u +%FT%TZ > "$marks/retimed-seed$s"
  fi
done
if [[ ! -d $root/records ]]; then         # the main seed's records, its timing left out: the main run times it
  rm -rf "$marks/records"
  cp -r "$root/seed0/records" "$marks/records"
  rm -f "$marks/records"/multi30k/timing-*.json
  mv "$marks/records" "$root/records"
fi
if [[ ! -f $root/complete.json ]]; then
  .venv/bin/headprune reproduce behnke2020 --profile cpu --out "$root"
fi
echo "gathered: $root (copy it into reproduce/results/cpu/behnke2020)"
