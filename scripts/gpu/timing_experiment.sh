#!/usr/bin/env bash
# Which timing settings make attn-tune's median agree with the comparison script, on one
# long prefill configuration (N=16384, D=128) and two decode shapes, with the clocks NVML
# reported for every result (docs/timing.md, "The experiment").
#
#   OUT=/some/dir bash scripts/gpu/timing_experiment.sh      # on an H100/H200, repository root; ~6 min
#
# Steps alternate so that a drift of the machine shows as a spread, not as a difference:
#   old        bench --warmup-time 0    warm-up by count only (2 runs): the sweeps before docs/timing.md
#   default    bench                    cold, warm-up 0.5 s under load
#   long       bench --warmup-time 2    cold, warm-up 2 s
#   warm       bench --timing warm      no L2 eviction
#   graph      bench --timing graph     cold, launches replayed from a CUDA graph
#   script     attention_peers.py       the independent harness (30 samples after 5 warm-ups)
# Writes $OUT/timing_experiment.md (the table) and every bench/script output beside it.

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
: "${OUT:?set OUT to the folder for the results}"
source scripts/gpu/setup.sh > "$OUT/setup.log" 2>&1 || { tail -30 "$OUT/setup.log"; exit 1; }
B=$ATTN_TUNE
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1

SPEC=configs/flash_attn_fwd_wgmma.json; K=prefill_wgmma; S=fp16-d128-n16384
KEY=BLOCK_M=64,BLOCK_N=64,STAGES=3,QK_RS=2,OVERLAP=1
DSPEC=configs/flash_attn_decode.json; DK=decode_cpasync
DKEY=NUM_SPLITS=8,DEC_THREADS=128,DEC_STAGES=3,DEC_UNROLL=1,SPLIT_MODE=0
DSHAPES="fp16-h32-kv8-n32768 fp16-gqa4-features"

step() {  # step NAME SPEC KERNEL KEY SHAPE [bench options...]
  local name=$1 spec=$2 kernel=$3 key=$4 shape=$5; shift 5
  echo "$(date -u +%H:%M:%S) $name" >&2
  "$B" bench "$spec" -k "$kernel" --set "$key" -s "$shape" --json "$@" > "$OUT/$name.json" 2>> "$OUT/bench.log"
}
script() {  # script NAME: the comparison script's timing of the same configuration
  echo "$(date -u +%H:%M:%S) $1" >&2
  python3 scripts/compare/attention_peers.py --leaderboard results/h200/flash_attn_fwd_wgmma.json --kernel $K \
    --shape $S --config $KEY --peers fa2 --out "$OUT/$1" > "$OUT/$1.log" 2>&1 || tail -5 "$OUT/$1.log"
}

for i in 1 2; do
  step old_$i $SPEC $K $KEY $S --warmup-time 0
  step default_$i $SPEC $K $KEY $S
  step long_$i $SPEC $K $KEY $S --warmup-time 2
  step warm_$i $SPEC $K $KEY $S --timing warm
  step graph_$i $SPEC $K $KEY $S --timing graph
done
step default_3 $SPEC $K $KEY $S

for i in 1 2; do
  script script_$i
  step default_after_script_$i $SPEC $K $KEY $S
done

for shape in $DSHAPES; do
  for i in 1 2; do
    step decode_${shape}_cold_$i $DSPEC $DK $DKEY $shape
    step decode_${shape}_graph_$i $DSPEC $DK $DKEY $shape --timing graph
  done
done

python3 - "$OUT" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
def cell(v, f="{:.0f}"):
    return "" if v is None else f.format(v)
rows = ["| step | policy | median ms | min ms | samples | wall s | SM MHz median / min (expected) | mem MHz | "
        "power W median / max | temp C | clock reasons | discarded | throttled |", "|" + "---|" * 13]
def bench_row(path):
    name = os.path.basename(path)[:-5]
    r = json.load(open(path))[0]
    if r.get("status") != "ok":
        return f"| {name} | | {r.get('status')}: {r.get('reason', '')} |" + " |" * 10
    t, c = r["timing"], r.get("clocks")
    pol = name.split("_")[0]
    if c is None:
        clocks = "| no NVML readings | | | | | | |"
    else:
        clocks = (f"| {cell(c['sm_mhz_median'])} / {cell(c['sm_mhz_min'])} ({cell(c['expected_sm_mhz'])}) | "
                  f"{cell(c.get('mem_mhz_median'))} | {cell(c.get('power_w_median'))} / {cell(c.get('power_w_max'))} | "
                  f"{cell(c.get('temperature_c_max'))} | {', '.join(c['reasons']) or '-'} | {c['discarded_samples']} | "
                  f"{'yes' if c['throttled'] else 'no'} |")
    return (f"| {name} | {pol} | {t['median_ms']:.4f} | {t['min_ms']:.4f} | {t['samples']} | {t['wall_s']:.2f} " + clocks)
for path in sorted(glob.glob(f"{out}/*.json"), key=os.path.getmtime):
    if os.path.basename(path) in ("nvidia-smi.json",):
        continue
    try:
        rows.append(bench_row(path))
    except Exception as e:  # a failed step: say so in the table
        rows.append(f"| {os.path.basename(path)} | unreadable: {e} |" + " |" * 11)
for d in sorted(glob.glob(f"{out}/script_*/attention_peers.json")):
    doc = json.load(open(d))
    for row in doc["rows"]:
        t = row.get("attn_tune", {}).get("timing")
        if t:
            rows.append(f"| {d.split('/')[-2]} | script (cold, 5 warm-ups + 30 samples) | {t['median_ms']:.4f} | "
                        f"{t['min_ms']:.4f} | 30 | |" + " |" * 7)
text = "\n".join(rows) + "\n"
open(f"{out}/timing_experiment.md", "w").write(text)
print(text)
PY
