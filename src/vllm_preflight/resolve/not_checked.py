"""What vLLM checks while building its config that this port does not: stated on every report."""
from __future__ import annotations

from vllm_preflight.model import Assumption

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


# One assumption naming every family (a report line, not five); an immutable value, shared
NOT_CHECKED_ASSUMPTION = Assumption("not checked", ", ".join(name for name, _ in NOT_CHECKED),
                                    "vLLM's checks of these are not modelled; docs/config-path-map.md lists each")


def not_checked() -> list[Assumption]:
    return [NOT_CHECKED_ASSUMPTION]
