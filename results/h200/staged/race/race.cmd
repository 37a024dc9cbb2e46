env OUT=/root/out/race/race bash scripts/compare/kernel_tuner_race.sh --attn-tune /work/main/build-gpu/app/attn-tune --repeats 3 
