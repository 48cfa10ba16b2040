"""LoadConfig and ObservabilityConfig (vllm/config/load.py, observability.py): field bounds, the
hidden-metrics version, detailed traces without an endpoint, custom histogram buckets."""
from __future__ import annotations

import json
import math
import re
from itertools import pairwise
from typing import Any

from vllm_preflight.resolve.base.field_bounds import bounded_dests, field_errors, raise_field_errors
from vllm_preflight.resolve.base.pydantic import value_error as _pyd
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import State

# ------------------------------------------------------------------ LoadConfig .. OffloadConfig
_VERSION = re.compile(r"""^\s*v?(?:(?:[0-9]+)!)?[0-9]+(?:\.[0-9]+)*
    (?:[-_\.]?(?:alpha|a|beta|b|preview|pre|c|rc)[-_\.]?[0-9]*)?
    (?:(?:-[0-9]+)|(?:[-_\.]?(?:post|rev|r)[-_\.]?[0-9]*))?
    (?:[-_\.]?dev[-_\.]?[0-9]*)?(?:\+[a-z0-9]+(?:[-_\.][a-z0-9]+)*)?\s*$""", re.VERBOSE | re.IGNORECASE)


# ObservabilityConfig's show_hidden_metrics_for_version validator (packaging's parse), first release
_HIDDEN_METRICS = (0, 11, 1)


_TRACES_NEED_ENDPOINT = (0, 11, 1)  # the model validator (0.11.0 has none)


@reads(*bounded_dests("LoadConfig"))
def load_config(state: State, values: dict) -> None:
    """LoadConfig's field bounds, after the attention and Mamba flags (0.12.0 arg_utils.py:1683-1700,
    0.33.0 :2727-2830); ObservabilityConfig follows."""
    raise_field_errors("LoadConfig", field_errors(state, "LoadConfig", values))


@reads("collect_detailed_traces", "custom_histogram_buckets", "otlp_traces_endpoint", "show_hidden_metrics_for_version", *bounded_dests("ObservabilityConfig"))
def observability(state: State, values: dict) -> None:
    """ObservabilityConfig (0.12.0 config/observability.py:92-130, 0.33.0 :145-222): its bounded
    field and a version that packaging cannot parse are field errors; the model validator then
    wants an OTLP endpoint for detailed traces. Whether OpenTelemetry is installed (the
    endpoint's own validator) is the host's, not the deployment's: not checked."""
    key = state.release.key
    errors = []
    version = values.get("show_hidden_metrics_for_version")
    if key >= _HIDDEN_METRICS and isinstance(version, str) and version and not _VERSION.match(version):
        message = f"Value error, Invalid version: {version!r} [type=value_error, input_value={version!r}, input_type=str]"
        errors.append(("show_hidden_metrics_for_version", message))
    traces = values.get("collect_detailed_traces")
    if key >= _TRACES_NEED_ENDPOINT and isinstance(traces, list):
        # list[Literal["model", "worker", "all"]] checked before the validator that splits "a,b"
        errors += [(f"collect_detailed_traces.{i}", "Input should be 'model', 'worker' or 'all' [type=literal_error]")
                   for i, t in enumerate(traces) if t not in ("model", "worker", "all")]
    errors += field_errors(state, "ObservabilityConfig", values)
    buckets = values.get("custom_histogram_buckets")
    if isinstance(buckets, str):
        try:
            buckets = json.loads(buckets)
        except ValueError:
            buckets = None
    shape = _histogram_shape(state, buckets)
    problem = None if shape else _histogram_problem(state, buckets)
    errors += shape
    if problem:
        errors.append(("custom_histogram_buckets", f"Value error, {problem} [type=value_error]"))
    raise_field_errors("ObservabilityConfig", errors)
    if key >= _TRACES_NEED_ENDPOINT and traces and not values.get("otlp_traces_endpoint"):
        raise _pyd("ObservabilityConfig", "collect_detailed_traces requires `--otlp-traces-endpoint` to be set.")


# ------------------------------------------------------------------ custom histogram buckets
# vllm/v1/metrics/buckets.py BucketFamilyKey by first release (read by ObservabilityConfig, 0.32.0+)
_BUCKET_FAMILIES = (((0, 32, 0), ("request_latency", "time_to_first_token", "inter_token_latency",
                                  "iteration_tokens", "request_params_n", "request_num_preemptions",
                                  "request_tokens", "kv_cache_residency")),)


_UNPARSABLE = "Input should be a valid number, unable to parse string as a number [type=float_parsing]"


def _histogram_shape(state: State, value: Any) -> list[tuple[str, str]]:
    """pydantic's type errors for dict[str, list[float]] (after the boolean check passed)."""
    if not any(state.release.key >= first for first, _ in _BUCKET_FAMILIES) or value is None:
        return []
    loc = "custom_histogram_buckets"
    if not isinstance(value, dict):
        return [(loc, "Input should be a valid dictionary [type=dict_type]")]
    if any(isinstance(x, bool) for b in value.values() if isinstance(b, list) for x in b):
        return []
    out = []
    for family, buckets in value.items():
        if not isinstance(buckets, list):
            out.append((f"{loc}.{family}", "Input should be a valid list [type=list_type]"))
            continue
        for i, x in enumerate(buckets):
            if isinstance(x, str):
                try:
                    float(x.strip())
                except ValueError:
                    out.append((f"{loc}.{family}.{i}", _UNPARSABLE))
            elif not isinstance(x, (int, float)):
                out.append((f"{loc}.{family}.{i}", "Input should be a valid number [type=float_type]"))
    return out


def _histogram_problem(state: State, value: Any) -> str | None:
    """ObservabilityConfig's two custom_histogram_buckets validators (0.33.0 config/observability.py:
    167-214): booleans refused before pydantic coerces them, then known families, non-empty lists,
    finite positive bounds, strictly increasing. Values of another shape: not modelled."""
    families = [f for first, f in _BUCKET_FAMILIES if state.release.key >= first]
    if not families or not isinstance(value, dict):
        return None
    for family, buckets in value.items():
        if isinstance(buckets, list):
            for bound in buckets:
                if isinstance(bound, bool):
                    return f"custom_histogram_buckets[{family!r}]: bound {bound!r} must be a number, not a boolean"
    if not all(isinstance(b, list) and all(isinstance(x, (int, float)) for x in b) for b in value.values()):
        return None
    for family, buckets in value.items():
        floats = [float(b) for b in buckets]
        if family not in families[-1]:
            return (f"custom_histogram_buckets: unknown bucket family {family!r}; known families: "
                    f"{sorted(families[-1])}")
        if not floats:
            return f"custom_histogram_buckets[{family!r}]: bucket list must not be empty"
        for bound in floats:
            if not math.isfinite(bound) or bound <= 0:
                return f"custom_histogram_buckets[{family!r}]: bound {bound!r} must be finite and greater than 0"
        if any(a >= b for a, b in pairwise(floats)):
            return f"custom_histogram_buckets[{family!r}]: bounds {floats} must be strictly increasing"
    return None
