"""The smaller config classes create_engine_config builds, one module each (as vllm/config/):
attention, Mamba, load and observability, offload, kernel, structured outputs, reasoning,
pooler, encoder cache, Engram, the diffusion and watermark configs."""
