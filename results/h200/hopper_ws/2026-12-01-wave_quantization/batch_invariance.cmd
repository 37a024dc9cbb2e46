python3 /work/main/scripts/compare/batch_invariance.py --out /root/out/wave_quantization/batch_invariance 
