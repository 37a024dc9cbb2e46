#!/usr/bin/env bash
# Issue 7's GPU runs (seeds 000, 001, 002): correctness of every CUDA kernel on
# small shapes, the target sweeps, and the PyTorch comparisons in the same
# session. Run from the repository root after `source scripts/gpu/setup.sh`.
#
#   scripts/gpu/families.sh OUT STEP...
#
# Steps: seed002-small  every CUDA configuration of the seed 002 small specs (correctness)
#        seed002-sweeps sliding window over the tuned prefill kernel; linear attention
#        seed002-torch  flex_attention and PyTorch-ops linear attention, joined with the sweeps
#        seed000-torch  PyTorch/cuBLAS similarity, attn-tune's committed bests re-timed in the same run
#        seed001-torch  PyTorch grid_sample deformable attention, likewise
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
    seed002-small)
      run mha-small "$bin" sweep configs/multihead_attention_small.json --device cuda:0 --max-time 0.05 --out "$out/multihead_attention_small.cuda.json" --overwrite
      run band-small "$bin" sweep configs/sliding_window_attention_small.json --device cuda:0 --max-time 0.05 --out "$out/sliding_window_attention_small.cuda.json" --overwrite
      run linear-small "$bin" sweep configs/linear_attention_small.json --device cuda:0 --max-time 0.05 --out "$out/linear_attention_small.cuda.json" --overwrite
      run swfwd-small "$bin" sweep configs/sliding_window_fwd_small.json --device cuda:0 --max-time 0.05 --out "$out/sliding_window_fwd_small.json" --overwrite
      for g in multihead sliding_window linear; do
        run "golden-$g" "$bin" sweep "tests/data/seed002/${g}_golden.json" --device cuda:0 --max-time 0.05 --out "$out/golden_$g.cuda.json" --overwrite
      done ;;
    seed002-sweeps)
      run sliding-window-fwd "$bin" sweep configs/sliding_window_fwd.json --device cuda:0 --max-time 0.3 --out "$out/sliding_window_fwd.json" --overwrite
      run linear-attention "$bin" sweep configs/linear_attention.json --device cuda:0 --max-time 0.3 --out "$out/linear_attention.json" --overwrite ;;
    seed002-torch)
      run seed002-torch python3 scripts/compare/seed002_torch.py "$out/seed002_torch" \
        --leaderboards "$out/sliding_window_fwd.json" "$out/linear_attention.json" ;;
    seed000-torch)
      run seed000-torch python3 scripts/compare/similarity_torch.py "$out/similarity_torch" --attn-tune "$bin" \
        --leaderboard results/h200/families/similarity_projected.json --leaderboard results/h200/families/similarity_others.json ;;
    seed001-torch)
      run seed001-torch python3 scripts/compare/deformable_torch.py "$out/deformable_torch" --attn-tune "$bin" \
        --shapes detr-p4 --leaderboard results/h200/families/deformable_detr-p4.json ;;
    *) echo "unknown step $step" ;;
  esac
done
