"""SpeculativeConfig (vllm/config/speculative.py): the config create_speculative_config builds,
the draft model's config, the draft features of the model runners, MTP conversions, field
errors, dynamic speculative decoding."""
