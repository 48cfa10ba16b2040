"""ParallelConfig (vllm/config/parallel.py): built from the flags (sizes, the all2all backend from
flag or env by release), its field bounds, __post_init__ and model validator, the executor it
picks, and the DBO token thresholds of _verify_args."""
from __future__ import annotations

from vllm_preflight.model import Assumption
from vllm_preflight.resolve.base.pydantic import ConfigInvalid, _int
from vllm_preflight.resolve.base.pydantic import validator_error as _pyd
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State

# the sizes ParallelConfig is built from (a step reading state.parallel's sizes reads these)
PARALLEL_SIZES = ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size", "decode_context_parallel_size",
                  "prefill_context_parallel_size", "enable_expert_parallel", "enable_dbo", "ubatch_size")


def all2all_env_value(state: State, value: str) -> str:
    """VLLM_ALL2ALL_BACKEND is read through vLLM's choice-checked env reader wherever the
    release reads it; an unknown value (case-sensitive, empty included) is a ValueError
    inside ParallelConfig.__post_init__."""
    choices = state.release.facts.get("all2all_backends") or []
    if not choices:  # releases whose facts lack the list (0.11.0): envs.py's own choices
        from vllm_preflight.releases import env_choices

        choices = (env_choices(state.release.version).get("VLLM_ALL2ALL_BACKEND") or {}).get("choices") or []
    if choices and value not in choices:
        raise _pyd("ParallelConfig", f"Invalid value '{value}' for VLLM_ALL2ALL_BACKEND. "
                                     f"Valid options: {list(choices)}.")
    return value


@reads(*PARALLEL_SIZES, "data_parallel_rank", "data_parallel_size_local", "data_parallel_external_lb", "data_parallel_hybrid_lb", "data_parallel_start_rank", "node_rank", "distributed_executor_backend", "enable_eplb", "nnodes")
def parallel_checks(state: State, values: dict) -> None:
    """ParallelConfig.__post_init__ and its model validator."""
    par = state.parallel
    dp = par["data_parallel_size"]
    dp_local = values.get("data_parallel_size_local")
    if dp_local is None:
        dp_local = dp
    if state.release.rules.get("parallel_field_bounds", False):  # 0.23.0: sizes are `ge=1` fields
        bad = [(name, values.get(name)) for name in ("tensor_parallel_size", "pipeline_parallel_size",
                                                     "data_parallel_size")
               if isinstance(values.get(name), int) and values[name] < 1]
        dp_bad = [v for k, v in bad if k == "data_parallel_size" and v is not None]
        if dp_bad and dp_bad[0] < 0 and values.get("data_parallel_size_local") is None:
            bad.append(("data_parallel_size_local", dp_bad[0]))  # a ge=0 field: 0 passes, -1 does not
        if bad:
            n = len(bad)
            lines = "\n".join(f"{k}\n  Input should be greater than or equal to 1 [type=greater_than_equal, "
                              f"input_value={v}, input_type=int]" for k, v in bad)
            raise Refusal("ValidationError", f"{n} validation error{'s' if n > 1 else ''} for ParallelConfig\n{lines}")
    if state.release.rules.get("dcp_check_in_parallel_config", False):  # 0.16.0: moved from create_engine_config
        tp, dcp = par["tensor_parallel_size"], par["decode_context_parallel_size"]
        if dcp and tp % dcp != 0:
            space = " " if state.release.rules.get("dcp_message_spaced", False) else ""  # 0.26.0 added the space
            raise _pyd("ParallelConfig", f"tp_size={tp} must be divisible by{space}dcp_size={dcp}.")
    if (dp > 1 or dp_local == 0) and not 0 <= (values.get("data_parallel_rank") or 0) < dp:
        raise _pyd("ParallelConfig", f"data_parallel_rank ({values.get('data_parallel_rank') or 0}) "
                                     f"must be in the range [0, {dp})")
    if dp_local > dp > 1:
        raise _pyd("ParallelConfig", f"data_parallel_size_local ({dp_local}) must be <= data_parallel_size ({dp})")
    if dp <= 1 and state.parallel.get("data_parallel_external_lb") and state.release.key >= (0, 11, 1):  # the model validator (0.12.0 parallel.py:287)
        raise _pyd("ParallelConfig", "data_parallel_external_lb can only be set when data_parallel_size > 1")
    world_size_check(state, values)
    nn_backend = values.get("distributed_executor_backend")
    if (values.get("nnodes") or 1) > 1 and nn_backend is not None and state.release.key >= (0, 11, 1):
        allowed = ("mp", "uni", "external_launcher") if state.release.key >= (0, 13, 0) else ("mp", "uni")
        if nn_backend not in allowed:  # 0.12.0 parallel.py:596-600, 0.33.0 :1104-1114
            words = "mp, uni or external_launcher" if len(allowed) == 3 else "mp or uni"
            raise _pyd("ParallelConfig", f"nnodes > 1 can only be set when distributed executor backend is {words}.")
    if values.get("enable_eplb"):
        if not par["enable_expert_parallel"]:
            raise _pyd("ParallelConfig", "enable_expert_parallel must be True to use EPLB.")
        if par["tensor_parallel_size"] * dp <= 1:
            raise _pyd("ParallelConfig", "EPLB requires tensor_parallel_size or data_parallel_size to be greater "
                                         f"than 1, but got TP={par['tensor_parallel_size']},DP={dp}.")
    if state.release.rules.get("pcp_refused") and (par.get("prefill_context_parallel_size") or 1) > 1:
        # 0.12.0 only (config/parallel.py:315-319)
        raise _pyd("ParallelConfig", "Prefill context parallelism is not fully supported. Please set "
                                     "prefill_context_parallel_size to 1.")


def world_size_check(state: State, values: dict) -> None:
    """ParallelConfig.__post_init__ picks an executor when none is given: a world (PP x TP x PCP)
    larger than one node's GPUs is refused unless `--nnodes` > 1 (0.11.1-0.12.0 parallel.py:557-567
    "Tensor parallel size ..."; 0.13.0+ "World size ...", 0.33.0 :1064-1077). 0.11.0 took ray there
    instead, which it installs."""
    rel = state.release
    if values.get("distributed_executor_backend") is not None or rel.key < (0, 11, 1):
        return
    par = state.parallel
    world = par["tensor_parallel_size"] * par["pipeline_parallel_size"] * (par.get("prefill_context_parallel_size") or 1)
    nnodes = values.get("nnodes") or 1
    gpus = state.gpu.per_node
    if world * par["data_parallel_size"] <= 1 or (isinstance(nnodes, int) and nnodes > 1) or gpus >= world:
        return
    if rel.key < (0, 13, 0):
        raise _pyd("ParallelConfig", f"Tensor parallel size ({world}) cannot be larger than the number of "
                                     f"available GPUs ({gpus}).")
    raise _pyd("ParallelConfig", f"World size ({world}) is larger than the number of available GPUs ({gpus}) in "
                                 "this node. If this is intentional and you are using:\n- ray, set "
                                 "'--distributed-executor-backend ray'.\n- multiprocessing, set '--nnodes' "
                                 "appropriately.")


# the node's ray (state.node) matters only once one of these options picks the ray backend
@reads("distributed_executor_backend", "data_parallel_backend")
def executor_backend_check(state: State, values: dict) -> None:
    """--distributed-executor-backend: `ray` needs the ray package, which vLLM no longer installs
    (0.18.0+): taken as missing unless the launch shows it on the node (a Ray cluster, a script
    running `ray start`: the deployment's node.ray); from 0.19.0 VllmConfig takes any other
    unknown name as a `module.Class` path."""
    backend = values.get("distributed_executor_backend")
    par = state.parallel
    if backend is None and values.get("data_parallel_backend") == "ray" \
            and par["tensor_parallel_size"] * par["pipeline_parallel_size"] > 1:
        backend = "ray"  # ParallelConfig picks ray for a multi-GPU engine when DP runs on ray
    if backend is None:
        return
    rules = state.release.rules
    if backend == "ray" and not rules.get("ray_installed", True) and not state.node.get("ray"):
        state.assumptions.append(Assumption("node.ray", False, "ray is not a dependency of this vLLM release; taken as "
                                                         "not installed (vLLM then refuses the ray backend)"))
        raise _pyd("ParallelConfig", "Failed to import Ray: No module named 'ray'.Please install Ray with "
                                     "`pip install ray`.")
    if rules.get("executor_class_lookup", False) and backend not in ("ray", "mp", "uni", "external_launcher") \
            and "." not in backend:
        raise _pyd("VllmConfig", "not enough values to unpack (expected 2, got 1)")


def all2all_backend(state: State, flag_value: str | None) -> str | None:
    """Where the all2all backend comes from changed across releases (env only, env as
    fallback, env overriding the flag, env ignored)."""
    release = state.release
    env_value = state.env.get("VLLM_ALL2ALL_BACKEND")
    default = "allgather_reducescatter"
    source = release.all2all_env
    if source == "only":  # 0.11.0: no flag
        return env_value or default
    if source == "fallback":  # 0.11.1-0.13.0
        if flag_value is not None:
            return flag_value
        if env_value is not None:
            all2all_env_value(state, env_value)
            state.log("warning", "VLLM_ALL2ALL_BACKEND environment variable is deprecated and will be "
                      "removed in a future release. Please use the --all2all-backend command-line "
                      "argument instead.", once=True)
            return env_value
        return default
    if source == "override":  # 0.14.x-0.15.x
        if env_value is not None:
            all2all_env_value(state, env_value)
            state.log("warning", release.all2all_env_override_warning, once=True)
            return env_value
        return flag_value or default
    return flag_value or default  # 0.16.0+: the env var is gone


@reads(always=True)
def build_parallel_config(state: State, values: dict) -> None:
    """ParallelConfig from flag values (or a `parallel_config` dict): sizes, then the all2all
    backend from flag or env by release, then the fallback for removed backends."""
    state.parallel.update({
        "data_parallel_size": values.get("data_parallel_size", 1),
        "tensor_parallel_size": values.get("tensor_parallel_size", 1) or 1,
        "pipeline_parallel_size": values.get("pipeline_parallel_size", 1) or 1,
        "enable_expert_parallel": bool(values.get("enable_expert_parallel", False)),
        "enable_dbo": bool(values.get("enable_dbo", False)),
        "ubatch_size": values.get("ubatch_size") or 0,  # 0.14.0+
        "decode_context_parallel_size": values.get("decode_context_parallel_size", 1) or 1,
        "prefill_context_parallel_size": values.get("prefill_context_parallel_size", 1) or 1,
    })
    state.parallel["all2all_backend"] = all2all_backend(state, values.get("all2all_backend"))
    removed_backend_fallback(state)


def removed_backend_fallback(state: State) -> None:
    """0.18.0+ (pplx) and 0.20.0+ (naive): removed backends fall back with a warning."""
    backend = state.parallel["all2all_backend"]
    if backend in state.release.removed_all2all_backends:
        msg = f"The '{backend}' all2all backend has been removed. Falling back to 'allgather_reducescatter'."
        state.log("warning", msg)
        state.set("parallel.all2all_backend", "allgather_reducescatter", "all2all.removed_backend", msg,
                  "warning")


@reads("enable_eplb", "eplb_config", "num_redundant_experts")
def parallel_eplb_check(state: State, values: dict) -> None:
    """ParallelConfig refuses redundant experts without EPLB (0.12.0 config/parallel.py:306,
    0.33.0 :586). Where the release still has the deprecated --num-redundant-experts (0.11.x),
    that option, when given, replaces --eplb-config's value (0.11.0 arg_utils.py:1307), and
    0.11.0 refuses a negative count under --enable-eplb (config/parallel.py:427)."""
    n = None
    if "num_redundant_experts" in state.release.options.by_dest:
        n = values.get("num_redundant_experts")
    if n is None:
        eplb = values.get("eplb_config")
        n = eplb.get("num_redundant_experts", 0) if isinstance(eplb, dict) else 0
    try:
        n = _int(n, "num_redundant_experts")
    except ConfigInvalid:
        return
    if values.get("enable_eplb"):
        if n < 0 and state.release.version == "0.11.0":
            raise Refusal("ValidationError", f"1 validation error for ParallelConfig\n  Value error, "
                                             f"num_redundant_experts must be non-negative, but got {n}.")
        return
    if n != 0:
        raise Refusal("ValidationError", f"1 validation error for ParallelConfig\n  Value error, "
                                         f"num_redundant_experts is set to {n} but EPLB is not enabled. Either "
                                         f"enable EPLB or unset num_redundant_experts. [type=value_error]")


@reads("enable_dbo", "ubatch_size", "dbo_decode_token_threshold", "dbo_prefill_token_threshold")
def dbo_thresholds(state: State, values: dict) -> None:
    """0.30.0+ ParallelConfig._verify_args, last (0.30.0 config/parallel.py:1090-1100, 0.33.0
    :1178-1187): with microbatching on, both DBO token thresholds (defaults 32 and 512) must be
    at least the number of microbatches (2 with DBO, else --ubatch-size)."""
    if not state.release.key >= (0, 30, 0) or not use_ubatching(state):
        return
    n = 2 if state.parallel["enable_dbo"] else state.parallel["ubatch_size"]
    decode, prefill = values.get("dbo_decode_token_threshold"), values.get("dbo_prefill_token_threshold")
    if min(32 if decode is None else decode, 512 if prefill is None else prefill) < n:
        raise _pyd("ParallelConfig", "dbo_decode_token_threshold and dbo_prefill_token_threshold must be at least "
                   f"the number of microbatches ({n}).")


def use_ubatching(state: State) -> bool:
    """ParallelConfig.use_ubatching (0.14.0+): DBO, or --ubatch-size above 1; before 0.14.0
    only DBO (there is no --ubatch-size)."""
    par = state.parallel
    return bool(par["enable_dbo"]) or (state.release.key >= (0, 14, 0) and (par.get("ubatch_size") or 0) > 1)
