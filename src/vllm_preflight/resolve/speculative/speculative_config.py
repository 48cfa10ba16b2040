"""SpeculativeConfig (vllm/config/speculative.py), as create_engine_config builds it: the
--spec-* flags folded in, field constraints first (pydantic), then __post_init__ and _verify_args.
Draft-model methods read the draft's own config.json (speculative/draft_model.py)."""
from __future__ import annotations

import json

from vllm_preflight.model import Assumption
from vllm_preflight.resolve.base.pydantic import field_error as _field
from vllm_preflight.resolve.base.pydantic import validator_error as _pyd
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.base.value_facts import value_facts
from vllm_preflight.resolve.model.verify_with_parallel_config import verify_with_parallel_config
from vllm_preflight.resolve.speculative import draft_model as draft_checks
from vllm_preflight.resolve.speculative import dynamic_sd
from vllm_preflight.resolve.speculative import field_errors as spec_field_errors


# ------------------------------------------------------------------ speculative
def speculative_checks(state: State, spec: dict, facts, assumptions: list[Assumption],
                       values: dict | None = None) -> None:
    """SpeculativeConfig: field constraints first (pydantic), then __post_init__, then
    `_verify_args`. Draft-model methods read the draft model's own config
    (resolve/speculative/draft_model.py)."""
    rec = value_facts(state)
    cls = "SpeculativeConfig"
    method = spec.get("method")
    if rec is not None:
        # the method literal, the field bounds, the sampling literals and unknown keys: pydantic
        # counts every failing field and shows the first (resolve/speculative/field_errors.py)
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
        # a field from 0.24.0: its type is checked with the other fields; resolve/speculative/dynamic_sd.py
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
        # the draft model's own config.json: resolve/speculative/draft_model.py
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


_SPEC_FLAGS = (("--spec-method", "spec_method", "method"), ("--spec-model", "spec_model", "model"),
               ("--spec-tokens", "spec_tokens", "num_speculative_tokens"))


def _spec_flags(v: dict) -> None:
    """--spec-method/--spec-model/--spec-tokens (0.22.0+) go into the speculative config, each
    refused next to the same key of --speculative-config (EngineArgs.create_speculative_config,
    0.22.0 arg_utils.py, 0.33.0 :2108-2120)."""
    for flag, dest, key in _SPEC_FLAGS:
        value = v.get(dest)
        if value is None:
            continue
        spec = v.get("speculative_config")
        if not isinstance(spec, dict):
            spec = {}
        if key in spec:
            raise Refusal("ValueError", f"{flag} and --speculative-config['{key}'] are mutually exclusive")
        v["speculative_config"] = {**spec, key: value}


@reads("speculative_config", "convert", "dtype", "model_class_overrides", "model_impl", "runner", "tensor_parallel_size")
def speculative_config(state: State, values: dict) -> None:
    """create_speculative_config: the --spec-* flags folded in, the JSON (an object), then
    SpeculativeConfig's checks; the token count and method the later configs read."""
    _spec_flags(values)
    spec = values.get("speculative_config")
    if isinstance(spec, str):
        spec = json.loads(spec)
    if spec is not None and not isinstance(spec, dict) and state.release.key >= (0, 15, 0):
        # JSON that is not an object: create_speculative_config treats it as a dict
        # (0.15.0 arg_utils.py:1336 `.update`; 0.26.0+ `.items()` first)
        attr = "items" if state.release.key >= (0, 26, 0) else "update"
        raise Refusal("AttributeError", f"'{type(spec).__name__}' object has no attribute '{attr}'")
    if isinstance(spec, dict):
        speculative_checks(state, spec, state.model, state.assumptions, values)
        state.num_speculative_tokens = int(spec.get("num_speculative_tokens") or 0)
        state.speculative_method = spec.get("method")
