#!/usr/bin/env bash
# The prefill kernels after the split of flash_attn_fwd_ws.cu into device functions and the shared
# online-softmax header (kernels/cuda/online_softmax.cuh): still right, and as fast?  On an NVIDIA GPU:
#   1. build    attn-tune (scripts/gpu/setup.sh, through lib.sh)
#   2. verify   every configuration of the three prefill kernels, new sources, against the CPU reference:
#               flash_attn_fwd_small.json and flash_attn_fwd_ws_small.json on their shapes, and
#               flash_attn_fwd_wgmma.json on small overrides of its shapes (D 64 / 80 / 128 / 256, causal,
#               GQA + mask + ALiBi + sinks, window); correctness only (short sampling, a 15 s watchdog)
#   3. time     OLD vs NEW: the old kernels/ (commit OLD, default c656a03, the tree before the split) in a
#               copy of this tree, the same binary and specs; per kernel its winners (flash_attn_fwd and
#               _wgmma: rank 1 of results/h200/<spec>.json; prefill_ws: the spec's presets) on SHAPES,
#               old and new benched in turns REPS times (default 3); ratio = new / old median time
#               (< 1: the new code is faster), the median of the per-repetition ratios
#
#   OUT=DIR bash scripts/gpu/ws_split_check.sh                # git at hand: old kernels from git
#   bash scripts/gpu/ws_split_check.sh --prepare [OLD]        # no git on the GPU machine: run this first where
#                                                             # the history is; it writes build-old-kernels/,
#                                                             # which the GPU run needs carried
#   bash scripts/gpu/ws_split_check.sh --dry-run              # the steps and the old tree, no GPU work
#
# Writes DIR/ws_split/ws_split.md (the ratio table), verify_*.json and timing.json, and DIR/ws_split.tgz with
# every log and leaderboard.  Environment: OLD (commit), OLD_KERNELS (a folder holding the old kernels/ tree,
# instead of git), REPS, SHAPES (comma-separated shape names), BENCH_ARGS (timing options of both sides).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OLD="${OLD:-c656a03}"

old_kernels_from_git() { # DEST: DEST/kernels/ as at $OLD
  mkdir -p "$1" && git -C "$root" archive "$OLD" kernels | tar -x -C "$1"
}

if [ "${1:-}" = "--prepare" ]; then
  OLD="${2:-$OLD}"
  rm -rf "$root/build-old-kernels"
  old_kernels_from_git "$root/build-old-kernels" || { echo "ws_split_check: git archive $OLD failed"; exit 1; }
  echo "$OLD" > "$root/build-old-kernels/COMMIT"
  echo "wrote build-old-kernels/ ($OLD): carry it to the GPU machine"
  exit 0
fi
dry_run=0
[ "${1:-}" = "--dry-run" ] && dry_run=1

# ---- the old tree: this tree (no builds, no .git) with the old kernels/ in place of kernels/
old_tree=$(mktemp -d)
trap 'rm -rf "$old_tree" "$old_tree.time.py"' EXIT
tar -C "$root" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$old_tree" -xf -
rm -rf "$old_tree/kernels"
if [ -n "${OLD_KERNELS:-}" ]; then
  cp -r "$OLD_KERNELS/kernels" "$old_tree/kernels"
elif [ -d "$root/build-old-kernels/kernels" ]; then
  cp -r "$root/build-old-kernels/kernels" "$old_tree/kernels"
  OLD="$(cat "$root/build-old-kernels/COMMIT" 2>/dev/null || echo "$OLD")"
elif ! old_kernels_from_git "$old_tree" 2>/dev/null; then
  echo "ws_split_check: no old kernels: no git history here (run --prepare where it is and carry build-old-kernels)"
  exit 2
fi
# The binary's side of the contract (kernels/common: the params struct, the operation's headers) is this tree's:
# a newer binary passes a longer struct (fields appended since, which the old kernels never read) and checks
# its size against the kernel's parameter before the first run.
rm -rf "$old_tree/kernels/common" && cp -r "$root/kernels/common" "$old_tree/kernels/common"
for f in flash_attn_fwd.cu flash_attn_fwd_wgmma.cu flash_attn_fwd_ws.cu; do
  [ -f "$old_tree/kernels/cuda/$f" ] || { echo "ws_split_check: old tree lacks kernels/cuda/$f"; exit 2; }
done
if cmp -s "$old_tree/kernels/cuda/flash_attn_fwd_ws.cu" "$root/kernels/cuda/flash_attn_fwd_ws.cu"; then
  echo "ws_split_check: warning: the old flash_attn_fwd_ws.cu is the new one (OLD=$OLD)"
fi

# ---- the timing helper (python, written to the old tree's folder): --list prints the plan
timer="$old_tree.time.py"
cat > "$timer" << 'EOF'
import argparse, json, os, statistics, subprocess, sys, time
ap = argparse.ArgumentParser()
ap.add_argument("--old-root", required=True)
ap.add_argument("--new-root", required=True)
ap.add_argument("--bin")
ap.add_argument("--shapes", required=True)
ap.add_argument("--reps", type=int, default=5)
ap.add_argument("--bench-args", default="")
ap.add_argument("--cache-dir")
ap.add_argument("--json")
ap.add_argument("--out")
ap.add_argument("--old-label", default="old")
ap.add_argument("--list", action="store_true")
a = ap.parse_args()
sys.path.insert(0, os.path.join(a.new_root, "scripts", "lib"))
import leaderboards  # noqa: E402
shapes = [s for s in a.shapes.split(",") if s]

def plan():
    """(spec, kernel, label, bench options choosing the configuration, shapes)"""
    rows = []
    for spec, kernel in (("flash_attn_fwd", "prefill"), ("flash_attn_fwd_wgmma", "prefill_wgmma")):
        board = leaderboards.load(os.path.join(a.new_root, "results", "h200", spec + ".json"))
        for sh in shapes:
            grp = leaderboards.group(board, kernel, sh)
            best = leaderboards.best(grp) if grp else None
            if best is None:
                print(f"{spec}/{kernel} {sh}: no rank-1 configuration in results/h200/{spec}.json", file=sys.stderr)
                continue
            rows.append((f"configs/{spec}.json", kernel, best["key"], ["--set", best["key"]], sh))
    ws = json.load(open(os.path.join(a.new_root, "configs", "flash_attn_fwd_ws.json")))
    for name in ws["kernels"]["prefill_ws"]["presets"]:
        for sh in shapes:
            rows.append(("configs/flash_attn_fwd_ws.json", "prefill_ws", name, ["--preset", name], sh))
    return rows

def bench(root, spec, kernel, choose, shapes):
    """{shape: median ms} of one bench call on every shape given (a shape not ok is left out)"""
    cmd = [a.bin, "bench", spec, "-k", kernel, *choose, "-s", ",".join(shapes), "--device", "cuda:0", "--json",
           *a.bench_args.split()]
    if a.cache_dir:
        cmd += ["--cache-dir", a.cache_dir]
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    got = {}
    try:
        for row in json.loads(proc.stdout):
            if row.get("status") == "ok":
                got[row["shape"]] = row["timing"]["median_ms"]
            else:
                sys.stderr.write(f"{kernel} {row.get('shape')} {choose}: {row.get('status')} {row.get('reason', '')}\n")
    except (json.JSONDecodeError, TypeError, KeyError):
        sys.stderr.write(f"{' '.join(cmd)} (in {root}): no JSON, exit {proc.returncode}: {proc.stderr[-1500:]}\n")
    return got

rows = plan()
if a.list:
    for spec, kernel, label, choose, sh in rows:
        print(f"  {kernel:14s} {sh:26s} {label}")
    print(f"{len(rows)} (kernel, shape, configuration) rows")
    sys.exit(0 if rows else 1)
# one bench call per (configuration, side, repetition) on all the shapes that configuration is timed on
calls = {}
for spec, kernel, label, choose, sh in rows:
    calls.setdefault((spec, kernel, label, tuple(choose)), []).append(sh)
results = []
for (spec, kernel, label, choose), shs in calls.items():
    t = {sh: {"old": [], "new": [], "ratios": []} for sh in shs}
    for rep in range(a.reps):  # interleaved, the side that goes first alternating
        got = {}
        for side in (("old", "new") if rep % 2 == 0 else ("new", "old")):
            got[side] = bench(a.old_root if side == "old" else a.new_root, spec, kernel, list(choose), shs)
        for sh in shs:
            o, n = got["old"].get(sh), got["new"].get(sh)
            if o is None or n is None:
                continue
            t[sh]["old"].append(o); t[sh]["new"].append(n); t[sh]["ratios"].append(n / o)
    for sh in shs:
        r = dict(kernel=kernel, shape=sh, config=label, reps=len(t[sh]["ratios"]), old_ms=t[sh]["old"],
                 new_ms=t[sh]["new"], ratios=t[sh]["ratios"])
        results.append(r)
        print(kernel, sh, label, [round(x, 4) for x in r["ratios"]], flush=True)
if a.json:
    json.dump(results, open(a.json, "w"), indent=1)
lines = [f"# flash_attn_fwd_ws split and shared online softmax: new vs old ({a.old_label}) kernels", "",
         f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}; the same binary; {a.reps} interleaved repetitions"
         f" (the first side alternating), each a `bench {a.bench_args}` median. ratio = new / old (< 1: new is faster).", "",
         "| kernel | shape | configuration | old ms | new ms | ratio (median) | ratio range | reps |",
         "|---|---|---|---:|---:|---:|---|---:|"]
ok = []
for r in results:
    if not r["ratios"]:
        lines.append(f"| {r['kernel']} | {r['shape']} | `{r['config']}` | – | – | failed | | 0 |"); continue
    m = statistics.median(r["ratios"]); ok.append(m)
    lines.append(f"| {r['kernel']} | {r['shape']} | `{r['config']}` | {statistics.median(r['old_ms']):.4f} |"
                 f" {statistics.median(r['new_ms']):.4f} | {m:.4f} | {min(r['ratios']):.4f}–{max(r['ratios']):.4f} | {r['reps']} |")
if ok:
    lines += ["", f"{len(ok)} of {len(results)} rows timed; median ratios {min(ok):.4f}–{max(ok):.4f};"
              f" within ±2%: {sum(1 for m in ok if abs(m - 1) <= 0.02)} of {len(ok)}."]
text = "\n".join(lines) + "\n"
if a.out:
    open(a.out, "w").write(text)
print(text)
sys.exit(0 if ok and len(ok) == len(results) else 1)
EOF

# three anchors (the CPU reference of each bench call costs seconds at these sizes: keep the device time near 4 min)
SHAPES="${SHAPES:-fp16-d64-n1024,fp16-d128-n4096-causal,bf16-d128-n4096}"
REPS="${REPS:-3}"
BENCH_ARGS="${BENCH_ARGS:---warmup 20 --warmup-time 0.1 --min-samples 20 --max-time 0.25}"
# small overrides of flash_attn_fwd_wgmma.json's shapes: every configuration of each head dimension, quick to
# check on the CPU
WGMMA_VERIFY='fp16-d64-n1024[B=1,Hq=4,Hkv=4,Nq=300],fp16-d128-n4096-causal[B=1,Hq=4,Hkv=4,Nq=333],bf16-d128-n4096[B=1,Hq=2,Hkv=2,Nq=200],fp16-d80-n4096-causal[B=1,Hq=2,Hkv=2,Nq=190],fp16-d256-n4096-causal[B=1,Hq=2,Hkv=2,Nq=260],fp16-d128-gqa4-mask-alibi-sinks[B=1,Nq=150,Nkv=290],fp16-d128-gqa4-window-causal[B=1,Nq=400]'
verify_opts=(--device cuda:0 --max-time 0.02 --min-samples 1 --warmup 0 --warmup-time 0 --watchdog 15 --overwrite -q)

if [ "$dry_run" = 1 ]; then
  echo "old tree: $old_tree (kernels/ of $OLD); new: $root"
  diff -rq "$old_tree/kernels" "$root/kernels" | sed 's#^#  #'
  echo "verify: configs/flash_attn_fwd_small.json, configs/flash_attn_fwd_ws_small.json, configs/flash_attn_fwd_wgmma.json -s $WGMMA_VERIFY"
  echo "time: shapes $SHAPES, $REPS interleaved repetitions, bench $BENCH_ARGS"
  python3 "$timer" --list --old-root "$old_tree" --new-root "$root" --shapes "$SHAPES"
  exit $?
fi

source "$root/scripts/gpu/lib.sh"
gpu_begin ws_split
gpu_host_info > "$out/host.txt"
echo "old: kernels/ of $OLD" >> "$out/host.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv >> "$out/host.txt" 2>&1
# What comes back from the GPU machine is few files: the logs and leaderboards go into one archive.
trap 'exit 143' TERM # a timeout still archives what was done
trap 'rm -rf "$old_tree" "$timer"; cd "$out/.." && tar czf ws_split.tgz ws_split && find ws_split -type f ! -name "*.md" ! -name host.txt ! -name "*.rc" -delete' EXIT

cache=/tmp/ws-split-cache # one compile cache for both trees: the key hashes the sources, so they never mix
run_step verify_fwd 0 timeout 150 "$ATTN_TUNE" sweep configs/flash_attn_fwd_small.json "${verify_opts[@]}" \
  --cache-dir "$cache" --out "$out/verify_fwd.json"
run_step verify_ws 0 timeout 200 "$ATTN_TUNE" sweep configs/flash_attn_fwd_ws_small.json "${verify_opts[@]}" \
  --cache-dir "$cache" --out "$out/verify_ws.json"
run_step verify_wgmma 0 timeout 150 "$ATTN_TUNE" sweep configs/flash_attn_fwd_wgmma.json -s "$WGMMA_VERIFY" \
  "${verify_opts[@]}" --cache-dir "$cache" --out "$out/verify_wgmma.json"
python3 - "$out" > "$out/verify.md" << 'EOF'
import sys
from pathlib import Path
sys.path.insert(0, "scripts/lib")
import leaderboards
print("| step | entries | ok | skipped | other |\n|---|---:|---:|---:|---|")
for f in sorted(Path(sys.argv[1]).glob("verify_*.json")):
    try:
        st = leaderboards.status_counts(leaderboards.load(str(f)))
    except Exception as e:  # a run that wrote nothing
        print(f"| {f.stem} | – | – | – | unreadable: {e} |")
        continue
    other = ", ".join(f"{k}: {v}" for k, v in st.items() if k not in ("ok", "skipped"))
    print(f"| {f.stem} | {sum(st.values())} | {st.get('ok', 0)} | {st.get('skipped', 0)} | {other or '–'} |")
EOF
cat "$out/verify.md"
[ "$failures" = 0 ] || echo "verification failed (see verify.md); timing anyway"

run_step time 0 timeout 420 python3 "$timer" --old-root "$old_tree" --new-root "$root" \
  --bin "$ATTN_TUNE" --shapes "$SHAPES" --reps "$REPS" --bench-args "$BENCH_ARGS" --cache-dir "$cache" \
  --json "$out/timing.json" --out "$out/ws_split.md" --old-label "$OLD"
{ echo; echo "## Verification"; echo; cat "$out/verify.md"; } >> "$out/ws_split.md"
cat "$out/ws_split.md"
echo "failures: $failures"
exit "$failures"
