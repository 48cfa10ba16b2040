"""What each release's runtime stage IS, as data: (first release, {knob: value}) changes.

A release's rules are every change up to it, in order, as in releases/changes.py. Sources:
each release's vllm/v1/worker/gpu_model_runner.py, vllm/config/compilation.py,
vllm/v1/worker/gpu/model_runner.py and vllm/config/vllm.py.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from vllm_preflight.releases import PR29558, PR29558_BASE, version_key


@dataclass(frozen=True)
class RuntimeRules:
    version: str
    # where the check runs: False = inline in GPUModelRunner._check_and_update_cudagraph_mode,
    # True = CompilationConfig.resolve_cudagraph_mode_and_sizes (early NONE return, V1-only rounding)
    resolver: bool = False
    tp_sp_rounding: bool = True  # spec-decode rounding to max(q, tp) with sequence parallelism
    rounding_parenthetical: str = "(num_speculative_tokens + 1 or tp if sequence parallelism is enabled)"
    piecewise_capture_rule: bool = False  # Model Runner V2: piecewise needs a compiled submodule
    mamba_block_check: bool = False  # max_num_seqs > Mamba cache blocks with full graphs
    v2_param: bool = False  # the resolver takes use_v2_model_runner (V2 never rounds the size list)
    v2_runner: str = "absent"  # absent | opt_in (VLLM_USE_V2_MODEL_RUNNER=1) | default
    logger: str = "vllm.v1.worker.gpu_model_runner"
    source: str = "vllm/v1/worker/gpu_model_runner.py"  # file of the warning lines
    # evidence behind this release's rules: "golden" (its own code was executed) or "source"
    evidence: str = "source"


# (first release, changes); releases between two entries take the earlier entry's rules.
CHANGES: tuple[tuple[str, dict], ...] = (
    ("0.11.0", {}),
    ("0.20.2", {"resolver": True, "mamba_block_check": True, "rounding_parenthetical":
                "(num_speculative_tokens + 1 or tp if sequence parallelism is enabled)",
                "logger": "vllm.config.compilation", "source": "vllm/config/compilation.py"}),
    ("0.33.0", {"resolver": True, "tp_sp_rounding": False,
                "rounding_parenthetical": "(num_speculative_tokens + 1)",
                "piecewise_capture_rule": True, "mamba_block_check": True, "v2_runner": "default",
                "v2_param": True,
                "logger": "vllm.config.compilation", "source": "vllm/config/compilation.py"}),
)
GOLDEN = frozenset({"0.12.0", "0.13.0", "0.33.0"})


@lru_cache(maxsize=None)
def runtime_rules(version: str) -> RuntimeRules:
    if version == PR29558:
        version = PR29558_BASE
    rules = RuntimeRules(version=version)
    for first, changes in CHANGES:
        if version_key(first) <= version_key(version):
            rules = replace(rules, **changes)
    return replace(rules, version=version, evidence="golden" if version in GOLDEN else "source")
