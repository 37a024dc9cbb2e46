python3 scripts/bench/ws_trace.py /root/out/ws_trace/ip0.emit --label ip0 
