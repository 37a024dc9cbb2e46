#!/usr/bin/env bash
# Does the warp-specialized prefill's time step with its rounds of work items (wave quantization), and
# does cuDNN's? And are the peers bitwise deterministic across batch sizes, as attn-tune's kernels are?
# On an H100 / H200:
#   0. warm    15 s of bf16 matrix products before the comparisons, meant to bring the GPU to the clock
#              the power cap leaves before the first shape. It does not quite: attention_peers.py first
#              compiles its launches with the GPU idle, and on 2026-12-01 the first shape still ran at
#              1980 MHz on both sides (the ratios are interleaved, so that row compares at the boost clock)
#   1. sweep   the anchors' winning families (wave_quantization/spec.json) on non-causal shapes whose
#              count of 128-row items sits below, at and above multiples of the SM count; every
#              configuration is checked against the CPU reference on each shape before it is timed
#   2. peers   each shape's winner beside cuDNN, 5 interleaved repetitions (peers_winners/), and the
#              other family (persistent <-> grid of blocks), 3 repetitions (peers_other/)
#   3. waves   per shape: items, rounds (items / SMs), both times, and time per round and per item
#              relative to the first shape of its series (waves.md, scripts/compare/peer_tables.py)
#   4. batch_invariance   scripts/compare/batch_invariance.py: cuDNN and FA2, bitwise across runs and
#              batch sizes (batch_invariance/)
#
#   OUT=DIR bash scripts/gpu/wave_quantization.sh

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin wave_quantization
gpu_host_info > "$out/host.txt"
spec="$root/scripts/gpu/wave_quantization/spec.json"
warm() {
  python3 - <<'PY'
import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
t0 = time.perf_counter()
while time.perf_counter() - t0 < 15:
    for _ in range(20):
        a @ a
    torch.cuda.synchronize()
PY
}

run_step sweep 0 "$ATTN_TUNE" sweep "$spec" --device cuda:0 --max-time 0.1 --min-samples 5 --warmup-time 0.2 \
  --overwrite -q --out "$out/sweep.json"

# {shape: preset}: the D = 128 shapes take FAMILY_128, the D = 256 ones FAMILY_256
configs() {
  python3 - "$spec" "$1" "$2" <<'PY'
import json, sys
spec, f128, f256 = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
print(json.dumps({s: (f128 if v["D"] == 128 else f256) for s, v in spec["shapes"].items()}))
PY
}
configs Persistent Grid > "$out/configs_winners.json"
configs Grid Persistent > "$out/configs_other.json"
peers=(python3 "$root/scripts/compare/attention_peers.py" --leaderboard "$out/sweep.json" --peers cudnn
  --attn-tune "$ATTN_TUNE")
run_step warm 0 warm
run_step peers_winners 0 "${peers[@]}" --configs "$out/configs_winners.json" --reps 5 --out "$out/peers_winners"
run_step peers_other 0 "${peers[@]}" --configs "$out/configs_other.json" --reps 3 --out "$out/peers_other"

python3 "$root/scripts/compare/peer_tables.py" waves "$out/peers_winners" "$out/peers_other" > "$out/waves.md" ||
  failures=$((failures + 1))
cat "$out/waves.md"
run_step batch_invariance 0 python3 "$root/scripts/compare/batch_invariance.py" --out "$out/batch_invariance"
cat "$out/batch_invariance/batch_invariance.md" 2>/dev/null
echo "failures: $failures"
