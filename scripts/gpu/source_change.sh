#!/usr/bin/env bash
# A kernel source changed: is every configuration still right, and is the best one as fast?
# On an NVIDIA GPU, the working tree's kernel against OLD_SOURCE (the same file before the change):
#   1. verify  every spec given, with the new source (a wrong answer stops here)
#   2. sweep   the first spec with the new source and with the old one (each configuration checked
#              against the CPU reference before it is timed)
#   3. winners compare_builds.py on each sweep's rank-1 configurations: old and new benched in turns,
#              REPS times (default 5), ratio = old / new (> 1: the change is faster)
#
#   git show HEAD:kernels/cuda/x.cu > x.old.cu      # on a machine with the history
#   OUT=DIR bash scripts/gpu/source_change.sh x.old.cu configs/x.json [configs/x_small.json ...]
#
# The old tree is a copy of this one with OLD_SOURCE in the first spec's CUDA source's place, so both
# sides share every header, the build and the options.

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
old_source="${1:?usage: source_change.sh OLD_SOURCE SPEC [VERIFY_SPEC ...]}"
spec="${2:?usage: source_change.sh OLD_SOURCE SPEC [VERIFY_SPEC ...]}"
shift 2
for f in "$old_source" "$spec" "$@"; do [ -f "$f" ] || { echo "source_change: no file $f"; exit 2; }; done
old_source="$(cd "$(dirname "$old_source")" && pwd)/$(basename "$old_source")"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# every path relative to the root (gpu_begin goes there), so that it names the old tree's file there
relpath() { python3 -c 'import os, sys; print(os.path.relpath(os.path.abspath(sys.argv[1]), sys.argv[2]))' "$1" "$root"; }
spec=$(relpath "$spec")
verify_specs=()
for v in "$@"; do verify_specs+=("$(relpath "$v")"); done
gpu_begin "source_change_$(basename "$spec" .json)"
gpu_host_info > "$out/host.txt"
failures=0

# the spec's own "sources": {"cuda": ...}, relative to the spec (a spec that inherits its source is not handled)
relative=$(python3 -c '
import json, os, sys
spec, root = sys.argv[1], sys.argv[2]
src = json.load(open(spec)).get("sources", {}).get("cuda")
if not src: sys.exit(f"source_change: {spec} names no CUDA source of its own")
print(os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(spec)), src), root))' "$spec" "$root") || exit 2
old_tree=$(mktemp -d)
tar -C "$root" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$old_tree" -xf -
cp "$old_source" "$old_tree/$relative"
echo "new: $relative; old: $(basename "$old_source") ($(sha256sum < "$old_source" | cut -c1-12))" >> "$out/host.txt"

for v in "$spec" "${verify_specs[@]}"; do
  name=verify_$(basename "$v" .json)
  run_step "$name" 0 "$ATTN_TUNE" sweep "$v" --device cuda:0 --max-time 0.02 --min-samples 1 --warmup 0 \
    --warmup-time 0 --watchdog 15 --overwrite -q --out "$out/$name.json"
done
[ "$failures" = 0 ] || { echo "verification failed: nothing timed"; exit 1; }

sweep=(sweep "$spec" --device cuda:0 --max-time 0.1 --min-samples 5 --warmup-time 0.2 --overwrite -q)
run_step sweep_new 0 "$ATTN_TUNE" "${sweep[@]}" --out "$out/new.json"
(cd "$old_tree" && run_step sweep_old 0 "$ATTN_TUNE" "${sweep[@]}" --out "$out/old.json")
for side in old new; do
  python3 "$root/scripts/gpu/compare_builds.py" --old-root "$old_tree" --old-bin "$ATTN_TUNE" --new-root "$root" \
    --new-bin "$ATTN_TUNE" --leaderboard "$out/$side.json" --spec "$spec" --reps "${REPS:-5}" \
    --out "$out/winners_of_$side.md" > "$out/winners_of_$side.log" 2>&1
  echo "winners of the $side sweep: exit $?"
done
rm -rf "$old_tree"
cat "$out"/winners_of_*.md
exit "$failures"
