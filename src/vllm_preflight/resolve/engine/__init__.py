"""EngineArgs.create_engine_config (vllm/engine/arg_utils.py): its own checks between the
config classes it builds (speculators checkpoints, _check_feature_supported, launch options,
the -O level, the capture-size flags)."""
