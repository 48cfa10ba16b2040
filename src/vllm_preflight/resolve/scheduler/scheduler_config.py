"""SchedulerConfig (vllm/config/scheduler.py) as create_engine_config builds it: the token and
sequence budgets from the GPU's memory and the usage context (the OpenAI API server), its field
bounds, its validators and verify_max_model_len."""
from __future__ import annotations

from vllm_preflight.resolve.base.field_bounds import field_errors, raise_field_errors
from vllm_preflight.resolve.base.pydantic import value_error as _pyd
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State


def _verify_scheduler(mnbt: int, mns: int, max_model_len: int, chunked: bool, bounds: bool = True) -> None:
    """SchedulerConfig's own checks (a pydantic config: its caller sees ValidationError)."""
    def fail(msg: str) -> Refusal:
        return Refusal("ValidationError", f"1 validation error for SchedulerConfig\n  Value error, {msg}")
    # field bounds (ge=1) are checked before the validators (recorded on 0.12.0 and pr29558)
    low = [(k, v) for k, v in (("max_num_batched_tokens", mnbt), ("max_num_seqs", mns)) if v < 1] \
        if bounds else []
    if low:
        n = len(low)
        raise Refusal("ValidationError", f"{n} validation error{'s' if n > 1 else ''} for SchedulerConfig\n" + "\n".join(
            f"{k}\n  Input should be greater than or equal to 1 [type=greater_than_equal, input_value={v}, "
            f"input_type=int]" for k, v in low))
    if mnbt < max_model_len and not chunked:
        raise fail(f"max_num_batched_tokens ({mnbt}) is smaller than max_model_len ({max_model_len}). "
                   "This effectively limits the maximum sequence length to max_num_batched_tokens and "
                   "makes vLLM reject longer sequences. Please increase max_num_batched_tokens or "
                   "decrease max_model_len.")
    if mnbt < mns:
        raise fail(f"max_num_batched_tokens ({mnbt}) must be greater than or equal to max_num_seqs ({mns}).")


# ------------------------------------------------------------------ SchedulerConfig
def scheduler_fields(state: State, values: dict, mnbt: int, mns: int) -> None:
    """SchedulerConfig's bounded fields, with the token and sequence budgets vLLM filled in; the
    diffusion and watermark configs are built just before it."""
    raise_field_errors("SchedulerConfig", field_errors(state, "SchedulerConfig", values,
                                                       {"max_num_batched_tokens": mnbt, "max_num_seqs": mns}))


# (first release) of each SchedulerConfig.verify_max_model_len check beyond the two budgets
_ACTIVE_SEQS = (0, 31, 0)  # max_num_active_seqs <= max_num_seqs (0.31.0 config/scheduler.py)


_THRESHOLD_ALWAYS = (0, 27, 0)  # long_prefill_token_threshold <= max_model_len without partial prefills


def scheduler_post_init(state: State, values: dict, mns: int, max_model_len: int, encoder_decoder: bool) -> None:
    """SchedulerConfig.verify_max_model_len after its two budget checks (0.33.0 config/scheduler.py:
    336-360). Until 0.26.x the threshold is checked only with concurrent partial prefills, which
    _check_feature_supported refuses first; an encoder-decoder model's threshold is set to 0."""
    key = state.release.key
    active = values.get("max_num_active_seqs")
    if key >= _ACTIVE_SEQS and isinstance(active, int) and active > mns:
        raise _pyd("SchedulerConfig", f"max_num_active_seqs ({active}) cannot be greater than max_num_seqs ({mns}).")
    threshold = 0 if encoder_decoder else values.get("long_prefill_token_threshold") or 0
    if key >= _THRESHOLD_ALWAYS and isinstance(threshold, int) and threshold > max_model_len:
        raise _pyd("SchedulerConfig", f"long_prefill_token_threshold ({threshold}) cannot be greater than the "
                                      f"max_model_len ({max_model_len}).")


@reads(always=True)
def scheduler_config(state: State, values: dict) -> None:
    """SchedulerConfig's budgets as create_engine_config fills them in (usage context: the OpenAI
    API server; the defaults follow the GPU's memory), then its field bounds (after the diffusion
    and watermark configs built just before it), its validators and verify_max_model_len."""
    v, release, facts = values, state.release, state.facts
    max_model_len = state.model_cfg["max_model_len"]
    big = state.gpu.memory_gib >= 70 and "a100" not in state.gpu.device_name.lower()
    chunked = v.get("enable_chunked_prefill")
    if chunked is None:
        chunked = not facts.is_encoder_decoder
    mnbt, mns = v.get("max_num_batched_tokens"), v.get("max_num_seqs")
    par = state.parallel
    batched_dp_moe = (release.batched_dp_moe_tokens and par["enable_expert_parallel"]
                      and par["data_parallel_size"] > 1
                      and par["all2all_backend"] in ("deepep_low_latency", "nixl_ep"))
    throughput = release.throughput_mode_doubles and v.get("performance_mode") == "throughput"
    if mns is None and throughput:
        mns_default = (1024 if big else 256) * 2
    else:
        mns_default = 1024 if big else 256
    if mnbt is None:
        # 0.20.0+: batched DP MoE (DeepEP LL / NIXL EP with DP>1) schedules few tokens per step
        mnbt = release.batched_dp_moe_tokens if batched_dp_moe else (8192 if big else 2048)
        if throughput:
            mnbt *= 2
        if not chunked:
            mnbt = max(max_model_len, mnbt)
        mnbt = min((mns if mns is not None else mns_default) * max_model_len, mnbt)
    if mns is None:
        mns = min(mns_default, mnbt)
    state.scheduler.update({"max_num_batched_tokens": mnbt, "max_num_seqs": mns,
                            "enable_chunked_prefill": chunked})
    scheduler_fields(state, v, mnbt, mns)
    _verify_scheduler(mnbt, mns, max_model_len, chunked, release.rules.get("scheduler_field_bounds", True))
    scheduler_post_init(state, v, mns, max_model_len, facts.is_encoder_decoder)
