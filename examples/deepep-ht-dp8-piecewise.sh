#!/usr/bin/env bash
# Same deployment, asking for piecewise CUDA graphs only (the case `verify` proves under pr29558).
vllm serve deepseek-ai/DeepSeek-V3 \
    --all2all-backend deepep_high_throughput \
    -dp 8 \
    --enable-expert-parallel \
    -cc.cudagraph_mode=PIECEWISE \
    --port 8000
