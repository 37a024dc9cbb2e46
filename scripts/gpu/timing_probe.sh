#!/usr/bin/env bash
# One wgmma prefill configuration at N=16384, timed by attn-tune bench and by the comparison script,
# short bursts vs sustained load, with nvidia-smi sampling clocks/power every 50 ms.
# Run from the repository root on the GPU machine with OUT set:
#
#   OUT=DIR bash scripts/gpu/timing_probe.sh

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
source scripts/gpu/setup.sh > $OUT/setup.log 2>&1 || { tail -30 $OUT/setup.log; exit 1; }
B=$ATTN_TUNE
nvidia-smi > $OUT/nvidia-smi.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active --format=csv -lms 50 > $OUT/smi.csv &
SMI=$!
SPEC=configs/flash_attn_fwd_wgmma.json; K=prefill_wgmma; S=fp16-d128-n16384; KEY=BLOCK_M=64,BLOCK_N=64,STAGES=3,QK_RS=2,OVERLAP=1
mark() { echo "$(date -u +%H:%M:%S.%N) $*" | tee -a $OUT/marks.txt; }
summ() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[0]; t=r['timing']; print(sys.argv[1].split('/')[-1], r['status'], 'median', round(t['median_ms'],4), 'min', round(t['min_ms'],4),'max', round(t['max_ms'],4), 'n', t['samples'], 'wall', round(t['wall_s'],3))" $1 | tee -a $OUT/summary.txt; }
for i in 1 2; do
  mark "bench sweep-like $i"; $B bench $SPEC -k $K --set $KEY -s $S --json --max-time 0.3 --min-samples 10 > $OUT/b_burst_$i.json 2>>$OUT/err.log; summ $OUT/b_burst_$i.json
  mark "bench sustained $i"; $B bench $SPEC -k $K --set $KEY -s $S --json --max-time 3 --min-samples 500 --max-samples 500 > $OUT/b_sustained_$i.json 2>>$OUT/err.log; summ $OUT/b_sustained_$i.json
  mark "bench noflush burst $i"; $B bench $SPEC -k $K --set $KEY -s $S --json --max-time 0.3 --min-samples 10 --no-flush > $OUT/b_noflush_$i.json 2>>$OUT/err.log; summ $OUT/b_noflush_$i.json
  mark "bench warmup200 burst $i"; $B bench $SPEC -k $K --set $KEY -s $S --json --max-time 0.3 --min-samples 10 --warmup 200 > $OUT/b_warm200_$i.json 2>>$OUT/err.log; summ $OUT/b_warm200_$i.json
done
P="python3 scripts/compare/attention_peers.py --leaderboard results/h200/flash_attn_fwd_wgmma.json --kernel prefill_wgmma --shape $S --peers fa2"
mark "script default"; $P --out $OUT/peers_default > $OUT/peers_default.log 2>&1; tail -5 $OUT/peers_default.log
mark "script sleep0"; $P --sleep-us 0 --out $OUT/peers_sleep0 > $OUT/peers_sleep0.log 2>&1; tail -5 $OUT/peers_sleep0.log
mark "script 10 samples, warmup 2"; $P --samples 10 --warmup 2 --out $OUT/peers_short > $OUT/peers_short.log 2>&1; tail -5 $OUT/peers_short.log
mark end
kill $SMI
python3 - <<'PY'
import csv, datetime, os
out=os.environ['OUT']
marks=[l.split(' ',1) for l in open(f'{out}/marks.txt')]
rows=list(csv.reader(open(f'{out}/smi.csv')))[1:]
def t(s): return datetime.datetime.strptime(s.strip()[-12:],'%H:%M:%S.%f')
pts=[(t(r[0]), r) for r in rows if len(r)>5]
for (a,name),(b,_) in zip(marks, marks[1:]):
    ta=datetime.datetime.strptime(a[:15],'%H:%M:%S.%f'); tb=datetime.datetime.strptime(b[:15],'%H:%M:%S.%f')
    sel=[r for (ts,r) in pts if ta<=ts.replace(year=1900,month=1,day=1)<=tb]
    busy=[r for r in sel if float(r[3].split()[0])>200]
    if busy:
        sm=sorted(int(r[1].split()[0]) for r in busy); pw=sorted(float(r[3].split()[0]) for r in busy)
        print(f"{name.strip():32s} busy samples {len(busy):4d}  SM MHz min {sm[0]} med {sm[len(sm)//2]}  power W med {pw[len(pw)//2]:.0f} max {pw[-1]:.0f}  reasons {sorted(set(r[6].strip() for r in busy))}")
    else:
        print(f"{name.strip():32s} no busy samples ({len(sel)} samples)")
PY
cat $OUT/summary.txt
