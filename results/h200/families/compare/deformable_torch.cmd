python3 scripts/compare/deformable_torch.py /root/g3/b/deformable_torch --attn-tune /root/attn-build/app/attn-tune --shapes detr-p4 --leaderboard results/h200/families/deformable_detr-p4.json 
