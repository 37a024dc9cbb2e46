/work/main/build-gpu/app/attn-tune bench /tmp/o/ws_trace/pp1ip0.spec.json -k prefill_ws -s fp16-d64-n16384\,fp16-d64-n1024 --emit-launch /tmp/o/ws_trace/pp1ip0.emit 
