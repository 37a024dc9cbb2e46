python3 scripts/compare/seed002_torch.py /root/g3/a/seed002_torch --leaderboards /root/g3/a/sliding_window_fwd.json /root/g3/a/linear_attention.json 
