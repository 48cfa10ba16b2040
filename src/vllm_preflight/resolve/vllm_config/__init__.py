"""VllmConfig.__post_init__ (vllm/config/vllm.py): the architecture hooks, the checks of
__post_init__ in vLLM's order, the model runners, the compilation and CUDA-graph steps
(steps/), the capture sizes, validate_mamba_cached_kernel."""
