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
#                      shape, 3 interleaved rounds
#   3. winners.md      per shape: the recorded winner, the sustained winner and their re-timed medians
#   4. peers-SHAPE/    where another configuration is 1% or more faster (every shape with PEERS_ALL=1): the
#                      sustained winner beside FA2 and cuDNN (PEERS, default fa2,cudnn), 5 interleaved repetitions
set -uo pipefail
leaderboard="$(realpath "${1:?usage: sustained_recheck.sh LEADERBOARD SHAPES [TOP] [PEERS]}")"
shapes="${2:?usage: sustained_recheck.sh LEADERBOARD SHAPES [TOP] [PEERS]}"
top="${3:-6}"
peers="${4:-fa2,cudnn}"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin "sustained_recheck${TAG:+-$TAG}"
gpu_host_info > "$out/host.txt"
python3 - "$leaderboard" "$shapes" "$out/sustained.json" "${WARMUP_S:-1.5}" "${MAX_TIME_S:-0.4}" <<'PY' || exit 2
import gzip, json, sys
path, shapes, out, warmup, max_time = sys.argv[1], sys.argv[2].split(","), sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
missing = set(shapes) - {g["shape"] for g in d["groups"]}
if missing:
    sys.exit(f"sustained_recheck: {path} has no group for {', '.join(sorted(missing))}")
d["groups"] = [g for g in d["groups"] if g["shape"] in shapes]
t = d["settings"]["timing"]
t.update(warmup_s=warmup, max_time_s=max_time, min_samples=max(20, t["min_samples"]))
json.dump(d, open(out, "w"))
print(f"{len(d['groups'])} shapes; timing: {warmup} s warm-up, {max_time} s sampling, >= {t['min_samples']} samples")
PY
spec="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["spec"]["path"])' "$out/sustained.json")"
case "$spec" in /*) ;; *) spec="$root/$spec" ;; esac
run_step recheck 0 "$ATTN_TUNE" bench "$spec" --recheck "$out/sustained.json" --top "$top" --rounds 3 --tolerance 100
python3 - "$out/recheck.log" "$out/changed.txt" > "$out/winners.md" <<'PY'
import os, re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+)\s+(\S+)\s+(\d+)\s+[\d.]+\s+([\d.]+)\s+\S+\s+(\S+)\s+ok", line)
    if m:
        rows.setdefault(m.group(2), []).append((int(m.group(3)), float(m.group(4)), m.group(5)))
print("| shape | recorded winner, sustained ms | sustained winner's recorded rank | its sustained ms | ratio | configuration |")
print("| --- | ---: | ---: | ---: | ---: | --- |")
with open(sys.argv[2], "w") as changed:
    for shape, r in rows.items():
        first, best = min(r), min(r, key=lambda x: x[1])
        print(f"| {shape} | {first[1]:.4f} | {best[0]} | {best[1]:.4f} | {first[1] / best[1]:.3f} | {best[2]} |")
        # within 1%: the same winner, noise aside
        if (best[0] != first[0] and first[1] / best[1] >= 1.01) or os.environ.get("PEERS_ALL") == "1":
            changed.write(f"{shape} {best[2]}\n")
PY
cat "$out/winners.md"
while read -r shape key; do
  run_step "peers-$shape" 0 python3 scripts/compare/attention_peers.py --leaderboard "$out/sustained.json" --shape "$shape" \
    --config "$key" --reps 5 --peers "$peers" --attn-tune "$ATTN_TUNE" --out "$out/peers-$shape"
  grep -E "^\| $shape " "$out/peers-$shape/attention_peers.md" | head -1
done < "$out/changed.txt"
echo "failures: $failures"
