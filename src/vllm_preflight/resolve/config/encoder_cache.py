"""EncoderCacheManagerConfig.__post_init__ (vllm/config/ec_manager_config.py, 0.28.0+)."""
from __future__ import annotations


def ec_manager_post_init(cls: dict, cfg: dict) -> str | None:
    """EncoderCacheManagerConfig.__post_init__ (0.28.0; 0.33.0 config/ec_manager_config.py:20-24)."""
    if cfg.get("encoder_cache_manager_cls") is None and cfg.get("manager_config"):
        return "manager_config requires encoder_cache_manager_cls to be set."
    return None
