"""KernelConfig.set_platform_defaults (vllm/config/kernel.py), inside VllmConfig.__post_init__
(0.29.0+): the FlashInfer MoE-EP megakernel backends and the all2all passthrough (0.32.0+)."""
from __future__ import annotations

from vllm_preflight.resolve.base.pydantic import value_error as _pyd
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import State

# ------------------------------------------------------------------ KernelConfig.set_platform_defaults
# (first release, MoE-EP megakernel backends, those checked against the model, architectures that have them)
_MOE_EP = (((0, 29, 0), ("flashinfer_moe_ep_mega_deep_gemm", "flashinfer_moe_ep_mega_cutedsl"), "all",
            ("DeepseekV4ForCausalLM", "DeepSeekV4MTPModel")),
           ((0, 30, 0), ("flashinfer_moe_ep_mega_deep_gemm", "flashinfer_moe_ep_mega_cutedsl"), "all",
            ("DeepseekV4ForCausalLM", "DeepSeekV4MTPModel", "DeepseekV41ForCausalLM")),
           ((0, 32, 0), ("flashinfer_moe_ep_cutedsl", "flashinfer_moe_ep_mega_deep_gemm"),
            "flashinfer_moe_ep_mega_deep_gemm", ("DeepseekV4ForCausalLM", "DeepSeekV4MTPModel", "DeepseekV41ForCausalLM")))


_PASSTHROUGH = (0, 32, 0)  # bind_passthrough_all2all_backend (0.32.0 config/kernel.py)


@reads("moe_backend")
def kernel_platform_defaults(state: State, values: dict) -> None:
    """KernelConfig.set_platform_defaults, inside VllmConfig.__post_init__ once the compilation mode
    is known (0.29.0; 0.33.0 config/kernel.py:451-459, config/vllm.py:1852): a FlashInfer MoE-EP
    megakernel backend needs a DeepSeek-V4 model; from 0.32.0 only the DeepGEMM one does, and
    the MoE-EP backends own their dispatch: a default all2all backend becomes `passthrough`,
    any other is refused."""
    key = state.release.key
    rows = [r for r in _MOE_EP if key >= r[0]]
    backend = values.get("moe_backend")
    if not rows or not isinstance(backend, str):
        return
    _, backends, checked, archs = rows[-1]
    facts = state.model
    raw = (facts.__dict__.get("_raw_config") or {}) if facts is not None else {}
    listed: list = raw["architectures"] if isinstance(raw.get("architectures"), list) else \
        ([facts.architecture] if facts is not None and facts.architecture else [])
    if backend in backends and (checked == "all" or backend == checked) and facts is not None \
            and not any(a in archs for a in listed):
        raise _pyd("VllmConfig", f"moe_backend={backend!r} is only supported for DeepSeek-V4 models "
                                 f"({sorted(archs)}), but the model is {list(listed)}.")
    if key < _PASSTHROUGH:
        return
    a2a = state.parallel.get("all2all_backend")
    if backend in backends:
        if a2a == "passthrough":
            return
        if a2a != "allgather_reducescatter":
            raise _pyd("VllmConfig", f"moe_backend={backend!r} dispatches and combines itself and cannot be paired "
                                     f"with all2all_backend={a2a!r}; leave --all2all-backend unset.")
        state.set("parallel.all2all_backend", "passthrough", "kernel.moe_ep_passthrough",
                  f"moe_backend={backend!r} dispatches and combines itself: all2all_backend 'passthrough'")
    elif a2a == "passthrough":
        raise _pyd("VllmConfig", f"all2all_backend={a2a!r} is only valid with a moe_backend that dispatches and "
                                 f"combines itself ({sorted(backends)}), got moe_backend={backend!r}.")
