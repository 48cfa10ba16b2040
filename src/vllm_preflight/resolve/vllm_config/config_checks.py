"""Config checks outside the compilation path that make vLLM refuse to start (issue 9).

Ported from reading vLLM's `EngineArgs.create_engine_config`, `ParallelConfig`,
`SpeculativeConfig` and `VllmConfig.__post_init__` (docs/config-path-map.md lists each with
its source line). They run in vLLM's order: the decode-context-parallel assertion before
the parallel config; ParallelConfig's own checks; the speculative config; then the first
checks of `VllmConfig.__post_init__` (model x parallel, async scheduling).

Value sets that change between releases (speculative methods, KV roles, numeric bounds)
are data, `releases/data/refusals.json`: recorded from installed releases, and for the others
read from their sources (tools/extract_refusal_facts_static.py), so every release has one; on
a release without a record those value checks would be skipped and said so.
"""
from __future__ import annotations

from functools import lru_cache

from vllm_preflight.model import Assumption
from vllm_preflight.releases import data_file
from vllm_preflight.resolve.base.state import Refusal, State, option_json
from vllm_preflight.resolve.speculative import draft_model as draft_checks
from vllm_preflight.resolve.speculative import dynamic_sd
from vllm_preflight.resolve.speculative import field_errors as spec_field_errors


@lru_cache(maxsize=1)
def _all_facts() -> dict:
    return data_file("refusals.json")


def value_facts(state: State) -> dict | None:
    """The recorded value sets of this release (None when it has no record)."""
    return _all_facts().get(state.release.version)


def _pyd(cls: str, message: str, kind: str = "Value error") -> Refusal:
    return Refusal("ValidationError", f"1 validation error for {cls}\n  {kind}, {message}")


def _field(cls: str, field: str, message: str) -> Refusal:
    return Refusal("ValidationError", f"1 validation error for {cls}\n{field}\n  {message}")


# ------------------------------------------------------------------ the parser
def kv_transfer_problem(kv: dict, state: State) -> str | None:
    """`--kv-transfer-config` is validated by its argparse type (pydantic): the role is a
    literal; a connector needs a role. The connector name itself is resolved only when the
    engine starts (not a config-time refusal)."""
    rec = value_facts(state)
    roles = tuple(rec["kv_roles"]) if rec else ("kv_producer", "kv_both", "kv_consumer")
    role = kv.get("kv_role")
    cls = "1 validation error for KVTransferConfig"
    if role is not None and role not in roles:
        shown = ", ".join(f"'{r}'" for r in roles[:-1]) + f" or '{roles[-1]}'"
        return f"{cls}\nkv_role\n  Input should be {shown} [type=literal_error, input_value={role!r}, input_type=str]"
    if rec and rec.get("kv_extra") == "forbid":
        extra = [k for k in kv if k not in rec["kv_fields"]]
        if extra:
            return (f"{cls}\n{extra[0]}\n  Unexpected keyword argument [type=unexpected_keyword_argument, "
                    f"input_value={kv[extra[0]]!r}]")
    if kv.get("kv_connector") is not None and role is None:
        key = "kv_disagg_role" if state.release.key < (0, 11, 1) else "kv_role"  # 0.11.0's wording
        return (f"{cls}\n  Value error, Please specify {key} when kv_connector is set, supported roles are "
                f"{roles} [type=value_error, input_value={kv!r}, input_type=dict]")
    return None


def feature_checks(state: State, values: dict) -> None:
    """EngineArgs._check_feature_supported, right after the model config is built (0.12.0
    arg_utils.py:1753-1796, 0.33.0 :2920-2937)."""
    spec = option_json(values, "speculative_config")
    rules = state.release.rules
    if spec is not None and not isinstance(spec, dict) and rules.get("draft_model_not_implemented", False):
        # 0.11.0-0.14.1 read `.method` of anything that is not a dict (0.12.0 arg_utils.py:1767-1771)
        raise Refusal("AttributeError", f"'{type(spec).__name__}' object has no attribute 'method'")
    if not rules.get("logits_pattern_supported", False) and values.get("logits_processor_pattern") is not None:
        raise _unsupported("--logits-processor-pattern")  # until 0.16.x
    if not rules.get("partial_prefill_supported", False) and \
            (values.get("max_num_partial_prefills", 1) != 1 or values.get("max_long_partial_prefills", 1) != 1):
        raise _unsupported("Concurrent Partial Prefill")  # until 0.26.x
    if isinstance(spec, dict) and spec.get("method") == "draft_model" \
            and rules.get("draft_model_not_implemented", False):
        raise Refusal("NotImplementedError", "Draft model speculative decoding is not supported yet. Please "
                                             "consider using other speculative decoding methods such as ngram, "
                                             "medusa, eagle, or mtp.")
    if (values.get("pipeline_parallel_size") or 1) > 1 and \
            values.get("distributed_executor_backend") not in (None, "ray", "mp", "external_launcher"):
        # every release: a backend given by name (uni, a `module.Class` path) has no `supports_pp`
        raise _unsupported("Pipeline Parallelism without Ray distributed executor or multiprocessing executor or "
                           "external launcher")


def _unsupported(feature: str) -> Refusal:
    """EngineArgs' _raise_unsupported_error."""
    return Refusal("NotImplementedError", f"{feature} is not supported. We recommend to remove {feature} from "
                                          "your config.")


# ------------------------------------------------------------ create_engine_config
def dcp_divides_tp(state: State) -> None:
    """A bare assert in create_engine_config (not inside a pydantic config)."""
    tp = state.parallel["tensor_parallel_size"]
    dcp = state.parallel["decode_context_parallel_size"]
    if dcp and tp % dcp != 0 and not state.release.rules.get("dcp_check_in_parallel_config", False):
        raise Refusal("AssertionError", f"tp_size={tp} must be divisible bydcp_size={dcp}.")


def all2all_env_value(state: State, value: str) -> str:
    """VLLM_ALL2ALL_BACKEND is read through vLLM's choice-checked env reader wherever the
    release reads it; an unknown value (case-sensitive, empty included) is a ValueError
    inside ParallelConfig.__post_init__."""
    choices = state.release.facts.get("all2all_backends") or []
    if choices and value not in choices:
        raise _pyd("ParallelConfig", f"Invalid value '{value}' for VLLM_ALL2ALL_BACKEND. "
                                     f"Valid options: {list(choices)}.")
    return value


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


def dp_backend_check(state: State, values: dict) -> None:
    """Without --data-parallel-address, a backend other than ray must be mp (a bare assert)."""
    multi_node_checks(state, values)
    backend = values.get("data_parallel_backend", "mp")
    if values.get("data_parallel_address") is None and backend not in ("ray", "mp"):
        raise Refusal("AssertionError", str(("data_parallel_backend can only be ray or mp, got %s", backend)))


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


# ------------------------------------------------------------------ speculative
def speculative_checks(state: State, spec: dict, facts, assumptions: list[Assumption],
                       values: dict | None = None) -> None:
    """SpeculativeConfig: field constraints first (pydantic), then __post_init__, then
    `_verify_args`. Draft-model methods read the draft model's own config
    (resolve/speculative_checks.py)."""
    rec = value_facts(state)
    cls = "SpeculativeConfig"
    method = spec.get("method")
    if rec is not None:
        # the method literal, the field bounds, the sampling literals and unknown keys: pydantic
        # counts every failing field and shows the first (resolve/spec_field_errors.py)
        spec_field_errors.check(state, spec, rec)
        if method in rec["mtp_methods"] and method != "mtp":
            method = "mtp"
    else:
        # the one bound every release from 0.11.1 declares (`Field(gt=0)`, speculative.py), so it is
        # checked where the rest of the value facts are not recorded
        n_tokens = spec.get("num_speculative_tokens")
        if state.release.key >= (0, 11, 1) and isinstance(n_tokens, int) and not isinstance(n_tokens, bool) \
                and n_tokens <= 0:
            raise _field(cls, "num_speculative_tokens", "Input should be greater than 0")
    if rec is None and method is not None:
        assumptions.append(Assumption("speculative_config.method", method,
                                      f"not checked: vLLM {state.release.version}'s list of speculative methods "
                                      f"is not recorded"))
        if method.endswith("_mtp"):
            method = "mtp"  # an MTP alias (every release's MTPModelTypes names end so): SpeculativeConfig's mtp
    schedule = spec.get(dynamic_sd.FIELD)
    if state.release.dynamic_sd_piecewise is not None:
        # a field from 0.24.0: its type is checked with the other fields; resolve/dynamic_sd.py
        state.dynamic_sd_schedule = dynamic_sd.validate(schedule)
    elif schedule is not None:
        assumptions.append(Assumption(f"speculative_config.{dynamic_sd.FIELD}", schedule,
                                      "not a SpeculativeConfig field before vLLM 0.24.0; taken as ignored"))
    model = spec.get("model")
    n = spec.get("num_speculative_tokens")
    if model is None and n is not None:
        if method == "mtp" or (method == "dspark" and state.release.key >= (0, 25, 0)):
            model = "(target)"  # the target's checkpoint is the draft (0.25.0+ speculative.py:672 for DSpark)
        elif method in ("ngram", "[ngram]", "suffix", "ngram_gpu") or (
                method == "extract_hidden_states" and state.release.key >= (0, 17, 0)):
            model = method  # extract_hidden_states: 0.17.0+ (speculative.py:369)
        elif method == "custom_class" and state.release.key >= (0, 22, 0):  # speculative.py:569-576
            raise _pyd(cls, "method='custom_class' requires 'model' to contain the custom proposer module "
                            "path (e.g., 'my_module.MyProposer').")
        else:
            raise _pyd(cls, "num_speculative_tokens was provided but without speculative model.")
    if method is None and model in ("ngram", "[ngram]"):
        method = "ngram"
    # the method name vLLM's V1-runner check reads (a draft model without a method is draft_model)
    state.speculative_method_resolved = "ngram" if method == "[ngram]" else method or (
        "draft_model" if model is not None else None)
    if method in ("ngram", "[ngram]"):
        lo, hi = spec.get("prompt_lookup_min"), spec.get("prompt_lookup_max")
        lo = hi if lo is None else lo
        hi = lo if hi is None else hi
        if state.release.key < (0, 11, 1) and lo is not None and hi is not None:
            # 0.11.0 checks the values itself (0.11.1+: Field(ge=1), spec_field_errors.py)
            for name, val in (("prompt_lookup_min", lo), ("prompt_lookup_max", hi)):
                if isinstance(val, int) and val < 1:
                    raise _pyd(cls, f"{name}={val} must be > 0")
        if lo is not None and hi is not None and lo > hi:
            raise _pyd(cls, f"prompt_lookup_min={lo} must be <= prompt_lookup_max={hi}")
    elif method == "suffix":
        assumptions.append(Assumption("node.arctic_inference", False,
                                      "suffix decoding imports the optional arctic-inference package; taken as "
                                      "not installed (vLLM then refuses with ImportError)"))
        raise Refusal("ImportError", "Arctic Inference is required for suffix decoding. "
                                     "Install via `pip install arctic-inference==0.1.1`.")
    draft = None
    if model is not None and method not in ("ngram", "[ngram]", "suffix", "ngram_gpu", "extract_hidden_states",
                                            "custom_class"):
        # the draft model's own config.json: resolve/speculative_checks.py
        method, n, draft = draft_checks.draft_model_checks(state, spec, method, n, assumptions)
        state.speculative_method_resolved = method
        if n is not None and spec.get("num_speculative_tokens") is None:
            spec["num_speculative_tokens"] = n  # n_predict's default, as the built config holds it
    built = draft is not None or method in ("ngram", "[ngram]", "ngram_gpu", "custom_class", "extract_hidden_states")
    draft_checks.post_init_tail(state, spec, method, True if built else (False if model is None else None))
    # ngram (and ngram_gpu 0.20.0+, custom_class 0.24.0+) drafts with the target itself: _verify_args
    # checks the target against the parallel config first (0.33.0 speculative.py:1331, 1990)
    target_is_draft = draft is None and (method in ("ngram", "[ngram]", "ngram_gpu")
                                         or (method == "custom_class" and state.release.key >= (0, 24, 0)))
    from vllm_preflight.resolve.model.quantization import model_dtype

    draft_checks.verify_args(state, spec, method, n, draft, target_verify=(
        (lambda: verify_with_parallel_config(state, facts, values or {}, cls)) if target_is_draft else None),
        dtype=model_dtype(facts, values or {}, state.model_cfg.get("is_pooling")) if facts is not None else None)


# ------------------------------------------------------------ VllmConfig.__post_init__
def model_parallel_checks(state: State, facts, values: dict) -> None:
    """ModelConfig.verify_with_parallel_config, the first step of VllmConfig.__post_init__."""
    verify_with_parallel_config(state, facts, values, "VllmConfig")
    from vllm_preflight.resolve.vllm_config import post_init as vllm_config_checks

    vllm_config_checks.early(state, values)  # what __post_init__ checks next (vllm_config_checks)


def verify_with_parallel_config(state: State, facts, values: dict, owner: str) -> None:
    """The target ModelConfig against the parallel config. SpeculativeConfig runs it first for the
    methods whose draft is the target itself (ngram; speculative_checks.verify_args), so `owner`
    names the config whose validation error carries the message."""
    par = state.parallel
    tp = par["tensor_parallel_size"]
    if values.get("tensor_parallel_size") == 0:  # `heads % 0` (before 0.33.0's field bound)
        raise Refusal("ZeroDivisionError", "integer modulo by zero")
    heads = getattr(facts, "num_attention_heads", 0)
    if heads and tp and heads % tp != 0:
        raise _pyd(owner, f"Total number of attention heads ({heads}) must be divisible by tensor "
                          f"parallel size ({tp}).")
    if par["enable_expert_parallel"] and not facts.is_moe:
        raise _pyd(owner, "Number of experts in the model must be greater than 0 when expert "
                          "parallelism is enabled.")
    if par.get("pipeline_parallel_size", 1) > 1:
        pp_supported_check(state, facts, values)
    dcp = par["decode_context_parallel_size"]
    kv = getattr(facts, "num_key_value_heads", 0)
    if dcp > 1 and not facts.is_mla and kv and state.release.rules.get("dcp_messages_v0_27", False):
        # 0.27.0 (0.33.0: model.py:1579): the same limits as ValueErrors with new wording
        if tp <= kv:
            raise _pyd(owner, f"Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` "
                              f"({tp}) to be greater than the model's total number of KV heads ({kv}). "
                              f"Increase `--tensor-parallel-size` or set `--decode-context-parallel-size 1`.")
        if dcp > tp // kv:
            raise _pyd(owner, f"`--decode-context-parallel-size` ({dcp}) exceeds the maximum supported "
                              f"value ({tp // kv}) for `--tensor-parallel-size` ({tp}) and {kv} model KV heads.")
    elif dcp > 1 and not facts.is_mla and kv and state.release.key >= (0, 11, 1):  # 0.11.1 model.py (not 0.11.0)
        if not tp > kv:
            raise _pyd(owner, f"tensor parallel size {tp} must be greater than total num kv heads {kv} "
                              f"when enable decode context parallel for GQA/MQA", "Assertion failed")
        if dcp > tp // kv:
            raise _pyd(owner, f"decode context parallel size must less than or equal to (tensor parallel "
                              f"size {tp} // total num kv heads {kv}) = {tp // kv}, but got {dcp}",
                       "Assertion failed")


PP_UNSUPPORTED = ("Pipeline parallelism is not supported for this model. "
                  "Supported models implement the `SupportsPP` interface.")


def pp_supported_check(state: State, facts, values: dict) -> None:
    """`-pp N>1` needs the model class vLLM resolves to implement `SupportsPP`
    (registry.is_pp_supported_model), per release from releases/data/architectures.json.
    A registered architecture is its own class whatever --convert/--runner say (the pooling
    adapters keep the base's interfaces); `--model-impl transformers` resolves to the
    Transformers backend (SupportsPP in every release recorded) and `terratorch` to Terratorch.
    An unregistered architecture converted to a pooling model is its registered base's class
    (`registry_class`); otherwise vLLM's fallback depends on the installed Transformers
    library (its backend, or a refusal earlier in ModelConfig): not guessed."""
    from vllm_preflight.releases.architectures import arch_support, registry_class

    impl = values.get("model_impl") or "auto"
    arch = facts.architecture
    version = state.release.version
    overrides = values.get("model_class_overrides")
    if isinstance(overrides, dict) and arch in overrides:
        state.assumptions.append(Assumption("model.supports_pp", None, f"not checked: `{arch}` is overridden by "
                                                                       f"--model-class-overrides"))
        return
    if impl == "transformers":
        state.assumptions.append(Assumption("model.supports_pp", True, "--model-impl transformers: the "
                                                                       "Transformers backend class implements "
                                                                       "SupportsPP (taken as resolving)"))
        return
    if impl == "terratorch":
        arch = "Terratorch"
    if arch_support(version, "LlamaForCausalLM") is None:
        state.assumptions.append(Assumption("model.supports_pp", None, f"not checked: vLLM {version}'s model "
                                                                       f"registry is not recorded"))
        return
    cls = registry_class(version, arch, str(values.get("runner") or "auto"), str(values.get("convert") or "auto"),
                         impl)
    support = arch_support(version, cls) if cls else None
    if support is None:
        state.assumptions.append(Assumption("model.supports_pp", None,
                                            f"not checked: `{arch}` is not registered in vLLM {version}'s model "
                                            f"registry (vLLM tries the Transformers backend, which implements "
                                            f"SupportsPP, or refuses the model)"))
        return
    if not support.supports_pp:
        raise Refusal("NotImplementedError", PP_UNSUPPORTED)


def _async_spec_refused(state: State) -> str | None:
    """The speculative method async scheduling does not take in this release (rules
    `async_spec_ok`: EAGLE/EAGLE3/MTP aliases and what each release added), or None."""
    ok = state.release.rules.get("async_spec_ok")
    method = state.speculative_method_resolved or state.speculative_method
    if not ok or not method:
        return None
    if method.endswith("_mtp") or method in ok:
        return None
    return method


def async_scheduling_checks(state: State, values: dict) -> None:
    """Async scheduling asked for explicitly: hard failures in VllmConfig.__post_init__ (PP, then
    the speculative method; 0.33.0: only on the V1 runner, the method first)."""
    from vllm_preflight.resolve.runtime import note_v2_features

    note_v2_features(state, values)  # what the V2 runner lacks, for use_v2_model_runner/validate_v2_runner
    if not values.get("async_scheduling"):
        return
    rule = state.release.rules.get("async_pp")
    pp = state.parallel["pipeline_parallel_size"] > 1
    # a speculative config with disable_padded_drafter_batch (0.11.1+, after the method check)
    padded_off = bool(state.speculative_method) and "no_padded_drafter" in state.model_cfg["v2_features"]
    if rule == "v1_runner":
        from vllm_preflight.resolve.vllm_config.steps.cudagraph_mode import _uses_v2_runner

        if _uses_v2_runner(state):  # 0.33.0 config/vllm.py:1652-1680, ahead of the V1 runner's check
            return
        method = _async_spec_refused(state)
        if method:
            raise _pyd("VllmConfig", f"Async scheduling is not supported by the V1 model runner with "
                                     f"{method}-based speculative decoding.")
        if padded_off:  # 0.33.0 config/vllm.py:1663-1664
            raise _pyd("VllmConfig", "Async scheduling is not supported by the V1 model runner with "
                                     "disable_padded_drafter_batch=True.")
        if pp:
            raise _pyd("VllmConfig", "Async scheduling is not supported by the V1 model runner with "
                                     "pipeline parallelism.")
        return
    if pp and rule == "refuse":
        raise _pyd("VllmConfig", "Async scheduling is not yet compatible with pipeline_parallel_size > 1.")
    # (0.31.0-0.32.0 refuse PP later, by validate_v1_runner)
    if _async_spec_refused(state):
        raise _pyd("VllmConfig", state.release.rules["async_spec_message"])
    if padded_off and state.release.rules.get("async_spec_ok"):
        # 0.12.0 config/vllm.py:545-552 (sic: "Fasle"); 0.14.0-0.32.0 :577-581 (0.32.0 :1576-1580)
        raise _pyd("VllmConfig", "Async scheduling is not compatible with disable_padded_drafter_batch=True."
                   if state.release.key >= (0, 14, 0) else
                   "async scheduling for EAGLE/MTP kind of speculative decoding is enabled, but "
                   "disable_padded_drafter_batch=True disable_padded_drafter_batch=True is not supported for "
                   "this situation now. please set disable_padded_drafter_batch=Fasle")


def _kv_dict(values: dict):
    kv = option_json(values, "kv_transfer_config")
    return kv if isinstance(kv, dict) else None


def kv_connector_check(state: State, values: dict) -> None:
    """From 0.22.0 VllmConfig.__post_init__ looks the connector class up whenever a KV-transfer
    config is given and no hybrid-KV-cache-manager preference is (its HMA default: 0.22.0
    config/vllm.py:1440-1451, 0.33.0 :2257-2264; recorded on 0.24.0, 0.27.0 and 0.33.0);
    0.17.0-0.21.0 only with full CUDA graphs (`kv_connector_check_full_graphs`, after the mode
    is resolved), which stays for every later release too."""
    from vllm_preflight.resolve.vllm_config import post_init as vllm_config_checks

    vllm_config_checks.after_async(state, values)  # --per-request-spec-decode-metrics (0.29.0+)
    kv = _kv_dict(values)
    if kv is None or state.release.rules.get("kv_connector_checked_in_config") != "always":
        return
    if values.get("disable_hybrid_kv_cache_manager") is not None:
        return  # --[no-]disable-hybrid-kv-cache-manager: that block is skipped (0.33.0 oracle)
    name = kv.get("kv_connector")
    if name is None:
        raise _pyd("VllmConfig", "Connector name is not set in KVTransferConfig")
    _p2p_nccl_msgpack(state, kv, state.assumptions)
    _lookup_connector(state, kv)


def _p2p_nccl_msgpack(state: State, kv: dict, assumptions: list[Assumption]) -> None:
    """P2pNcclConnector's module imports msgpack, which vLLM installs only with ray: while a
    release still registers the connector (through 0.23.0) and no longer installs ray (0.18.0+),
    looking it up fails (recorded on 0.21.0)."""
    if kv["kv_connector"] != "P2pNcclConnector" or kv.get("kv_connector_module_path"):
        return
    if state.release.rules.get("ray_installed", True) or kv["kv_connector"] not in state.release.rules["kv_connectors"]:
        return
    assumptions.append(Assumption("node.msgpack", False, "P2pNcclConnector imports msgpack, not a vLLM "
                                                         "dependency without ray; taken as not installed"))
    raise Refusal("ModuleNotFoundError", "No module named 'msgpack'")


def kv_connector_check_full_graphs(state: State, values: dict, assumptions: list[Assumption]) -> None:
    """After the compilation steps: the connector lookup for full CUDA graphs (0.17.0+, recorded
    on 0.21.0: a KV-transfer instance, a connector and a valid role, when the resolved mode has
    full graphs; every later release keeps it), then the V1 runner's own check that closes
    `__post_init__` (0.31.0-0.32.0, `validate_v1_runner`)."""
    from vllm_preflight.resolve.vllm_config import post_init as vllm_config_checks

    _kv_connector_full_graphs(state, values, assumptions)
    vllm_config_checks.before_runner(state, values)  # KV-sharing fast prefill with EAGLE
    validate_v2_runner(state)
    validate_v1_runner(state, values)
    vllm_config_checks.after_runner(state, values)  # batch-sharded sampling, adaptive verification, AuxOutput


def validate_v2_runner(state: State) -> None:
    """0.20.0+ `_validate_v2_model_runner` (0.20.0 config/vllm.py:1153-1154 and :1787-1828, 0.22.0
    :1298-1299 and :2057-2067, 0.30.0 :1853-1854 and :3079-3088): a config that takes the V2 runner
    (VLLM_USE_V2_MODEL_RUNNER=1, or a case V2 is forced for) with a feature V2 lacks
    (runtime._v2_unsupported, per release; the engine arguments behind them noted by
    runtime.note_v2_features) is refused. Not checked: logits-processor entry-point plugins, reasoning
    budget (0.22.x), the 0.28.0 adaptive-verification entries, mamba cache mode 'all', heterogeneous
    vocabularies, and DBO with multimodal/hybrid/PIECEWISE/encoder-only models."""
    prefix = state.release.rules.get("v2_validate_message")
    if not prefix:
        return
    from vllm_preflight.resolve.runtime import _v2_unsupported, runtime_rules
    from vllm_preflight.resolve.vllm_config.steps.cudagraph_mode import _uses_v2_runner

    if not _uses_v2_runner(state):
        return
    found = _v2_unsupported(state, runtime_rules(state.release.version))
    if found:
        raise _pyd("VllmConfig", prefix + ", ".join(found))


def _kv_connector_full_graphs(state: State, values: dict, assumptions: list[Assumption]) -> None:
    kv = _kv_dict(values)
    if kv is None or state.release.rules.get("kv_connector_checked_in_config") not in ("full_graphs", "always"):
        return
    if kv.get("kv_connector") is None or kv.get("kv_role") is None:
        return
    from vllm_preflight.resolve.base import modes

    if not modes.has_full_cudagraphs(state.cc.get("cudagraph_mode") or "NONE"):
        return
    _p2p_nccl_msgpack(state, kv, assumptions)
    _lookup_connector(state, kv)


def validate_v1_runner(state: State, values: dict) -> None:
    """0.29.0+ `_validate_v1_model_runner` (0.31.0 config/vllm.py:2051-2054, features :3105-3124),
    late in `__post_init__`: after the compilation rules, so the runner is decided on the final
    settings (sequence parallelism switched off for a small model no longer takes V1). The features
    this port sees, in vLLM's order: prefill context parallel, async scheduling with PP (0.31.0+;
    0.33.0 refuses that one up front), DSpark. (Its V2 twin: `validate_v2_runner`.)"""
    features = state.release.rules.get("v1_unsupported") or ()
    if not features:
        return
    par = state.parallel
    from vllm_preflight.resolve.speculative.draft_features import v1_flags
    from vllm_preflight.resolve.vllm_config.post_init import v1_features

    # adaptive draft verification, batch-sharded sampling (0.29.0+); the draft's architecture and
    # a diffusion target (resolve/draft_features.py)
    more = {**v1_features(state, values), **v1_flags(state)}
    found = [text for feature, text in (
        ("pcp", "prefill context parallel"), ("async_pp", "pipeline parallelism with async scheduling"),
        ("dspark", "dspark speculative decoding"), ("xpress", "xpress speculative decoding"),
        ("adaptive", "adaptive draft verification"), ("draft_lm_head_quant", "draft lm_head quantization"),
        ("parse_mtp", "Parse 3.5 MTP"), ("dflash_multi_kv", "mixed sliding/full dflash drafts"),
        ("dflash2", "dflash2 drafts"), ("dflash_candidate", "DFlash candidate-head drafts"),
        ("diffusion", "diffusion models"),
        ("batch_sharded", "batch-sharded sampling"), ("step5", "Step5")) if feature in features and (
        (feature == "pcp" and (par.get("prefill_context_parallel_size") or 1) > 1)
        or (feature == "async_pp" and values.get("async_scheduling") and par["pipeline_parallel_size"] > 1)
        or (feature == "dspark" and (state.speculative_method_resolved or state.speculative_method) == "dspark")
        or more.get(feature, False))]
    if not found:
        return
    from vllm_preflight.resolve.vllm_config.steps.cudagraph_mode import _uses_v2_runner

    if not _uses_v2_runner(state):
        raise _pyd("VllmConfig", "Model Runner V1 does not support: " + ", ".join(found))


def _lookup_connector(state: State, kv: dict) -> None:
    if kv.get("kv_connector_module_path"):
        return  # an external module: not importable here
    rec = value_facts(state)
    name = kv["kv_connector"]
    # the recorded value set, else the registry read in the release's kv_connector/factory.py
    known = rec["kv_connectors"] if rec and rec.get("kv_connectors") else state.release.rules["kv_connectors"]
    if name not in known:
        raise _pyd("VllmConfig", f"Unsupported connector type: {name}")


def cache_dtype_check(state: State, values: dict) -> None:
    """From 0.33.0 --kv-cache-dtype has no argparse choices; CacheConfig validates it."""
    rec = value_facts(state)
    dtype = values.get("kv_cache_dtype")
    if dtype is None or not rec or not rec.get("kv_cache_dtypes"):
        return
    if dtype not in rec["kv_cache_dtypes"]:
        raise _field("CacheConfig", "cache_dtype", f"Value error, Invalid kv_cache_dtype: {dtype!r}. "
                                                   f"Valid values are: {rec['kv_cache_dtypes']}")


def structured_outputs_problem(so: dict, state: State) -> str | None:
    rec = value_facts(state)
    backend = so.get("backend")
    if backend is None or not rec or backend in rec["structured_outputs_backends"]:
        return None
    b = rec["structured_outputs_backends"]
    shown = ", ".join(f"'{x}'" for x in b[:-1]) + f" or '{b[-1]}'"
    return (f"1 validation error for StructuredOutputsConfig\nbackend\n  Input should be {shown} "
            f"[type=literal_error, input_value={backend!r}, input_type=str]")


def executor_backend_check(state: State, values: dict, assumptions: list[Assumption]) -> None:
    """--distributed-executor-backend: `ray` needs the ray package, which vLLM no longer installs
    by 0.27.0; from 0.19.0 VllmConfig takes any other unknown name as a `module.Class` path."""
    backend = values.get("distributed_executor_backend")
    par = state.parallel
    if backend is None and values.get("data_parallel_backend") == "ray" \
            and par["tensor_parallel_size"] * par["pipeline_parallel_size"] > 1:
        backend = "ray"  # ParallelConfig picks ray for a multi-GPU engine when DP runs on ray
    if backend is None:
        return
    rules = state.release.rules
    if backend == "ray" and not rules.get("ray_installed", True):
        assumptions.append(Assumption("node.ray", False, "ray is not a dependency of this vLLM release; taken as "
                                                         "not installed (vLLM then refuses the ray backend)"))
        raise _pyd("ParallelConfig", "Failed to import Ray: No module named 'ray'.Please install Ray with "
                                     "`pip install ray`.")
    if rules.get("executor_class_lookup", False) and backend not in ("ray", "mp", "uni", "external_launcher") \
            and "." not in backend:
        raise _pyd("VllmConfig", "not enough values to unpack (expected 2, got 1)")


# What vLLM checks while building its config that this port does not (docs/config-path-map.md):
# one line per family, stated on every resolution so a clean result is read for what it is.
NOT_CHECKED = (
    ("memory", ("whether weights, KV cache and CUDA graphs fit the GPUs (vLLM measures it when the engine starts), "
                "and swap space against the host's memory")),
    ("model files beyond config.json", ("the tokenizer (its own length limit; the tokens a registered reasoning "
                                        "parser looks for, 0.20.0+), the weights, quantization files next to "
                                        "config.json (hf_quant_config.json, GGUF), a speculative draft that is "
                                        "neither a local folder nor a built-in hub id, and the files a "
                                        "--chat-template or a parser plugin names")),
    ("node software", ("packages vLLM imports only for some options (ray, arctic-inference, torchao, lmcache, "
                       "OpenTelemetry, the vllm-rs binary) and the node's transformers (a model type it does not "
                       "know)")),
    ("remaining validators", ("MTP through the Transformers modeling backend (its TransformersForMTP draft; "
                              "multimodal targets refused, 0.33.0), a `medusa` speculators checkpoint "
                              "(0.25.0-0.32.x), INC messages that print a set")),
)


def not_checked() -> list[Assumption]:
    """One assumption naming every family (a report line, not five)."""
    names = ", ".join(name for name, _ in NOT_CHECKED)
    return [Assumption("not checked", names, "vLLM's checks of these are not modelled; "
                                             "docs/config-path-map.md lists each")]
