#!/usr/bin/env bash
# Redo one seed's runs of one task in committed cpu experiments, on the baseline now in the cache (a retrained one):
# `tools/add_runs.sh --redo SEED TASK EXPERIMENT` for each experiment (see there).
#
#   tools/redo_seed.sh SEED TASK EXPERIMENT...
#   e.g. tools/redo_seed.sh 1 multi30k michel2019_ablation michel2019_pruning
set -euo pipefail
s=$1; task=$2; shift 2
for exp in "$@"; do "$(dirname "$0")/add_runs.sh" --redo "$s" "$task" "$exp"; done
