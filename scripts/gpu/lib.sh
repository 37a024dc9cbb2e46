#!/usr/bin/env bash
# The plumbing the scripts/gpu/*.sh runs share, sourced (never run):
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# sets root (the repository root) and gives:
#   gpu_output_dir DIR        creates DIR, sets out to its absolute path, then cd's to root
#   gpu_attn_tune             ATTN_TUNE: as set, else build-gpu/app/attn-tune, built by
#                             scripts/gpu/setup.sh when missing (returns 1 when that fails)
#   gpu_begin NAME            the opening of a script that writes under $OUT: gpu_output_dir $OUT/NAME,
#                             then gpu_attn_tune with its output in $out/setup.log; when the build
#                             fails, prints the log's tail and exits 1
#   gpu_host_info             prints the commit, attn-tune --version and nvidia-smi -L
#   gpu_ncu                   puts the CUDA toolkit's bin (where the GPU machines have Nsight Compute) on
#                             PATH; when ncu is still not found, says so and exits 1
#   NCU_SECTIONS              the ncu options of the sections the ncu scripts report: the busiest pipe's
#                             share (SpeedOfLight, ComputeWorkloadAnalysis), IPC and issue stalls
#                             (WarpStateStats), occupancy and the launch (Occupancy, LaunchStats)
#   run_step NAME EXPECTED_RC COMMAND...
#                             runs COMMAND with its output in $out/NAME.log, the command in
#                             NAME.cmd (shell-quoted) and its exit code in NAME.rc; prints
#                             "NAME: exit RC, S s: ok" and counts an exit code other than
#                             EXPECTED_RC in failures
#   first_opencl_gpu          the id of the first OpenCL GPU `attn-tune devices` lists
#   verify_spec SPEC          step `verify`: every configuration of SPEC on its shapes, correctness only
#                             (short sampling, a 15 s watchdog), into $out/verify.json; returns 1
#                             unless every entry is ok or skipped and at least one is ok

# run rather than sourced: this comment, the usage (exit 0 for -h and --help)
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
  case "${1:-}" in -h | --help) exit 0 ;; *) exit 2 ;; esac
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
failures=0

gpu_output_dir() {
  mkdir -p "$1"
  out="$(cd "$1" && pwd)"
  cd "$root" || return 1
}

gpu_attn_tune() {
  ATTN_TUNE="${ATTN_TUNE:-$root/build-gpu/app/attn-tune}"
  if [ ! -x "$ATTN_TUNE" ]; then
    # shellcheck source=scripts/gpu/setup.sh
    source "$root/scripts/gpu/setup.sh" || return 1
  fi
}

gpu_begin() {
  gpu_output_dir "${OUT:?set OUT to the output folder}/$1"
  gpu_attn_tune > "$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 1; }
}

gpu_host_info() {
  # A snapshot (scripts/gpu/snapshot.sh) carries its commit in .attn-tune-commit; a checkout has git.
  echo "commit $(cat "$root/.attn-tune-commit" 2>/dev/null || git -C "$root" rev-parse --short=12 HEAD 2>/dev/null)"
  "$ATTN_TUNE" --version
  nvidia-smi -L 2>/dev/null
}

gpu_ncu() {
  export PATH="$PATH:/usr/local/cuda/bin"
  command -v ncu > /dev/null || { echo "ncu: not installed"; exit 1; }
}
# sections only: metric names differ between Nsight Compute versions
NCU_SECTIONS=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy
  --section LaunchStats)

run_step() {
  local name=$1 expected=$2
  shift 2
  printf '%q ' "$@" > "$out/$name.cmd"
  echo >> "$out/$name.cmd"
  local start=$SECONDS
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "$rc" > "$out/$name.rc"
  local verdict=ok
  [ "$rc" = "$expected" ] || { verdict="UNEXPECTED (wanted $expected)"; failures=$((failures + 1)); }
  echo "$name: exit $rc, $((SECONDS - start)) s: $verdict"
}

first_opencl_gpu() {
  "$ATTN_TUNE" devices --json 2>/dev/null | python3 -c '
import json, sys
for d in json.load(sys.stdin)["devices"]:
    if d["backend"] == "opencl" and d["kind"] == "gpu":
        print(d["id"]); break'
}

verify_spec() {
  run_step verify 0 "$ATTN_TUNE" sweep "$1" --device cuda:0 --max-time 0.02 --min-samples 1 --warmup 0 \
    --warmup-time 0 --watchdog 15 --overwrite -q --out "$out/verify.json"
  python3 -c "
import sys
sys.path.insert(0, sys.argv[1])
import leaderboards
d = leaderboards.load(sys.argv[2])
print('verify:', dict(leaderboards.status_counts(d))); sys.exit(0 if leaderboards.all_ok(d) else 1)" "$root/scripts/lib" \
    "$out/verify.json"
}
