"""Record the defaults transformers' config classes give the keys the resolver reads (the expert
counts that make a model MoE), as installed with a vLLM release.

vLLM reads a model's config through transformers' config class, so a key absent from config.json
takes the class's default (NemotronHConfig's `n_routed_experts` is 8); vLLM's own config classes
(`_CONFIG_REGISTRY`) take precedence over transformers'. Run with the python of an
environment where that release is installed (it imports transformers); merges into
releases/data/config_class_defaults.json:

  {"releases": {VLLM_VERSION: {"transformers": VERSION, "defaults": {MODEL_TYPE: {KEY: VALUE}}}}}

Usage: VENV/bin/python tools/extract_config_defaults.py VLLM_VERSION
"""
from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "vllm_preflight" / "releases" / "data" / "config_class_defaults.json"
KEYS = ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts")  # modelfacts._MOE_KEYS


def main() -> int:
    import transformers
    from transformers import AutoConfig
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    warnings.simplefilter("ignore")
    defaults: dict = {}
    for model_type in sorted(CONFIG_MAPPING_NAMES):
        try:
            cfg = AutoConfig.for_model(model_type)
        except Exception:  # noqa: BLE001, S112 - a class that needs arguments or extra packages
            continue
        try:
            text = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
        except ValueError:  # several text configs: the top level, as the resolver reads it
            text = cfg
        found = {}
        for k in KEYS:
            try:
                value = getattr(text, k, None)
            except Exception:  # noqa: BLE001, S112 - a per-layer attribute (heterogeneous configs)
                continue
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                found[k] = value
        if found:
            defaults[model_type] = found
    try:  # vLLM's own config classes (model types transformers lacks, or that vLLM replaces) win
        from vllm.transformers_utils.config import _CONFIG_REGISTRY
    except Exception:  # noqa: BLE001 - a release without the registry
        _CONFIG_REGISTRY = {}
    for model_type in list(_CONFIG_REGISTRY):
        try:
            cfg = _CONFIG_REGISTRY[model_type]()
        except Exception:  # noqa: BLE001, S112 - a class that needs arguments
            continue
        found = {}
        for k in KEYS:
            try:
                value = getattr(cfg, k, None)
            except Exception:  # noqa: BLE001, S112
                continue
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                found[k] = value
        if found:
            defaults[model_type] = found
        else:
            defaults.pop(model_type, None)
    data = json.loads(OUT.read_text()) if OUT.exists() else {"releases": {}}
    data["releases"][sys.argv[1]] = {"transformers": transformers.__version__, "defaults": defaults}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(sys.argv[1], transformers.__version__, len(defaults), "config classes with an expert-count default")
    return 0


if __name__ == "__main__":
    sys.exit(main())
