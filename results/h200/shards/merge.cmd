/work/main/build-gpu/app/attn-tune merge /root/out/sm/lb.shard-0-of-2.json /root/out/sm/lb.shard-1-of-2.json --out /root/out/sm/merged.json --retime-top 3 --device cuda:0
