#!/usr/bin/env bash
# Does a sweep's winner stay the winner at the clock the GPU sustains? A quick sweep samples each
# configuration for tens of milliseconds, at the boost clock (1965 MHz on the lent H200s); the
# comparison with the peers (scripts/compare/attention_peers.py) samples for seconds, at the clock the
# power cap leaves (1600-1700 MHz), and each configuration draws its own power per cycle. This script
# re-times the top configurations of the named shapes interleaved, with a long warm-up, and, where
# another configuration comes first, compares that one with the peers.
#
#   OUT=DIR [TAG=NAME] bash scripts/gpu/sustained_recheck.sh LEADERBOARD[.gz] SHAPE,SHAPE,... [TOP] [PEERS]
#
# writes under $OUT/sustained_recheck[-TAG]/:
#
#   1. sustained.json  the leaderboard's groups of those shapes, its timing settings changed to
#                      WARMUP_S (default 1.5) seconds of warm-up and MAX_TIME_S (0.4) of sampling, 20
#                      samples at least (the only change: the file says so in its settings)
#   2. recheck         attn-tune bench --recheck sustained.json: the TOP (default 6) configurations per
#                      shape, ROUNDS (default 3) interleaved rounds
#   3. winners.md      per shape: the recorded winner, the sustained winner and their re-timed medians;
#      winners.json    {shape: the sustained winner} (scripts/compare/attention_peers.py --configs)
#   4. peers-SHAPE/    where another configuration is 1% or more faster (every shape with PEERS_ALL=1): the
#                      sustained winner beside FA2 and cuDNN (PEERS, default fa2,cudnn; none: no comparison),
#                      5 interleaved repetitions

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
leaderboard="$(realpath "${1:?usage: sustained_recheck.sh LEADERBOARD SHAPES [TOP] [PEERS]}")"
shapes="${2:?usage: sustained_recheck.sh LEADERBOARD SHAPES [TOP] [PEERS]}"
top="${3:-6}"
rounds="${ROUNDS:-3}"
peers="${4:-fa2,cudnn}"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin "sustained_recheck${TAG:+-$TAG}"
gpu_host_info > "$out/host.txt"
python3 "$root/scripts/gpu/recheck_files.py" copy "$leaderboard" "$shapes" "$out/sustained.json" "${WARMUP_S:-1.5}" \
  "${MAX_TIME_S:-0.4}" || exit 2
spec="$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import leaderboards
print(leaderboards.load(sys.argv[2])["spec"]["path"])' "$root/scripts/lib" "$out/sustained.json")"
case "$spec" in /*) ;; *) spec="$root/$spec" ;; esac
run_step recheck 0 "$ATTN_TUNE" bench "$spec" --recheck "$out/sustained.json" --top "$top" --rounds "$rounds" --tolerance 100
all=(); [ "${PEERS_ALL:-0}" = 1 ] && all=(--all)
python3 "$root/scripts/gpu/recheck_files.py" winners "$out/recheck.log" "$out" ${all[@]+"${all[@]}"} || exit 1
[ "$peers" = none ] && : > "$out/changed.txt" # no comparison asked for
while read -r shape key; do
  run_step "peers-$shape" 0 python3 scripts/compare/attention_peers.py --leaderboard "$out/sustained.json" --shape "$shape" \
    --config "$key" --reps 5 --peers "$peers" --attn-tune "$ATTN_TUNE" --out "$out/peers-$shape"
  grep -E "^\| $shape " "$out/peers-$shape/attention_peers.md" | head -1
done < "$out/changed.txt"
echo "failures: $failures"
