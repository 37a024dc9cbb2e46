python3 scripts/compare/window_linear_torch.py /root/out/hopper_ws/window_torch --leaderboards /root/out/hopper_ws/flash_attn_fwd_ws.json 
