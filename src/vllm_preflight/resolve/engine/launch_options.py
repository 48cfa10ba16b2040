"""create_engine_config's launch-option checks before ParallelConfig: the tp % dcp assertion, the
multi-node / data-parallel load-balancing options and the data-parallel backend."""
from __future__ import annotations

from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State


# ------------------------------------------------------------ create_engine_config
@reads(always=True)
def dcp_divides_tp(state: State, values: dict) -> None:
    """A bare assert in create_engine_config (not inside a pydantic config)."""
    state.parallel.update({"tensor_parallel_size": values.get("tensor_parallel_size", 1) or 1,
                           "decode_context_parallel_size": values.get("decode_context_parallel_size", 1) or 1})
    tp = state.parallel["tensor_parallel_size"]
    dcp = state.parallel["decode_context_parallel_size"]
    if dcp and tp % dcp != 0 and not state.release.rules.get("dcp_check_in_parallel_config", False):
        raise Refusal("AssertionError", f"tp_size={tp} must be divisible bydcp_size={dcp}.")


def _launch_error(state: State, old: str, new: str) -> Refusal:
    """0.11.1-0.26.0 asserted these launch options; 0.27.0 raises ValueErrors worded anew."""
    if state.release.key < (0, 27, 0):
        return Refusal("AssertionError", old)
    return Refusal("ValueError", "Invalid data-parallel launch options: " + new)


def multi_node_checks(state: State, values: dict) -> None:
    """create_engine_config's launch-option checks before ParallelConfig (0.12.0 arg_utils.py:1440-1531,
    0.27.0 :2017-2110, 0.33.0 :2380-2526; 0.11.0 :1228-1261 has no nnodes nor external-lb flag).
    Not modelled: `--headless` (serve only)."""
    rel = state.release
    hybrid = bool(values.get("data_parallel_hybrid_lb"))
    external = bool(values.get("data_parallel_external_lb"))
    nnodes = values.get("nnodes") or 1
    node_rank = values.get("node_rank") or 0
    backend = values.get("data_parallel_backend", "mp")
    dp = values.get("data_parallel_size", 1) or 1
    tp = values.get("tensor_parallel_size", 1) or 1
    pp = values.get("pipeline_parallel_size", 1) or 1
    rank = values.get("data_parallel_rank")
    local = values.get("data_parallel_size_local")
    if hybrid and external:
        raise _launch_error(state, "data_parallel_hybrid_lb and data_parallel_external_lb cannot both be True.",
                            "`--data-parallel-hybrid-lb` and `--data-parallel-external-lb` cannot be enabled "
                            "together. Enable only one load-balancing mode.")
    if nnodes > 1 and backend != "mp":
        raise _launch_error(state, "nnodes > 1 is only supported with data_parallel_backend=mp",
                            f"`--nnodes {nnodes}` requires `--data-parallel-backend mp`; got "
                            f"`--data-parallel-backend {backend}`. Use the MP backend or set `--nnodes 1`.")
    if nnodes > 1:
        within = pp * tp
        if rel.key >= (0, 30, 0):  # 0.30.0 counts prefill context parallelism in
            within *= values.get("prefill_context_parallel_size", 1) or 1
        world = dp * within
        if world % nnodes != 0:
            pcp = ", or `--prefill-context-parallel-size`" if rel.key >= (0, 30, 0) else ""
            tail = (", `--tensor-parallel-size`" + pcp) if pcp else ", or `--tensor-parallel-size`"
            raise _launch_error(state, f"world_size={world} must be divisible by nnodes={nnodes}.",
                                f"`--nnodes {nnodes}` must evenly divide the total world size ({world}). Adjust "
                                f"`--nnodes`, `--data-parallel-size`, `--pipeline-parallel-size`{tail}.")
        if (rel.key < (0, 27, 0) and node_rank >= nnodes) or (rel.key >= (0, 27, 0)
                                                                and not 0 <= node_rank < nnodes):
            raise _launch_error(state, f"node_rank={node_rank} must be less than nnodes={nnodes}.",
                                f"`--node-rank` must be between 0 and {nnodes - 1}; got `--node-rank "
                                f"{node_rank}`. Set it to this node's zero-based index.")
        inferred = node_rank * (world // nnodes) // within
        if dp > 1 and external:
            if rank is None and rel.key >= (0, 31, 0) and nnodes % dp != 0:
                raise _launch_error(state, "", "`--node-rank` cannot unambiguously identify external data-parallel "
                                    "ranks when `--nnodes` is not divisible by `--data-parallel-size`. Set a "
                                    "unique `--data-parallel-rank` for each external-LB process.")
            if rank is None or rel.key < (0, 31, 0):
                rank = inferred
                values["data_parallel_rank"] = rank
        elif local is None:  # internal load balancing: the local size follows from the node count
            local = max(world // nnodes // within, 1)
    ext = external or rank is not None
    if rel.key >= (0, 27, 0) and values.get("enable_fault_tolerance") and not ext:
        raise Refusal("ValueError", "Fault tolerance requires external load balancer mode (--data-parallel-external-lb "
                                    "or --data-parallel-rank). Internal LB mode is not supported.")
    if rel.key >= (0, 21, 0) and dp > 1 and ext and not state.model_cfg.get("is_moe"):
        raise Refusal("ValueError", "Non-MoE models do not support external data parallel mode. For external load "
                                    "balancing, launch independent vLLM instances without --data-parallel-* "
                                    "arguments.")
    if ext:
        if rank is None:
            raise _launch_error(state, "data_parallel_rank or node_rank must be specified if data_parallel_external_lb "
                                "is enable.", "`--data-parallel-external-lb` requires a data-parallel rank. Set "
                                "`--data-parallel-rank`, or set `--data-parallel-size` greater than 1 and use "
                                "`--nnodes` with `--node-rank` so the rank can be inferred.")
        if local not in (1, None):
            old = "1 or None" if rel.key >= (0, 11, 1) else "1"
            raise _launch_error(state, f"data_parallel_size_local must be {old} when data_parallel_rank is set",
                                "an external data-parallel rank requires `--data-parallel-size-local 1`; got "
                                f"{local}. Set it to 1 or omit it.")
    elif local is not None:
        start = values.get("data_parallel_start_rank")
        hybrid = hybrid or (start is not None if rel.key >= (0, 28, 0) else bool(start))
        if hybrid and local == 1:
            ext = True
    elif hybrid:
        raise _launch_error(state, "data_parallel_size_local must be set to use data_parallel_hybrid_lb.",
                            "`--data-parallel-hybrid-lb` requires `--data-parallel-size-local`. Set it to the "
                            "number of data-parallel ranks on this node.")
    state.parallel["data_parallel_external_lb"] = ext


@reads(always=True)
def dp_backend_check(state: State, values: dict) -> None:
    """Without --data-parallel-address, a backend other than ray must be mp (a bare assert)."""
    multi_node_checks(state, values)
    backend = values.get("data_parallel_backend", "mp")
    if values.get("data_parallel_address") is None and backend not in ("ray", "mp"):
        raise Refusal("AssertionError", str(("data_parallel_backend can only be ray or mp, got %s", backend)))
