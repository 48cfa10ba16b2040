#!/usr/bin/env bash
# Wide-EP DeepSeek-V3 with DeepEP low-latency all2all (capturable: fixed-shape buffers, no host
# wait), data parallel 8, default cudagraph_mode. `verify` must pass: piecewise graphs and the
# FULL decode graph both hold the MoE, and both replay like eager.
vllm serve deepseek-ai/DeepSeek-V3 \
    --all2all-backend deepep_low_latency \
    -dp 8 \
    --enable-expert-parallel \
    --port 8000
