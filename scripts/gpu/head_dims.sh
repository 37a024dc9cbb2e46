#!/usr/bin/env bash
# Head dimensions that are not a multiple of the MMA tiles (padded), and D = 256
# on the wgmma kernel, on one NVIDIA GPU (H100 / H200). From the repository root:
#
#   OUT=/some/dir scripts/gpu/head_dims.sh
#
# Steps, in this order (each logged under $OUT/head_dims/, none stops the others):
#   build        scripts/gpu/setup.sh (Release build in build-gpu/)
#   correctness  every configuration of the mma.sync, wgmma and decode spaces at
#                D = 8, 24, 40, 72, 80, 96, 112, 136, 200, 248 (and 256 for wgmma) on
#                small shapes with tail blocks, GQA, window, mask, ALiBi and sinks,
#                every row verified (specs in scripts/gpu/head_dims/)
#   prefill      exhaustive verified sweeps of the new shapes of configs/flash_attn_fwd.json
#                and configs/flash_attn_fwd_wgmma.json (D = 80, 96, 112 fp16/bf16, B 4,
#                Hq 32, N 4096, causal and not; D = 256 for wgmma)
#   peers        scripts/compare/attention_peers.py on the D = 80, 96 and 256 winners:
#                SDPA FlashAttention-2 / cuDNN / mem-efficient, 3 interleaved repetitions
#   decode       exhaustive verified sweep of the decode head-dim shapes at KV 32k, then its peers
# A step that would start after HEAD_DIMS_BUDGET_S seconds (default 420) is skipped
# and says so, so that the whole run stays under 8 minutes. Last: summary.md and,
# when more than 8 files were written, everything packed into head_dims.tar.gz.
#
# Environment:
#   STEPS=peers,decode,peers_decode   only these steps (default: all; build is implied)
#   PREFILL_LEADERBOARDS=DIR          the peers step's prefill leaderboards (flash_attn_fwd.json and
#                                     flash_attn_fwd_wgmma.json) from DIR instead of this run's, e.g.
#                                     results/h200/head_dims from an earlier run

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/runs/gpu-head-dims}/head_dims"
mkdir -p "$out"
budget=${HEAD_DIMS_BUDGET_S:-420}
steps=",${STEPS:-correctness,prefill,peers,decode,peers_decode},"
lbs=${PREFILL_LEADERBOARDS:-$out}
start=$SECONDS
now() { date -u +%Y-%m-%dT%H:%M:%SZ; }
say() { echo "[$((SECONDS - start)) s] $*" | tee -a "$out/progress.txt"; }

# run NAME COMMAND...: the command line, its log and exit code under $out; never aborts the script
run() {
  local name=$1; shift
  printf '%q ' "$@" >>"$out/commands.txt"; echo >>"$out/commands.txt"
  say "start $name"
  local rc=0
  "$@" >"$out/$name.log" 2>&1 || rc=$?
  say "done $name: exit $rc"
  echo "$name $rc" >>"$out/exit_codes.txt"
  grep -E "^best vs|not ranked|^compile:|^error|^attn-tune:|Traceback|FAIL" "$out/$name.log" | tail -n 12 || true
}

within_budget() {  # within_budget STEP: false when STEPS leaves it out, or (with a note) past the budget
  [[ $steps == *",$1,"* ]] || return 1
  if (( SECONDS - start > budget )); then
    say "SKIPPED $1: ${budget} s budget spent"; echo "$1 skipped (budget)" >>"$out/exit_codes.txt"; return 1
  fi
}

say "head_dims.sh at $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(now)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  >"$out/nvidia-smi.txt" 2>&1 || true

# ---- build
# sourced for ATTN_TUNE and the library path it exports; in a `||` list its own
# `set -e` cannot end this script
build_rc=0
set +u
# shellcheck source=/dev/null
source scripts/gpu/setup.sh >"$out/build.log" 2>&1 || build_rc=$?
set -euo pipefail
say "build: exit $build_rc"
bin=${ATTN_TUNE:-$root/build-gpu/app/attn-tune}
if [ "$build_rc" -ne 0 ] || [ ! -x "$bin" ]; then
  tail -n 40 "$out/build.log"; exit 1
fi
"$bin" devices >"$out/devices.txt" 2>&1 || true

quick=(--device cuda:0 --warmup 1 --warmup-time 0 --min-samples 2 --max-time 0.01)
timed=(--device cuda:0 --warmup-time 0.1 --min-samples 5 --max-time 0.1)
prefill_shapes="fp16-d80-n4096,fp16-d80-n4096-causal,bf16-d80-n4096,bf16-d80-n4096-causal"
prefill_shapes+=",fp16-d96-n4096,fp16-d96-n4096-causal,bf16-d96-n4096,bf16-d96-n4096-causal"
prefill_shapes+=",fp16-d112-n4096,fp16-d112-n4096-causal,bf16-d112-n4096,bf16-d112-n4096-causal"
wgmma_shapes="$prefill_shapes,fp16-d256-n4096,fp16-d256-n4096-causal,bf16-d256-n4096,bf16-d256-n4096-causal"
# the KV = 32k decode shapes (the KV = 4k ones too with DECODE_ALL=1: 50% more time)
decode_shapes="fp16-d80-h32-kv8-n32768,bf16-d80-h32-kv8-n32768,fp16-d96-h32-kv8-n32768,bf16-d96-h32-kv8-n32768"
decode_shapes+=",fp16-d112-h32-kv8-n32768,bf16-d112-h32-kv8-n32768"
if [ "${DECODE_ALL:-0}" = 1 ]; then
  decode_shapes+=",fp16-d80-h32-kv8-n4096,fp16-d96-h32-kv8-n4096,fp16-d112-h32-kv8-n4096"
fi

# ---- correctness at many D (small shapes, every row verified)
for spec in flash_attn_fwd flash_attn_fwd_wgmma flash_attn_decode; do
  within_budget correctness || break
  run "correct_$spec" "$bin" sweep "scripts/gpu/head_dims/${spec}_head_dims.json" "${quick[@]}" --top 1 \
    --out "$out/${spec}_head_dims.json" --overwrite
done

# ---- exhaustive verified sweeps of the new prefill shapes, then the peers
if within_budget prefill; then
  run sweep_flash_attn_fwd "$bin" sweep configs/flash_attn_fwd.json --shape "$prefill_shapes" "${timed[@]}" \
    --out "$out/flash_attn_fwd.json" --overwrite
  run sweep_flash_attn_fwd_wgmma "$bin" sweep configs/flash_attn_fwd_wgmma.json --shape "$wgmma_shapes" "${timed[@]}" \
    --out "$out/flash_attn_fwd_wgmma.json" --overwrite
fi
if within_budget peers && [ -f "$lbs/flash_attn_fwd_wgmma.json" ]; then
  run peers_prefill python3 scripts/compare/attention_peers.py --attn-tune "$bin" \
    --leaderboard "$lbs/flash_attn_fwd.json" --leaderboard "$lbs/flash_attn_fwd_wgmma.json" \
    --shape '*-d80-*,*-d96-*,*-d256-*' --reps 3 --out "$out/attention_peers_prefill"
fi

# ---- decode
if within_budget decode; then
  run sweep_flash_attn_decode "$bin" sweep configs/flash_attn_decode.json --shape "$decode_shapes" "${timed[@]}" \
    --out "$out/flash_attn_decode.json" --overwrite
fi
if within_budget peers_decode && [ -f "$out/flash_attn_decode.json" ]; then
  run peers_decode python3 scripts/compare/attention_peers.py --attn-tune "$bin" \
    --leaderboard "$out/flash_attn_decode.json" --shape '*-d80-*-n32768,*-d96-*-n32768' --reps 3 \
    --out "$out/attention_peers_decode"
fi

# ---- summary: per leaderboard, the status counts and every configuration not ok
python3 scripts/gpu/run_summary.py "$out" >"$out/summary.md" || say "summary failed"
cat "$out/summary.md"
for f in "$out"/attention_peers_*.md "$out"/attention_peers_*/*.md; do
  [ -f "$f" ] && { echo "== $f"; cat "$f"; }
done
say "finished, $(now)"

# ---- one file to fetch when there are many
n=$(find "$out" -type f | wc -l)
if [ "$n" -gt 8 ]; then
  tar -czf "$out/../head_dims.tar.gz" -C "$out/.." head_dims && rm -rf "$out"
  echo "packed $n files into ${out%/head_dims}/head_dims.tar.gz"
fi
