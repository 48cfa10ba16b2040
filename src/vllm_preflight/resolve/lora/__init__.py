"""LoRAConfig (vllm/config/lora.py)."""
