"""ReplaySSM / RecoverSSM: VllmConfig's model validator `validate_mamba_cached_kernel`
(0.27.0+; 0.33.0 config/vllm.py:3454-3549), the last of VllmConfig's model validators, right
after `validate_mamba_block_size` (the registry runs it right after).

`--use-replayssm` (CacheConfig.use_replayssm) refuses, in vLLM's order:
  * an architecture whose registered class does not implement ReplaySSM
    (ModelConfig.supports_replayssm; per release in releases/data/replayssm.json, written by
    tools/extract_replayssm_archs.py from each release's registry);
  * 0.27.0-0.28.x: Mamba cache mode "all", any speculative decoding, a backend other than
    Triton;
  * 0.29.0+: with speculative tokens the KDA RecoverSSM path (use_kda_recoverssm): 0.29.0-0.31.x
    for every model (then refused unless Kimi-Linear / Kimi-K3, and cache modes other than
    none/align), from 0.32.0 only for Kimi models; it refuses stochastic rounding, align mode on
    Model Runner V1, PP > 1 and (0.30.0+) a backend other than Triton;
  * 0.30.0+: FlashInfer refuses align mode; Triton refuses Model Runner V2; other backends are
    refused;
  * 0.32.0+: FlashInfer with a buffer longer than 16; Mamba2 speculative decoding (non-KDA
    models) needs mode none, a buffer of at least 1 + num_speculative_tokens and FlashInfer;
  * any KV connector (0.33.0: not for KDA RecoverSSM).
Each rule is keyed by the first release that has it; wording changes likewise (0.29.0, 0.33.0).
"""
from __future__ import annotations

from functools import lru_cache

from vllm_preflight.releases import data_file
from vllm_preflight.releases.versions import value_since, version_key
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State, option_json
from vllm_preflight.resolve.vllm_config.model_runner import uses_v2_runner

FIRST = (0, 27, 0)
_KDA_ARCHS = ("KimiLinearForCausalLM", "KimiK3ForConditionalGeneration")
# where a rule starts (first release)
_SINCE = {
    "kda_recoverssm": (0, 29, 0),      # speculative tokens take the RecoverSSM path; new arch message
    "flashinfer": (0, 30, 0),          # FlashInfer / Triton-V1 branches, RecoverSSM needs Triton
    "kda_only_for_kimi": (0, 32, 0),   # RecoverSSM only for Kimi; Mamba2 speculative decoding
    "prefix_caching_wording": (0, 33, 0),  # messages name prefix caching; KDA keeps KV connectors
}


def _pyd(message: str) -> Refusal:
    return Refusal("ValidationError", f"1 validation error for VllmConfig\n  Value error, {message}")


def _since(state: State, rule: str) -> bool:
    return state.release.key >= _SINCE[rule]


@lru_cache(maxsize=1)
def _runs() -> list[tuple[tuple[int, ...], frozenset[str]]]:
    raw = data_file("replayssm.json")
    return sorted((version_key(v), frozenset(archs)) for v, archs in raw["supports_replayssm"].items())


def supports_replayssm(state: State, arch: str) -> bool:
    """ModelConfig.supports_replayssm: the registered class implements SupportsReplaySSM."""
    return arch in value_since(_runs(), state.release.key, frozenset())


def mamba_cache_mode(state: State, values: dict) -> str:
    """CacheConfig.mamba_cache_mode once VllmConfig's model hooks ran: for mamba and hybrid
    models MambaModelConfig's choice (prefix caching off: none; on: align, 0.27.x "all" where
    the model supports it), else the flag as given (0.33.0: the flag is ignored, "none")."""
    from vllm_preflight.resolve.cache.cache_config import prefix_caching
    from vllm_preflight.resolve.vllm_config.model_hooks import _BAMBA, _MAMBA_ALL_MODE, _MAMBA_ARCHS, _is_hybrid

    given = "none" if state.release.key >= (0, 33, 0) else (values.get("mamba_cache_mode") or "none")
    arch = state.model.architecture if state.model is not None else ""
    if not (arch in _MAMBA_ARCHS or _is_hybrid(state, arch)):
        return given
    if not prefix_caching(state, values):
        return "none"
    all_ok = state.release.key < (0, 32, 0) and (
        arch in _MAMBA_ALL_MODE or (arch in _BAMBA and state.release.key < _BAMBA[arch]))
    if given == "none":
        return "all" if all_ok and state.release.key < (0, 28, 0) else "align"
    if given == "all" and not all_ok:
        return "align"
    return given


def _kv_connector(values: dict) -> bool:
    """KVTransferConfig.is_kv_transfer_instance: a connector and a role, given or made by
    `_post_init_kv_transfer_config` from --kv-offloading-size (a connector for either offloading
    backend, role kv_both; 0.33.0 config/vllm.py:1151-1185), which __post_init__ runs before this
    model validator."""
    if values.get("kv_offloading_size") is not None:
        return True
    kv = option_json(values, "kv_transfer_config")
    return isinstance(kv, dict) and kv.get("kv_connector") is not None and kv.get("kv_role") is not None


@reads(always=True)  # records use_kda_recoverssm for every model
def validate_mamba_cached_kernel(state: State, values: dict) -> None:
    """`validate_mamba_cached_kernel`; records use_kda_recoverssm in state.model_cfg."""
    if state.release.key < FIRST:
        return
    state.model_cfg["use_kda_recoverssm"] = False
    if not values.get("use_replayssm"):
        return
    arch = state.model.architecture if state.model is not None else ""
    k = state.num_speculative_tokens
    backend = str(values.get("mamba_backend") or "triton").lower()
    buffer_len = values.get("replayssm_buffer_len")
    buffer_len = 16 if buffer_len is None else int(buffer_len)
    mode = mamba_cache_mode(state, values)
    kda = False
    if _since(state, "kda_recoverssm"):
        kda = k > 0 and (arch in _KDA_ARCHS or not _since(state, "kda_only_for_kimi"))
    state.model_cfg["use_kda_recoverssm"] = kda
    if state.model is not None and not supports_replayssm(state, arch):
        if _since(state, "kda_recoverssm"):
            raise _pyd(f"--use-replayssm is not supported for architecture {arch!r}")
        raise _pyd(f"--use-replayssm is only supported for Nemotron-H models (got architecture {arch!r})")
    if not _since(state, "kda_recoverssm"):
        _first_rules(mode, k, backend)
    else:
        _rules(state, values, arch, k, backend, buffer_len, mode, kda)
    if _kv_connector(values) and not (kda and _since(state, "prefix_caching_wording")):
        raise _pyd("--use-replayssm is incompatible with KV connectors (P/D disaggregation, KV cache offload)")


def _first_rules(mode: str, k: int, backend: str) -> None:
    """0.27.0-0.28.x."""
    if mode == "all":
        raise _pyd("--use-replayssm supports prefix caching only in align mode; pass --mamba-cache-mode align")
    if k > 0:
        raise _pyd("--use-replayssm does not support speculative decoding")
    if backend != "triton":
        raise _pyd("--use-replayssm requires --mamba-backend triton")


def _rules(state: State, values: dict, arch: str, k: int, backend: str, buffer_len: int, mode: str,
           kda: bool) -> None:
    """0.29.0+."""
    new = _since(state, "kda_only_for_kimi")
    worded = _since(state, "prefix_caching_wording")
    if new and backend == "flashinfer" and buffer_len > 16:
        raise _pyd("FlashInfer ReplaySSM requires --replayssm-buffer-len <= 16")
    if kda:
        if not new and state.model is not None and arch not in _KDA_ARCHS:
            raise _pyd("RecoverSSM is only supported for Kimi-K3 KDA")
        if values.get("enable_mamba_cache_stochastic_rounding"):
            raise _pyd("RecoverSSM supports bfloat16/float32 SSM state caches, not --enable-mamba-cache-stochastic-"
                       "rounding, which requires an explicit float16 cache")
        if not new and mode not in ("none", "align"):
            raise _pyd("RecoverSSM supports only none and align Mamba cache modes")
        if mode == "align" and not uses_v2_runner(state):
            what = "prefix caching" if worded else "align mode"
            raise _pyd(f"RecoverSSM with {what} requires VLLM_USE_V2_MODEL_RUNNER=1")
        if state.parallel["pipeline_parallel_size"] > 1:
            raise _pyd("RecoverSSM currently requires pipeline_parallel_size=1")
        if backend != "triton":  # 0.29.x: the check after both branches
            raise _pyd("RecoverSSM requires --mamba-backend triton" if _since(state, "flashinfer")
                       else "--use-replayssm requires --mamba-backend triton")
        return
    if new and k > 0:  # Mamba2 ReplaySSM speculative decoding
        if mode != "none":
            raise _pyd("FlashInfer ReplaySSM speculative decoding does not support prefix caching; use "
                       "--disable-prefix-caching" if worded else
                       "FlashInfer ReplaySSM speculative decoding requires --mamba-cache-mode none")
        if buffer_len < 1 + k:
            raise _pyd("FlashInfer ReplaySSM speculative decoding requires --replayssm-buffer-len >= 1 + "
                       f"num_speculative_tokens ({1 + k}); got {buffer_len}")
        if backend != "flashinfer":
            raise _pyd("Mamba2 ReplaySSM speculative decoding requires --mamba-backend flashinfer")
        return
    if mode == "all" and not new:
        raise _pyd("--use-replayssm supports prefix caching only in align mode; pass --mamba-cache-mode align")
    if not _since(state, "flashinfer"):
        if backend != "triton":
            raise _pyd("--use-replayssm requires --mamba-backend triton")
        return
    if backend == "flashinfer":
        if mode == "align":
            raise _pyd("FlashInfer ReplaySSM does not support prefix caching yet; use --disable-prefix-caching"
                       if worded else "FlashInfer ReplaySSM does not support --mamba-cache-mode align yet; use none")
    elif backend != "triton":
        raise _pyd("--use-replayssm requires --mamba-backend triton or flashinfer")
    elif uses_v2_runner(state):
        raise _pyd("Triton ReplaySSM requires Model Runner V1; use --mamba-backend flashinfer or Model Runner V1")
