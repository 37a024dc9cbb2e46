#!/usr/bin/env bash
# GPU runs of the non-flash families (multi-head / sliding-window / linear
# attention, similarity, deformable attention): correctness of every CUDA kernel
# on small shapes, the target sweeps, and the PyTorch comparisons in the same
# session. Run from the repository root after `source scripts/gpu/setup.sh`.
#
#   scripts/gpu/families.sh OUT STEP...
#
# Steps: multihead-linear-small  every CUDA configuration of the multi-head, sliding-window and
#                                linear attention small specs, and the worked examples (correctness)
#        window-linear-sweeps    sliding window over the tuned prefill kernel; linear attention
#        window-linear-torch     flex_attention and PyTorch-ops linear attention, joined with the sweeps
#        similarity-torch        PyTorch/cuBLAS similarity, attn-tune's committed bests re-timed in the same run
#        deformable-torch        PyTorch grid_sample deformable attention, likewise

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
out=${1:?usage: families.sh OUT STEP...}
shift
mkdir -p "$out"
bin=${ATTN_TUNE:-build-gpu/app/attn-tune}

run() {  # run NAME COMMAND...: the command, its output and exit code under OUT
  local name=$1; shift
  printf '%q ' "$@" > "$out/$name.cmd"; echo >> "$out/$name.cmd"
  local start=$SECONDS
  "$@" > "$out/$name.log" 2>&1
  echo "$name: exit $?, $((SECONDS - start)) s"
  grep -E "^best vs|^not ranked|swept" "$out/$name.log" | tail -8
}

for step in "$@"; do
  case $step in
    multihead-linear-small)
      run mha-small "$bin" sweep configs/multihead_attention_small.json --device cuda:0 --max-time 0.05 --out "$out/multihead_attention_small.cuda.json" --overwrite
      run band-small "$bin" sweep configs/sliding_window_attention_small.json --device cuda:0 --max-time 0.05 --out "$out/sliding_window_attention_small.cuda.json" --overwrite
      run linear-small "$bin" sweep configs/linear_attention_small.json --device cuda:0 --max-time 0.05 --out "$out/linear_attention_small.cuda.json" --overwrite
      run swfwd-small "$bin" sweep configs/sliding_window_fwd_small.json --device cuda:0 --max-time 0.05 --out "$out/sliding_window_fwd_small.json" --overwrite
      for g in multihead sliding_window linear; do
        run "golden-$g" "$bin" sweep "tests/data/worked_examples/${g}_golden.json" --device cuda:0 --max-time 0.05 --out "$out/golden_$g.cuda.json" --overwrite
      done ;;
    window-linear-sweeps)
      run sliding-window-fwd "$bin" sweep configs/sliding_window_fwd.json --device cuda:0 --max-time 0.3 --out "$out/sliding_window_fwd.json" --overwrite
      run linear-attention "$bin" sweep configs/linear_attention.json --device cuda:0 --max-time 0.3 --out "$out/linear_attention.json" --overwrite ;;
    window-linear-torch)
      run window-linear-torch python3 scripts/compare/window_linear_torch.py "$out/window_linear_torch" \
        --leaderboards "$out/sliding_window_fwd.json" "$out/linear_attention.json" ;;
    similarity-torch)
      run similarity-torch python3 scripts/compare/similarity_torch.py "$out/similarity_torch" --attn-tune "$bin" \
        --leaderboard results/h200/families/similarity_projected.json --leaderboard results/h200/families/similarity_others.json ;;
    deformable-torch)
      run deformable-torch python3 scripts/compare/deformable_torch.py "$out/deformable_torch" --attn-tune "$bin" \
        --shapes detr-p4 --leaderboard results/h200/families/deformable_detr-p4.json ;;
    *) echo "unknown step $step" ;;
  esac
done
