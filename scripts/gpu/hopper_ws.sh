#!/usr/bin/env bash
# The warp-specialized Hopper prefill kernel (kernels/cuda/flash_attn_fwd_ws.cu)
# on an H100 / H200, in one call, in this order (each step's output under $OUT):
#
#   1. build            scripts/gpu/setup.sh (when $ATTN_TUNE is not built yet)
#   2. verify           every configuration on configs/flash_attn_fwd_ws_small.json's
#                       edge shapes; any incorrect / crashed / timed-out one stops here
#   3. sweep            the 15 anchor prefill shapes, the 5 sliding-window shapes and
#                       2 at D = 256, every configuration (configs/flash_attn_fwd_ws.json)
#   3b. pingpong0       PINGPONG with OVERLAP 0 against without, 2 and 3 consumers, on the
#                       D = 64 / 128 shapes, interleaved in one short sweep of those 8 configurations
#   3c. sustained       scripts/gpu/sustained_recheck.sh: the 3 best per shape (not the windows) re-timed
#                       interleaved at the clock the GPU sustains, which picks the winner the peers meet
#   4. peers            scripts/compare/attention_peers.py: the winner per shape beside
#                       FA2, cuDNN and mem-efficient SDPA, and flex_attention on the window
#                       shapes, --reps 3 interleaved on the same tensors
#   5. determinism      the matrix (D 64 / 128 x KV x GQA x features) on the winner
#   6. flex             scripts/compare/window_linear_torch.py: flex_attention on the
#                       window shapes, joined with the sweep's best (full run only)
#   7. ncu (--ncu)      one shape's winner under Nsight Compute: tensor-pipe
#                       utilisation, issue-stall reasons
#
#   OUT=/tmp/out scripts/gpu/hopper_ws.sh [--ncu] [--quick | --rest | --causal | --shapes=A,B,...]
#
# Full: every anchor, window and D = 256 shape. --quick: the 10 shapes at N = 1024 and 4096
# (D 64 / 128, fp16 causal or not, bf16 non-causal), half the sampling time, FA2 and cuDNN
# only, no flex: 436 s on an H200 with the build and 318 configurations (2026-11-25).
# --rest: the shapes --quick leaves out (the N = 16384 anchors, bf16-d128-n4096-causal,
# the window and D = 256 shapes) with --quick's sampling, FA2 and cuDNN on the anchor and
# D = 256 ones, flex_attention interleaved on the windows, no determinism: estimated 7-8 minutes with the build
# (~600 sweep pairs at ~0.3 s, verify ~100 s, peers ~75 s). Every step prints one progress line; the files of the steps
# are packed into $OUT/hopper_ws.tar.gz (more than 8 files), with SUMMARY.md and
# the exit codes beside it. --causal: the 7 causal anchors only, with --quick's sampling,
# FA2 and cuDNN, no ping-pong pairs, determinism or flex (about 6 minutes with the build).
# --shapes=A,B,...: the same for the named shapes of configs/flash_attn_fwd_ws.json (flex_attention
# interleaved on window shapes). Exit 1 when the verification fails or a step fails.
# Environment: ATTN_TUNE (default build-gpu/app/attn-tune), CUDA_DEVICE (cuda:0).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:?set OUT to the output folder}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$out/hopper_ws"
mkdir -p "$work"
ncu=0
quick=0
rest=0
causal=0
subset=0 # --causal or --shapes: named shapes only, quick sampling, peers only
only=""
for a in "$@"; do
  case "$a" in
    --ncu) ncu=1 ;;
    --quick) quick=1 ;;
    --rest) rest=1 ;;
    --causal) causal=1 subset=$((subset + 1)) ;;
    --shapes=?*) only="${a#--shapes=}" subset=$((subset + 1)) ;;
    *) echo "unknown argument '$a' (use --ncu, --quick, --rest, --causal, --shapes=A,B,...)"; exit 2 ;;
  esac
done
[ $((quick + rest + subset)) -le 1 ] || { echo "--quick, --rest, --causal and --shapes: one of them"; exit 2; }
t0=$SECONDS
say() { echo "[hopper_ws +$((SECONDS - t0))s] $*"; }

ATTN_TUNE="${ATTN_TUNE:-$root/build-gpu/app/attn-tune}"
if [ ! -x "$ATTN_TUNE" ]; then
  say "building (scripts/gpu/setup.sh)"
  # shellcheck source=scripts/gpu/setup.sh
  source "$root/scripts/gpu/setup.sh" > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
fi
export ATTN_TUNE
cuda="${CUDA_DEVICE:-cuda:0}"
spec=configs/flash_attn_fwd_ws.json
{
  echo "commit $(cat .attn-tune-commit 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null)"
  date -u +%Y-%m-%dT%H:%M:%SZ
  "$ATTN_TUNE" --version
  nvidia-smi -L 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv 2>/dev/null
} > "$work/host.txt" 2>&1
say "host: $(sed -n 4p "$work/host.txt")"

failures=0
# step NAME COMMAND...: runs it, keeps its command, output and exit code.
step() {
  local name=$1
  shift
  printf '%q ' "$@" > "$work/$name.cmd"
  echo >> "$work/$name.cmd"
  local start=$SECONDS
  "$@" > "$work/$name.log" 2>&1
  local rc=$?
  echo "$rc" > "$work/$name.rc"
  say "$name: exit $rc in $((SECONDS - start)) s"
  return $rc
}

# Statuses of a leaderboard's entries: "ok 120, incorrect 2 (first: KEY on SHAPE: reason)"
statuses() {
  python3 - "$root/scripts/lib" "$1" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import leaderboards
d = leaderboards.load(sys.argv[2])
c = leaderboards.status_counts(d)
bad = [f'{e["key"]} on {g["shape"]}: {e["status"]} {e.get("reason", "")[:200]}' for g, e in leaderboards.entries(d)
       if e["status"] in ("incorrect", "crashed", "timeout", "launch_failed")]
print(", ".join(f"{k} {v}" for k, v in sorted(c.items())))
for b in bad[:10]:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF
}

# ---- 2. verify: small edge shapes, every configuration
# (a hang, e.g. a cluster barrier that never completes, costs the watchdog's 15 s per configuration)
step verify "$ATTN_TUNE" sweep configs/flash_attn_fwd_ws_small.json --device "$cuda" --max-time 0.02 --min-samples 1 \
  --warmup 0 --warmup-time 0 --watchdog 15 --overwrite -q --out "$work/verify.json"
if ! statuses "$work/verify.json" > "$work/verify.status" 2>&1; then
  say "verification FAILED: $(head -1 "$work/verify.status")"
  cat "$work/verify.status"
  failures=$((failures + 1))
  verified=0
else
  say "verified: $(head -1 "$work/verify.status")"
  verified=1
fi

anchors="fp16-d64-n1024,fp16-d64-n1024-causal,fp16-d64-n4096,fp16-d64-n4096-causal,fp16-d64-n16384"
anchors+=",fp16-d64-n16384-causal,fp16-d128-n1024,fp16-d128-n1024-causal,fp16-d128-n4096,fp16-d128-n4096-causal"
anchors+=",fp16-d128-n16384,fp16-d128-n16384-causal,bf16-d128-n4096,bf16-d128-n4096-causal,bf16-d64-n4096"
windows="window-n8192-w256,window-n32768-w1024,window-n16384-w512,window-n8192-w256-d64,window-bf16-n8192-w256"
d256="fp16-d256-n4096,fp16-d256-n4096-causal"
shapes="$anchors,$windows,$d256"
peer_shapes="$anchors,$windows,$d256"
if [ "$quick" = 1 ]; then
  shapes="fp16-d64-n1024,fp16-d64-n1024-causal,fp16-d64-n4096,fp16-d64-n4096-causal,fp16-d128-n1024"
  shapes+=",fp16-d128-n1024-causal,fp16-d128-n4096,fp16-d128-n4096-causal,bf16-d64-n4096,bf16-d128-n4096"
  peer_shapes="$shapes"
elif [ "$rest" = 1 ]; then
  peer_shapes="fp16-d64-n16384,fp16-d64-n16384-causal,fp16-d128-n16384,fp16-d128-n16384-causal"
  peer_shapes+=",bf16-d128-n4096-causal,$d256"
  peer_shapes+=",$windows"
  shapes="$peer_shapes"
elif [ "$causal" = 1 ]; then
  shapes="fp16-d64-n1024-causal,fp16-d64-n4096-causal,fp16-d64-n16384-causal,fp16-d128-n1024-causal"
  shapes+=",fp16-d128-n4096-causal,fp16-d128-n16384-causal,bf16-d128-n4096-causal"
  peer_shapes="$shapes"
elif [ -n "$only" ]; then
  shapes="$only"
  peer_shapes="$only"
fi
# (--quick, --rest: FA2, cuDNN and flex only, the ratios the notes quote; short sampling; flex_attention
# runs on the window shapes only, the SDPA backends on the others)
peers=fa2,cudnn,efficient,flex
sample=0.1
if [ "$quick" = 1 ] || [ "$rest" = 1 ] || [ "$subset" = 1 ]; then
  peers=fa2,cudnn,flex
  sample=0.05
fi

if [ "$verified" = 1 ]; then
  # ---- 3. the exhaustive sweep
  # ~770 (configuration, shape) pairs: short sampling keeps the sweep near 2-3 minutes; the GPU stays busy
  # from one configuration to the next, but not at its sustained clock: the leaderboards record 1905-1980 MHz, the
  # peers step 1590-1720 (the power cap), so step 3c re-times the best few at the sustained clock
  # (--quick, --rest: ~600-700 pairs, half the sampling time, to stay under 8 minutes in all)
  step sweep "$ATTN_TUNE" sweep "$spec" --shape "$shapes" --device "$cuda" --max-time "$sample" --min-samples 5 \
    --warmup-time 0.05 --watchdog 30 --overwrite -q --out "$work/flash_attn_fwd_ws.json" || failures=$((failures + 1))
  statuses "$work/flash_attn_fwd_ws.json" > "$work/sweep.status" 2>&1 || failures=$((failures + 1))
  say "sweep: $(head -1 "$work/sweep.status")"
  # the table of the winner per shape, and the most frequent winner
  python3 scripts/gpu/ws_winners.py winners "$work/flash_attn_fwd_ws.json" > "$work/winners.md"
  winner=$(sed -n 's/^winner on [0-9]* shape(s): //p' "$work/winners.md" | head -1)
  say "most frequent winner: ${winner:-none}"
  cat "$work/winners.md"

  # ---- 3b. PINGPONG with OVERLAP 0 (S and P V issued in turn) against without, side by side:
  # the 8 configurations of 2 / 3 consumers x 2 / 3 stages x ping-pong, non-persistent, in one sweep
  # with twice the sampling (on the N = 16384 anchor too in --rest; D = 128 fits 2 consumers only)
  if [ "$subset" = 0 ]; then
  # every parameter at the FA3 preset's value (so a knob added to the spec is named here too), then the 8 configurations
  python3 - "$root" "$work/flash_attn_fwd_ws_pingpong0.json" <<'EOF'
import json, sys
root, out = sys.argv[1:]
spec = json.load(open(f"{root}/configs/flash_attn_fwd_ws.json"))["kernels"]["prefill_ws"]
params = {k: [v] for k, v in spec["presets"]["FA3"].items()}
params.update({"WS_CONSUMERS": [2, 3], "CONS_ROWS": [64], "BLOCK_N": [128], "STAGES": [2, 3], "REG_SPLIT": [1], "OVERLAP": [0],
               "PINGPONG": [0, 1], "PERSISTENT": [0], "CLUSTER": [1]})
baseline = {k: v[0] for k, v in params.items()} | {"WS_CONSUMERS": 3}
json.dump({"attn_tune_spec": 1, "extends": f"{root}/configs/flash_attn_fwd_ws.json", "name": "flash_attn_fwd_ws_pingpong0",
           "kernels": {"prefill_ws": {"params": params, "presets": {"ThreeNoOverlap": baseline}, "baseline": "ThreeNoOverlap"}}},
          open(out, "w"), indent=1)
EOF
  pp0_shapes="fp16-d64-n1024,fp16-d64-n1024-causal,fp16-d64-n4096,fp16-d64-n4096-causal,bf16-d64-n4096"
  pp0_shapes+=",fp16-d128-n1024,fp16-d128-n4096,fp16-d128-n4096-causal"
  [ "$rest" = 1 ] && pp0_shapes="fp16-d64-n1024,fp16-d64-n4096,bf16-d64-n4096,fp16-d128-n4096,fp16-d64-n16384,fp16-d64-n16384-causal,fp16-d128-n16384"
  step pingpong0 "$ATTN_TUNE" sweep "$work/flash_attn_fwd_ws_pingpong0.json" --shape "$pp0_shapes" --device "$cuda" \
    --max-time "$(python3 -c "print(2 * $sample)")" --min-samples 5 --warmup-time 0.05 --watchdog 30 --overwrite -q \
    --out "$work/pingpong0.json" || failures=$((failures + 1))
  python3 scripts/gpu/ws_winners.py pairs "$work/pingpong0.json" > "$work/pingpong0.md"
  cat "$work/pingpong0.md"
  fi

  # ---- 3c. the winners at the sustained clock: the sweep samples at the boost clock, the peers step at the
  # clock the power cap leaves, and the order of the best few can differ there (D = 256: 3.6-6.7%;
  # results/h200/hopper_ws/sustained_recheck/). The 3 best per shape (windows aside: flex is far behind),
  # re-timed interleaved after 0.5 s of warm-up; the peers step then compares each shape's sustained winner.
  sustained_shapes="$(tr ',' '\n' <<< "$peer_shapes" | grep -v '^window-' | paste -sd, -)"
  configs=()
  if [ -n "$sustained_shapes" ]; then
    step sustained env OUT="$work" WARMUP_S=0.5 MAX_TIME_S=0.2 bash scripts/gpu/sustained_recheck.sh \
      "$work/flash_attn_fwd_ws.json" "$sustained_shapes" 3 none || failures=$((failures + 1))
    if [ -s "$work/sustained_recheck/winners.json" ]; then
      configs=(--configs "$work/sustained_recheck/winners.json")
      cat "$work/sustained_recheck/winners.md"
    fi
  fi

  # ---- 4. the peers: attn-tune's best per shape (at the sustained clock) against SDPA's FA2 / cuDNN / mem-efficient
  step peers python3 scripts/compare/attention_peers.py --leaderboard "$work/flash_attn_fwd_ws.json" \
    ${configs[@]+"${configs[@]}"} --shape "$peer_shapes" --reps 3 --peers "$peers" --attn-tune "$ATTN_TUNE" \
    --out "$work/attention_peers" || failures=$((failures + 1))
  tail -25 "$work/peers.log"

  # ---- 5. determinism matrix on the winner (not in --rest: --quick ran it)
  if [ -n "$winner" ] && [ "$rest" = 0 ] && [ "$subset" = 0 ]; then
    # B = 33 is left out: drawing its inputs on one host core is most of the matrix's time
    step determinism "$ATTN_TUNE" determinism "$spec" -k prefill_ws --set "$winner" --head-dims 64,128 \
      --batch-sizes 1,2,8 --shape "fp16-d128-n1024-causal,Hq=4,Hkv=4,Nq=256" --device "$cuda" \
      --out "$work/determinism.json" ||
      failures=$((failures + 1))
    tail -5 "$work/determinism.log"
  fi

  # ---- 6. flex_attention on the window shapes, as window_linear_torch.py times it (cold, its own inputs) beside
  # the sweep's best: the full run only (the peers step compares flex interleaved, on the same tensors)
  if [ "$quick" = 0 ] && [ "$subset" = 0 ] && [ "$rest" = 0 ]; then
    step flex python3 scripts/compare/window_linear_torch.py "$work/window_torch" \
      --leaderboards "$work/flash_attn_fwd_ws.json" || failures=$((failures + 1))
    tail -12 "$work/flex.log"
  fi

  # ---- 7. ncu on one shape's winner (tensor-pipe utilisation, stall reasons)
  if [ "$ncu" = 1 ] && [ -n "$winner" ]; then
    export PATH="$PATH:/usr/local/cuda/bin"
    if command -v ncu > /dev/null; then
      best128=$(python3 scripts/lib/leaderboards.py winners "$work/flash_attn_fwd_ws.json" --shape fp16-d128-n4096 \
        --key-only)
      # sections only (metric names differ between Nsight Compute versions): SpeedOfLight and
      # ComputeWorkloadAnalysis give the tensor pipe's share, WarpStateStats the stall reasons
      step ncu ncu --target-processes all -k regex:flash_attn_fwd_ws -c 1 --section SpeedOfLight \
        --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis \
        "$ATTN_TUNE" bench "$spec" -k prefill_ws --set "${best128:-$winner}" --shape fp16-d128-n4096 --device "$cuda" \
        --min-samples 1 --max-samples 1 ||
        failures=$((failures + 1))
      tail -80 "$work/ncu.log"
    else
      say "ncu: not installed; skipped"
    fi
  fi
fi

# ---- pack: one tarball when there are more than 8 files
nfiles=$(find "$work" -type f | wc -l)
{
  echo "# hopper_ws: $(date -u +%Y-%m-%dT%H:%M:%SZ), $((SECONDS - t0)) s, $failures failure(s)"
  echo
  echo '```'
  cat "$work/host.txt"
  echo '```'
  echo
  echo "verify: $(head -1 "$work/verify.status" 2>/dev/null)"
  echo "sweep: $(head -1 "$work/sweep.status" 2>/dev/null)"
  echo
  cat "$work/winners.md" 2>/dev/null
  echo
  for f in "$work"/*.cmd; do echo "- $(basename "$f" .cmd) (exit $(cat "${f%.cmd}.rc")): \`$(cat "$f")\`"; done
} > "$out/SUMMARY.md"
if [ "$nfiles" -gt 8 ]; then
  tar -czf "$out/hopper_ws.tar.gz" -C "$out" hopper_ws && rm -rf "$work"
fi
say "done: $failures failure(s); $out/SUMMARY.md"
[ "$failures" -eq 0 ]
