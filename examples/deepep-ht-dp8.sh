#!/usr/bin/env bash
# Wide-EP DeepSeek-V3 on one 8xH200 node: DeepEP high-throughput all2all, data parallel 8.
# On every released vLLM (0.11.0-0.33.0) this turns CUDA graphs off; under the PR #29558
# design the MoE ops are split out of piecewise CUDA graphs instead.
VLLM_USE_DEEP_GEMM=1 \
vllm serve deepseek-ai/DeepSeek-V3 \
    --all2all-backend deepep_high_throughput \
    -dp 8 \
    --enable-expert-parallel \
    --port 8000
