"""current_platform.check_and_update_config (vllm/platforms/cuda.py): the CUDA platform's
update of the config (the tool models CUDA nodes)."""
