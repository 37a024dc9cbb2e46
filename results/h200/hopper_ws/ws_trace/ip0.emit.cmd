/work/main/build-gpu/app/attn-tune bench /root/out/ws_trace/ip0.spec.json -k prefill_ws -s fp16-d64-n16384\,fp16-d64-n1024\,fp16-d128-n4096 --emit-launch /root/out/ws_trace/ip0.emit 
