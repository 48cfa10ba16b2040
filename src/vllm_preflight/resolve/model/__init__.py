"""ModelConfig (vllm/config/model.py): the model's facts, max_model_len, the multimodal
config, _verify_quantization, the architecture reading, verify_with_parallel_config."""
