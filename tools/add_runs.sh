#!/usr/bin/env bash
# Make the runs a committed cpu experiment lacks for one task (a task's new seeds in the power plan) and add their
# records to the committed folder (then re-derive it from its records).
#
#   tools/add_runs.sh TASK EXPERIMENT [ARGS...]
#   e.g. tools/add_runs.sh multi30k michel2019_ablation --param 'cls_tasks=[]'
#
# The committed folder is copied to $SCRATCH/EXPERIMENT (default .cache/add-runs, inside the tree, ignored by git),
# `headprune reproduce EXPERIMENT --profile cpu --out <copy> ARGS` resumes it there (every committed record is reused;
# ARGS can narrow the run to TASK), and each record of TASK the committed folder lacks is copied into it. Resumable: the
# same command goes on from the copy. One thread; HEADPRUNE_DATA_DIR and HEADPRUNE_CACHE as set (absolute paths).
set -euo pipefail
task=$1; exp=$2; shift 2
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=${MKL_NUM_THREADS:-1}
copy=${SCRATCH:-.cache/add-runs}/$exp; committed=reproduce/results/cpu/$exp/scores/$task
if [ ! -e "$copy/.prepared" ]; then                            # a prepared copy is resumed, not made again
  rm -rf "$copy"; mkdir -p "$(dirname "$copy")"; cp -r "reproduce/results/cpu/$exp" "$copy"
  rm -f "$copy/complete.json"; touch "$copy/.prepared"
fi
echo "$(date -u +%FT%TZ) start $exp $task"
.venv/bin/headprune reproduce "$exp" --profile cpu --out "$copy" "$@"
n=0
for f in "$copy/scores/$task"/*; do
  [ -e "$committed/$(basename "$f")" ] || { cp "$f" "$committed/"; n=$((n + 1)); }
done
echo "$(date -u +%FT%TZ) end $exp $task: $n records added to $committed"
