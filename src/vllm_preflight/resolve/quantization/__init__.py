"""VllmConfig._get_quantization_config -> get_quant_config (vllm/model_executor/layers/
quantization/): the quantization config classes built from the checkpoint."""
