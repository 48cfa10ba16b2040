"""EngineArgs._check_feature_supported (vllm/engine/arg_utils.py), right after the model config."""
from __future__ import annotations

from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State, option_json


@reads("speculative_config", "logits_processor_pattern", "max_num_partial_prefills", "max_long_partial_prefills", "pipeline_parallel_size", "distributed_executor_backend")
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
