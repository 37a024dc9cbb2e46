#!/usr/bin/env bash
# attn-tune's winners beside cuDNN at two clocks, on an H100 / H200: is the gap per cycle, or only under
# the power cap?
#   1. boost   each shape's winner beside cuDNN, 5 interleaved repetitions, every sample after 5 ms of GPU
#              sleep and no warm-up time: the board stays far under its power cap and both run at the
#              boost clock (boost/)
#   2. capped  the same, paced as the sweep and after 0.5 s of warm-up samples (attention_peers.py's
#              defaults, as every committed comparison): both run at the clock the power cap leaves (capped/)
#   3. summary per shape, both ratios with the SM clock and the board power NVML read (summary.md, scripts/compare/peer_tables.py)
#
#   OUT=DIR [NAME=power_cap_ratio] bash scripts/gpu/power_cap_ratio.sh LEADERBOARD[.json.gz] WINNERS.json|- [SHAPES]
#
# WINNERS.json: {shape: configuration key}, e.g. scripts/gpu/sustained_recheck.sh's winners.json; -: each
# shape's best in the leaderboard. SHAPES: comma-separated names or globs (default: every shape). The
# results go to $OUT/$NAME.

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
usage="usage: power_cap_ratio.sh LEADERBOARD WINNERS.json|- [SHAPES]"
leaderboard="$(realpath "${1:?$usage}")"
winners="${2:?$usage}"
# absolute before lib.sh changes to the repository root
[ "$winners" = "-" ] || winners="$(realpath "$winners")"
shapes="${3:-*}"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin "${NAME:-power_cap_ratio}"
gpu_host_info > "$out/host.txt"
case "$leaderboard" in
  *.gz) zcat "$leaderboard" > "$out/leaderboard.json" ;;
  *) cp "$leaderboard" "$out/leaderboard.json" ;;
esac
peers=(python3 "$root/scripts/compare/attention_peers.py" --leaderboard "$out/leaderboard.json" --shape "$shapes"
  --peers cudnn --reps 5 --attn-tune "$ATTN_TUNE")
if [ "$winners" != "-" ]; then
  cp "$winners" "$out/winners.json"
  peers+=(--configs "$out/winners.json")
fi
run_step boost 0 "${peers[@]}" --pace fixed --sleep-us 5000 --warmup-time 0 --out "$out/boost"
run_step capped 0 "${peers[@]}" --out "$out/capped"

python3 "$root/scripts/compare/peer_tables.py" clocks "$out/boost" "$out/capped" > "$out/summary.md" ||
  failures=$((failures + 1))
cat "$out/summary.md"
echo "failures: $failures"
