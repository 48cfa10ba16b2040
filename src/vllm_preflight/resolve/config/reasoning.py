"""`--reasoning-parser` looked up when the engine config is built (0.20.0+).

From 0.20.0 `create_engine_config` turns `--reasoning-parser NAME` into a ReasoningConfig
(`_set_default_reasoning_config_args`, 0.20.0 engine/arg_utils.py:1634), and near the end of
`VllmConfig.__post_init__` `ReasoningConfig.initialize_token_ids` loads the tokenizer and looks the
name up in the release's reasoning-parser registry (0.20.0 config/vllm.py:1246, 0.33.0 :2209-2210;
the KeyError is vllm/reasoning/abs_reasoning_parsers.py's). A registered parser is then built on the
tokenizer, which may refuse a tokenizer without its tokens: model files, stated, not checked.

Before 0.20.0 no engine config looks the name up (0.11.1-0.12.0's StructuredOutputsConfig validator
aside, ported in json_options); the API server only does when it builds its chat handler, after the
engine has started. 0.33.0's argparse type maps `none` in any case to no parser.
"""
from __future__ import annotations

from vllm_preflight.model import Assumption
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.serve.serve import registered

LOOKED_UP_FROM = (0, 20, 0)
NONE_MEANS_UNSET_FROM = (0, 33, 0)  # engine/arg_utils.py parse_reasoning_parser


def _name(state: State, value) -> str:
    name = "" if value is None else str(value)
    if state.release.key >= NONE_MEANS_UNSET_FROM and name.lower() == "none":
        return ""
    return name


@reads("reasoning_parser", "reasoning_parser_plugin")
def initialize_token_ids(state: State, v: dict) -> None:
    """The lookup of `initialize_token_ids`. `plugin_imported`: `vllm serve` imported a
    --reasoning-parser-plugin file before building the engine (the engine alone does not)."""
    plugin_imported = state.serve_mode is not None  # `vllm serve` imported the parser plugins
    name = _name(state, v.get("reasoning_parser"))
    names = registered(state.release.version, "reasoning")
    if not name or names is None:
        return
    version = state.release.version
    if name in names:
        if state.release.key >= LOOKED_UP_FROM:
            state.assumptions.append(Assumption(
                "reasoning_parser.tokenizer", name,
                f"not checked: vLLM {version} builds the `{name}` parser on the model's tokenizer when the engine "
                f"config is built; the tokenizer is assumed to hold the tokens the parser looks for"))
        return
    plugin = v.get("reasoning_parser_plugin")
    if plugin and len(str(plugin)) > 3 and plugin_imported:
        state.assumptions.append(Assumption(
            "reasoning_parser.registered", name,
            f"not checked: `{name}` is not one of vLLM {version}'s own reasoning parsers; the "
            f"--reasoning-parser-plugin file {plugin} is assumed to register it"))
        return
    if state.release.key < LOOKED_UP_FROM:
        if state.release.key >= (0, 13, 0):
            state.assumptions.append(Assumption(
                "reasoning_parser.registered", name,
                f"`{name}` is not one of vLLM {version}'s reasoning parsers: this release does not look it up "
                f"when the engine config is built, but its API server does when it builds the chat handler, "
                f"after the engine has started (a KeyError then)"))
        return
    raise Refusal("KeyError", repr(f"Reasoning parser '{name}' not found. Available parsers: {', '.join(names)}"))
