#!/usr/bin/env bash
# DeepEP high-throughput with DP 8, compile mode NONE and an explicit FULL CUDA graph. From vLLM
# 0.13.0 the DeepEP rule only runs under VLLM_COMPILE, so the FULL graph stays, with the HT
# dispatch inside it: `verify --vllm-version 0.13.0` must fail (it would hang or crash on a node).
vllm serve deepseek-ai/DeepSeek-V3 \
    --all2all-backend deepep_high_throughput \
    -dp 8 \
    --enable-expert-parallel \
    -cc.mode=NONE \
    -cc.cudagraph_mode=FULL \
    --port 8000
