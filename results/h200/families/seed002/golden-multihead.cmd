/root/attn-build/app/attn-tune sweep tests/data/seed002/multihead_golden.json --device cuda:0 --max-time 0.05 --out /root/g3/a/golden_multihead.cuda.json --overwrite 
