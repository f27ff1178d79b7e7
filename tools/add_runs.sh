#!/usr/bin/env bash
# Make the runs a committed cpu experiment lacks for one task (a task's new seeds in the power plan), or make one seed's
# runs of it again (--redo SEED: on a retrained baseline), and put their records into the committed folder (then
# re-derive it from its records).
#
#   tools/add_runs.sh [--redo SEED] TASK EXPERIMENT [ARGS...]
#   e.g. tools/add_runs.sh multi30k michel2019_ablation --param 'cls_tasks=[]'
#        tools/add_runs.sh --redo 1 multi30k michel2019_pruning
#
# The committed folder is copied to $SCRATCH/EXPERIMENT (default .cache/add-runs, or .cache/redo-seed<SEED>: inside the
# tree, ignored by git; with --redo the seed's records of TASK removed there), `headprune reproduce EXPERIMENT --profile
# cpu --out <copy> ARGS` resumes it there (every other committed record is reused; ARGS can narrow the run to TASK), and
# each record of TASK the committed folder lacks (with --redo: after the seed's are removed there) is copied into it.
# Resumable: the same command goes on from the copy. One thread; HEADPRUNE_DATA_DIR and HEADPRUNE_CACHE as set.
set -euo pipefail
redo=""
if [ "${1:-}" = "--redo" ]; then redo=$2; shift 2; fi
task=$1; exp=$2; shift 2
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=${MKL_NUM_THREADS:-1}
scratch=.cache/add-runs; [ -z "$redo" ] || scratch=.cache/redo-seed$redo
copy=${SCRATCH:-$scratch}/$exp; committed=reproduce/results/cpu/$exp/scores/$task
seed_records() { find "$1" \( -name "*-seed$redo.json" -o -name "*-seed$redo.npz" -o -name "*-seed$redo-*" \) "${@:2}"; }
if [ ! -e "$copy/.prepared" ]; then                            # a prepared copy is resumed, not made again
  rm -rf "$copy"; mkdir -p "$(dirname "$copy")"; cp -r "reproduce/results/cpu/$exp" "$copy"
  rm -f "$copy/complete.json"
  if [ -n "$redo" ]; then seed_records "$copy/scores/$task" -delete; fi
  touch "$copy/.prepared"
fi
echo "$(date -u +%FT%TZ) start $exp $task${redo:+ seed $redo}"
.venv/bin/headprune reproduce "$exp" --profile cpu --out "$copy" "$@"
if [ -n "$redo" ]; then seed_records "$committed" -delete; fi
n=0
for f in "$copy/scores/$task"/*; do
  [ -e "$committed/$(basename "$f")" ] || { cp "$f" "$committed/"; n=$((n + 1)); }
done
echo "$(date -u +%FT%TZ) end $exp $task: $n records added to $committed"
