#!/usr/bin/env bash
# Strategy benchmark: every attn-tune strategy (attn-tune replay) and Kernel
# Tuner's strategies (simulation mode) on each recorded exhaustive space, 20
# seeds each, at 10% and 5% of each large space; writes results/search/table.md and table.json.
#   scripts/bench/search.sh [SPACE...]
# SPACE: an attn-tune leaderboard, a Kernel Tuner cache file or a T4 document (.json or .json.gz); default:
# results/h200's exhaustive sweeps, the large recorded space and the five public spaces of ../shared/search-spaces/.
# Needs build/app/attn-tune (ATTN_TUNE=...) and a python with kernel_tuner==1.5.0 and autotuning_methodology
# (PYTHON=..., default python3). BENCH_ARGS adds options of scripts/bench/search_bench.py.

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
OUT=${SEARCH_OUT:-results/search}
if [ $# -eq 0 ]; then
  # Exhaustive sweeps only: not the repeat runs of one shape, not the isolation testbed. The large space is named
  # by its .json (search_bench reads the .json.gz beside it).
  set -- $(ls results/h200/*.json 2>/dev/null | grep -v -E 'repeat[0-9]|isolation') results/h200/large/flash_attn_decode_large.json \
    ../shared/search-spaces/*.json.gz
fi
"$PYTHON" scripts/bench/search_bench.py "$@" --attn-tune "${ATTN_TUNE:-build/app/attn-tune}" --repeat "${REPEAT:-20}" \
  --out "$OUT" --command "scripts/bench/search.sh $*" ${BENCH_ARGS:-}
