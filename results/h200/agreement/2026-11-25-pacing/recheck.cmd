timeout 120 /work/main/build-gpu/app/attn-tune bench --recheck .probe/agree1/agreement/wgmma_anchor.json --top 1 --rounds 3 --tolerance 3 
