setsid -w /work/main/build-gpu-tests/tests/cuda/attn_tune_cuda_tests 
