"""Readers of the engine arguments that several of VllmConfig.__post_init__'s checks share."""
from __future__ import annotations

from vllm_preflight.resolve.base.state import Refusal, State, option_json


def _pyd(message: str, cls: str = "VllmConfig") -> Refusal:
    return Refusal("ValidationError", f"1 validation error for {cls}\n  Value error, {message}")


def _since(state: State, first: tuple[int, int, int]) -> bool:
    return state.release.key >= first


def _spec(values: dict) -> dict | None:
    spec = option_json(values, "speculative_config")
    return spec if isinstance(spec, dict) else None


def _adaptive(values: dict) -> bool:
    spec = _spec(values)
    return bool(spec and spec.get("enable_adaptive_verification") is True)


def _kv(values: dict) -> dict | None:
    kv = option_json(values, "kv_transfer_config")
    return kv if isinstance(kv, dict) else None


def _has_connector(kv: dict, name: str) -> bool:
    """KVTransferConfig.has_connector: the connector itself, or a MultiConnector child."""
    if kv.get("kv_connector") == name:
        return True
    extra = kv.get("kv_connector_extra_config")
    children = extra.get("connectors") if isinstance(extra, dict) else None
    return kv.get("kv_connector") == "MultiConnector" and isinstance(children, list) and any(
        isinstance(c, dict) and c.get("kv_connector") == name for c in children)


def _routed_experts(state: State) -> bool:
    """--enable-return-routed-experts, or the AuxOutput config asking for it (0.31.0+: read by
    json_options.after_parallel)."""
    return bool(state.model_cfg.get("aux_output_enabled"))


def _parallel_drafting(state: State, spec: dict, method: str) -> bool:
    """SpeculativeConfig.parallel_drafting as __post_init__ leaves it: as given, and on for a DFlash
    draft (0.20.0+) or a DSpark one (0.25.0+) whatever was given (0.28.0 speculative.py:1046)."""
    native = ("dflash", "dspark") if _since(state, (0, 25, 0)) else ("dflash",)
    return spec.get("parallel_drafting") is True or method in native
