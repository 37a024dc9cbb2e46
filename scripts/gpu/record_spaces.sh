#!/usr/bin/env bash
# Records large search spaces exhaustively on a GPU, for the strategy benchmark
# (docs/search.md, scripts/bench/search.sh): every configuration of each spec
# on its shapes, timed briefly (the benchmark ranks configurations; it does not
# need 0.5% noise). Long: run it in slices, each call resumes the last one.
#
#   scripts/gpu/record_spaces.sh [OUT_DIR]      (default: $OUT)
#
# Environment: SPECS (default configs/flash_attn_decode_large.json), SHAPES
# (default: each spec's own), WORK (where journals persist between calls,
# default /tmp/attn-tune-spaces), SLICE_S (seconds for this call before the
# sweep is interrupted and its journal kept, default 480), MAX_TIME (0.03),
# MIN_SAMPLES (5), WARMUP_TIME (0.02), ATTN_TUNE (default build-gpu/app/attn-tune, built by
# scripts/gpu/setup.sh when missing), CUDA_DEVICE (cuda:0).
# Writes OUT_DIR/spaces.tar.gz: per spec its leaderboard (complete or partial),
# journal, command and log, and host.txt. Exit 0 when every spec is complete.

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_output_dir "${1:-${OUT:?usage: scripts/gpu/record_spaces.sh OUT_DIR (or set OUT)}}"
gpu_attn_tune || exit 1
work="${WORK:-/tmp/attn-tune-spaces}"
mkdir -p "$work"
device="${CUDA_DEVICE:-cuda:0}"
slice="${SLICE_S:-480}"
deadline=$((SECONDS + slice))
{
  echo "commit $(cat .attn-tune-commit 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null)"
  echo "date $(date -u +%FT%TZ)"
  "$ATTN_TUNE" --version
  nvidia-smi -L 2>/dev/null
} > "$work/host.txt"

incomplete=0
for spec in ${SPECS:-configs/flash_attn_decode_large.json}; do
  name=$(basename "$spec" .json)
  lb="$work/$name.json"
  left=$((deadline - SECONDS))
  if [ -f "$lb" ] && python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import leaderboards
sys.exit(0 if leaderboards.load(sys.argv[2]).get('complete') else 1)" "$root/scripts/lib" "$lb" 2>/dev/null; then
    echo "== $name: complete"
    continue
  fi
  if [ "$left" -le 30 ]; then incomplete=$((incomplete + 1)); continue; fi
  args=(sweep "$spec" --device "$device" --max-time "${MAX_TIME:-0.03}" --min-samples "${MIN_SAMPLES:-5}"
        --warmup-time "${WARMUP_TIME:-0.02}"
        --out "$lb")
  [ -n "${SHAPES:-}" ] && args+=(--shape "$SHAPES")
  if [ -f "$lb.journal.jsonl" ]; then args+=(--resume); else args+=(--overwrite); fi
  echo "$ATTN_TUNE ${args[*]}" >> "$work/$name.cmd"
  echo "== $name: ${args[*]} (for at most ${left} s)"
  # SIGINT: the sweep stops between configurations and keeps its journal (resumed by the next call)
  timeout -s INT -k 60 "$left" "$ATTN_TUNE" "${args[@]}" >> "$work/$name.log" 2>&1
  rc=$?
  echo "   exit $rc; $(wc -l < "$lb.journal.jsonl" 2>/dev/null || echo 0) journal lines"
  [ "$rc" -eq 0 ] || incomplete=$((incomplete + 1))
done
tar -C "$work" -czf "$out/spaces.tar.gz" .
echo "record_spaces: $incomplete spec(s) not complete; $out/spaces.tar.gz"
exit $((incomplete > 0))
