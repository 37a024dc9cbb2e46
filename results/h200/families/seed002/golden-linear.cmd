/root/attn-build/app/attn-tune sweep tests/data/seed002/linear_golden.json --device cuda:0 --max-time 0.05 --out /root/g3/a/golden_linear.cuda.json --overwrite 
