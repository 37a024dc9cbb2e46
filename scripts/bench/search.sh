#!/usr/bin/env bash
# Strategy benchmark: every attn-tune strategy (attn-tune replay) and Kernel
# Tuner's strategies (simulation mode) on each recorded exhaustive space, 20
# seeds each; writes results/search/table.md and table.json.
#   scripts/bench/search.sh [LEADERBOARD...]     (default: results/h200/*.json exhaustive sweeps)
# Needs build/app/attn-tune and a python with kernel_tuner (PYTHON=..., default python3).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
OUT=${SEARCH_OUT:-results/search}
if [ $# -eq 0 ]; then
  # Exhaustive sweeps only: not the repeat runs of one shape, not the isolation testbed.
  set -- $(ls results/h200/*.json results/h200/large/*.json 2>/dev/null | grep -v -E 'repeat[0-9]|isolation')
fi
"$PYTHON" scripts/bench/search_bench.py "$@" --attn-tune build/app/attn-tune --repeat "${REPEAT:-20}" --out "$OUT" \
  --command "scripts/bench/search.sh $*" ${BENCH_ARGS:-}
