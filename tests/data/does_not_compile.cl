// attn-tune's own tests: a source with a syntax error, whatever its -D options.
__kernel void testbed_attention(__global float* o) { o[0] = 1.0f }
