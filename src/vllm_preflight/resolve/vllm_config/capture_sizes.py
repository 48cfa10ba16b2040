"""CUDA-graph capture sizes (`VllmConfig._set_cudagraph_sizes`), by release.

Computed once, before the splitting-ops step: a later downgrade of cudagraph_mode to
NONE (DeepEP HT, empty splitting_ops) leaves the sizes populated, as in vLLM.
"""
from __future__ import annotations

from vllm_preflight.resolve.base.state import Refusal, State, validation_error
from vllm_preflight.resolve.speculative import dynamic_sd

# vLLM lists every capture size; with max_num_batched_tokens 500,000,000 that is 31 million
# sizes (and a MemoryError at 1e11). Past this many the list is not built: the resolution keeps
# the largest size, leaves `cudagraph_capture_sizes` null and says so (event
# capture_sizes.not_listed, finding VP120). Real deployments capture a few hundred sizes.
MAX_LISTED_SIZES = 1 << 16


def _grid_ranges(max_size: int, interactivity: bool = False) -> list[range]:
    if interactivity:
        ranges = [range(1, min(max_size, 32) + 1)]
    else:
        ranges = [range(i, i + 1) for i in (1, 2, 4) if i <= max_size]
    if max_size >= 8:
        ranges.append(range(8, min(max_size + 1, 256), 8))
    if max_size >= 256:
        ranges.append(range(256, max_size + 1, 16))
    return ranges


def _grid(max_size: int) -> list[int]:
    return [i for r in _grid_ranges(max_size) for i in r]


def _unlisted(state: State, ranges: list[range], extra: list[int], user_max) -> bool:
    """Too many sizes to list: set the largest one and say why the list is null."""
    count = sum(len(r) for r in ranges) + len(extra)
    if count <= MAX_LISTED_SIZES:
        return False
    tp = state.parallel["tensor_parallel_size"]
    sp = tp > 1 and state.pass_config.get(state.release.sp_name)
    candidates = list(extra)
    for r in ranges:
        if sp:  # the largest multiple of tp in the range (SP drops the others)
            top = next((x for x in reversed(r[-(tp * 16 + 1):]) if x % tp == 0), None)
            if top is not None:
                candidates.append(top)
        elif len(r):
            candidates.append(r[-1])
    valid_max = max(candidates) if candidates else 0
    if user_max is not None and user_max != valid_max:
        state.log("warning", f"Truncating max_cudagraph_capture_size to {valid_max}")
    shown = ", ".join(f"{r.start}" if len(r) == 1 else f"{r.start}..{r[-1]} by {r.step}" for r in ranges if len(r))
    state.set("cc.max_cudagraph_capture_size", valid_max, "capture_sizes.max",
              "largest CUDA-graph capture size", "debug")
    state.cc["cudagraph_capture_sizes"] = None
    state.note("cudagraph_capture_sizes", "capture_sizes.not_listed",
               f"vLLM would capture about {count:,} CUDA-graph sizes ({shown}); vllm-preflight does not "
               f"list more than {MAX_LISTED_SIZES:,}: cudagraph_capture_sizes is left null and "
               f"max_cudagraph_capture_size is the largest", "warning")
    return True


def _sp_filter(state: State, sizes: list[int]) -> list[int]:
    tp = state.parallel["tensor_parallel_size"]
    if tp > 1 and state.pass_config.get(state.release.sp_name):
        removed = [s for s in sizes if s % tp]
        if removed:
            state.log("warning", f"Batch sizes {removed} are removed because they are not multiple of "
                      f"tp_size {tp} when sequence parallelism is enabled")
        return [s for s in sizes if s % tp == 0]
    return sizes


def set_cudagraph_sizes(state: State) -> None:
    if state.release.capture_sizes_style == "v0_11_0":
        _sizes_v0_11_0(state)
    else:
        _sizes_v0_11_1(state)


def _ceiling(state: State) -> int:
    return 1024 if (state.release.sm100_capture_ceiling and state.gpu.is_sm100_family) else 512


def _default_max(state: State) -> int:
    q = 1 + state.num_speculative_tokens if state.release.capture_max_counts_spec_tokens else 1
    return min(state.scheduler["max_num_seqs"] * q * 2, _ceiling(state))


def _request_counts(max_reqs: int, ceiling: int) -> list[int]:
    max_reqs = min(max_reqs, ceiling)
    counts = [n for n in (1, 2, 4) if n <= max_reqs]
    counts += list(range(8, min(max_reqs + 1, 256), 8))
    counts += list(range(256, max_reqs + 1, 16))
    return sorted(set(counts + [max_reqs]))


def _uniform_decode_sizes(state: State, max_size: int) -> list[int]:
    """0.29.0+: with speculative decoding, decode batches are q tokens per request; capture
    those widths too (0.31.0+: and max_num_seqs itself without speculation)."""
    q = 1 + state.num_speculative_tokens
    mns = state.scheduler["max_num_seqs"]
    if q > 1:
        # 0.29.0+ with dynamic speculative decoding: each tier of the schedule has its own width
        schedule = state.dynamic_sd_schedule if state.release.dynamic_sd_capture_tiers else None
        tiers = dynamic_sd.decode_tiers(schedule, q, mns, state.num_speculative_tokens)
        return sorted({n * tq for tq, reqs in tiers for n in _request_counts(reqs, _ceiling(state))
                       if n * tq <= max_size})
    if state.release.capture_add_max_num_seqs and mns <= max_size:
        return [mns]
    return []


def _sizes_v0_11_1(state: State) -> None:
    cc = state.cc
    if not (state.has_model and not state.enforce_eager and cc["cudagraph_mode"] != "NONE"):
        cc["max_cudagraph_capture_size"] = 0
        cc["cudagraph_capture_sizes"] = []
        return
    user_max = cc["max_cudagraph_capture_size"]
    max_size = user_max if user_max is not None else _default_max(state)
    uniform: list[int] = []
    if user_max is None and state.release.capture_uniform_decode_sizes:
        uniform = _uniform_decode_sizes(state, max_size)
    max_tokens = state.scheduler["max_num_batched_tokens"]
    max_size = min(max_tokens, max_size)
    if max_size < 1:
        raise validation_error("Maximum cudagraph size should be greater than or equal to 1 when using "
                               "cuda graph.", "Assertion failed")
    user_sizes = cc["cudagraph_capture_sizes"]
    if user_sizes is None:
        interactive = bool(state.release.capture_interactivity
                           and state.model_cfg.get("performance_mode") == "interactivity")
        extra = [s for s in uniform if s <= max_tokens]
        if state.release.capture_add_max_num_batched_tokens and max_tokens <= max_size:
            extra.append(max_tokens)
        if _unlisted(state, _grid_ranges(max_size, interactive), extra, user_max):
            return
    if user_sizes is not None:
        if not user_sizes:
            raise validation_error("cudagraph_capture_sizes should contain at least one element when using "
                                   "cuda graph.", "Assertion failed")
        sizes = sorted(i for i in set(user_sizes) if i <= max_tokens)
    else:
        if state.release.capture_interactivity and state.model_cfg.get("performance_mode") == "interactivity":
            sizes = list(range(1, min(max_size, 32) + 1))
            if max_size >= 8:
                sizes += list(range(8, min(max_size + 1, 256), 8))
            if max_size >= 256:
                sizes += list(range(256, max_size + 1, 16))
        else:
            sizes = _grid(max_size)
        if state.release.capture_add_max_num_batched_tokens and max_tokens <= max_size \
                and max_tokens not in sizes:
            sizes.append(max_tokens)
        sizes += [s for s in uniform if s <= max_tokens]
        sizes = sorted(set(sizes))
    sizes = _sp_filter(state, sizes)
    valid_max = sizes[-1] if sizes else 0
    if user_max is not None and user_max != valid_max:
        if user_sizes is not None:
            raise validation_error(f"customized max_cudagraph_capture_size(={user_max}) should be "
                                   f"consistent with the max value of cudagraph_capture_sizes(={valid_max})")
        state.log("warning", f"Truncating max_cudagraph_capture_size to {valid_max}")
    if user_sizes is not None and len(sizes) < len(user_sizes):
        state.log("warning", f"cudagraph_capture_sizes specified in compilation_config {user_sizes} is "
                  f"overridden by config {sizes}")
    state.set("cc.max_cudagraph_capture_size", valid_max, "capture_sizes.max",
              "largest CUDA-graph capture size", "debug")
    state.set("cc.cudagraph_capture_sizes", sorted(sizes), "capture_sizes.list",
              "CUDA-graph capture sizes", "debug")


def _sizes_v0_11_0(state: State) -> None:
    """0.11.0: sizes come from the scheduler's cuda_graph_sizes (one value: a grid up to it)."""
    cc = state.cc
    sched = state.scheduler
    user_sizes = cc["cudagraph_capture_sizes"]
    if user_sizes is not None:
        sizes = sorted(set(user_sizes), reverse=True)
    elif not state.has_model or state.enforce_eager:
        sizes = []
    else:
        given = sched.get("cuda_graph_sizes") or [min(sched["max_num_seqs"] * 2, 512)]
        if len(given) == 1 and len(range(8, given[0] + 1, 8)) > MAX_LISTED_SIZES:
            ranges = [range(i, i + 1) for i in (1, 2, 4)] + [range(8, min(given[0], sched["max_num_batched_tokens"]) + 1, 8)]
            if _unlisted(state, ranges, [], None):
                return
        if len(given) == 1:
            sizes = [1, 2, 4] + list(range(8, given[0] + 1, 8))
        else:
            sizes = sorted(given)
        sizes = _sp_filter(state, sizes)
        sizes = [s for s in sizes if s <= sched["max_num_batched_tokens"]]
        sizes = sorted(set(sizes), reverse=True)
    state.set("cc.cudagraph_capture_sizes", sizes, "capture_sizes.list", "CUDA-graph capture sizes", "debug")
    state.set("cc.max_cudagraph_capture_size", max(sizes) if sizes else 0, "capture_sizes.max",
              "largest CUDA-graph capture size", "debug")


__all__ = ["Refusal", "set_cudagraph_sizes"]
