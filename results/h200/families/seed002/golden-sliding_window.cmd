/root/attn-build/app/attn-tune sweep tests/data/seed002/sliding_window_golden.json --device cuda:0 --max-time 0.05 --out /root/g3/a/golden_sliding_window.cuda.json --overwrite 
