"""PoolerConfig.__post_init__ (vllm/config/pooler.py, 0.14.0+)."""
from __future__ import annotations


def pooler_post_init(cls: dict, cfg: dict) -> str | None:
    """PoolerConfig.__post_init__ (0.14.0 config/pooler.py; 0.33.0 :139-150): a zero logit_sigma
    (wherever the class has the field, 0.20.0+), then pooling_type next to seq_/tok_pooling_type."""
    names = {f[0] for f in cls["fields"]}
    sigma = cfg.get("logit_sigma")
    if "logit_sigma" in names and sigma is not None and not isinstance(sigma, bool) and sigma == 0:
        return "logit_sigma cannot be 0 (division by zero)"
    if "seq_pooling_type" in names and cfg.get("pooling_type"):
        for other in ("seq_pooling_type", "tok_pooling_type"):
            if cfg.get(other) is not None:
                return f"Cannot set both `pooling_type` and `{other}`"
    return None
