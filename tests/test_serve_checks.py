"""`vllm serve`'s front door (resolve/serve/serve.py): the extracted parser registries and the
order in which vLLM's serve entry runs its refusals. Expected values come from the sources of the
releases named in each test (entrypoints/cli/serve.py, entrypoints/*/cli_args.py,
openai/api_server.py validate_api_server_args) and from real 0.33.0's list_registered()."""
from __future__ import annotations

import json
from pathlib import Path

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.serve.serve import registered

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "vllm_preflight" / "releases" / "data"
MODEL = str(ROOT / "tests" / "fixtures" / "models" / "llama-dense")
MOE = str(ROOT / "tests" / "fixtures" / "models" / "mixtral-moe")


def _err(version: str, *words: str, env: dict | None = None, model: str = MODEL, head=("vllm", "serve")):
    res = resolve(Deployment(argv=(*head, model, *words), env=tuple((env or {}).items()), source="t"), version)
    return None if res.vllm_error is None else (res.vllm_error.type, res.vllm_error.message)


def test_extracted_registries_cover_every_release_with_both_kinds():
    data = json.loads((DATA / "serve_parsers.json").read_text())["releases"]
    assert {"0.11.0", "0.12.0", "0.13.0", "0.33.0"} <= set(data)
    for v, kinds in data.items():
        assert set(kinds) == {"tool", "reasoning"}, v
        assert all(isinstance(n, str) and n for n in kinds["tool"] + kinds["reasoning"]), v
        assert len(set(kinds["tool"])) == len(kinds["tool"]), v
        if v != "0.11.0":  # list_registered() sorts; 0.11.0 lists registration order
            assert kinds["tool"] == sorted(kinds["tool"]) and kinds["reasoning"] == sorted(kinds["reasoning"]), v


def test_registry_order_and_names():
    # 0.11.0: tool_parsers/__init__.py imports deepseekv3 first; llama_tool_parser.py stacks
    # @register_module("llama3_json") over @register_module("llama4_json"): llama4_json registers first
    t = registered("0.11.0", "tool")
    assert t[0] == "deepseek_v3" and t.index("llama4_json") == t.index("llama3_json") - 1
    assert "hermes" in registered("0.12.0", "tool") and "granite-20b-fc" in registered("0.12.0", "tool")
    assert registered("0.33.0", "tool")[:3] == ["apertus", "beam", "cohere_command3"]  # real 0.33.0


def test_reasoning_registry_agrees_with_the_structured_outputs_data():
    """releases/data/reasoning_parsers.json (StructuredOutputsConfig's validator, 0.11.1-0.12.0)
    holds the same names as the extracted registry."""
    old = json.loads((DATA / "reasoning_parsers.json").read_text())["releases"]
    for v, names in old.items():
        assert names == registered(v, "reasoning"), v


def test_tool_parser_message_is_the_keyerror_repr():
    typ, msg = _err("0.12.0", "--enable-auto-tool-choice", "--tool-call-parser", "bogus")
    assert typ == "KeyError"
    names = ",".join(registered("0.12.0", "tool"))
    assert msg == repr(f"invalid tool call parser: bogus (chose from {{ {names} }})")
    assert _err("0.12.0", "--enable-auto-tool-choice", "--tool-call-parser", "hermes") is None
    assert _err("0.12.0", "--tool-call-parser", "bogus") is None  # checked only with auto tool choice


def test_plugin_turns_an_unknown_parser_into_an_assumption():
    res = resolve(Deployment(argv=("vllm", "serve", MODEL, "--enable-auto-tool-choice", "--tool-call-parser", "mine",
                                   "--tool-parser-plugin", "my_parser.py"), env=(), source="t"), "0.33.0")
    assert res.vllm_error is None
    assert any(a.fact == "tool_parser.registered" and a.value == "mine" for a in res.assumptions)


def test_validate_runs_before_dispatch_and_setup_server():
    # validate_parsed_serve_args (the missing parser) before cmd's --headless check
    assert _err("0.33.0", "--enable-auto-tool-choice", "--headless", "--api-server-count", "2")[0] == "TypeError"
    # cmd's --headless/--api-server-count before setup_server's parser registry
    assert _err("0.33.0", "--enable-auto-tool-choice", "--tool-call-parser", "bogus", "--headless",
                "--api-server-count", "2")[0] == "ValueError"
    # headless mode never reaches setup_server: an unknown parser passes
    assert _err("0.33.0", "--enable-auto-tool-choice", "--tool-call-parser", "bogus", "--headless") is None
    # the log-outputs pair comes after the tool pair
    assert _err("0.12.0", "--enable-auto-tool-choice", "--enable-log-outputs")[1].endswith("--tool-call-parser")


def test_headless_and_api_server_count_by_release():
    # 0.11.0-0.14.1: run_headless refuses a count > 1; 0.15.0+: cmd refuses any count > 0 with --headless
    assert _err("0.14.0", "--headless", "--api-server-count", "2") == (
        "ValueError", "api_server_count can't be set in headless mode")
    assert _err("0.14.0", "--headless", "--api-server-count", "1") is None
    assert _err("0.15.0", "--headless", "--api-server-count", "1")[1].startswith("--api-server-count=1 cannot")


def test_runtime_lora_updating_after_the_engine_config():
    lora = {"VLLM_ALLOW_RUNTIME_LORA_UPDATING": "true"}
    assert _err("0.12.0", "--api-server-count", "2", env=lora)[0] == "ValueError"
    assert _err("0.12.0", "-dp", "2", env=lora, model=MOE) is None  # 0.12.0: one API server by default
    assert _err("0.15.0", "-dp", "2", env=lora, model=MOE)[0] == "ValueError"  # 0.15.0+: count defaults to -dp
    # an engine-config refusal comes first (the check runs after create_engine_config)
    assert _err("0.12.0", "--api-server-count", "2", "-tp", "3", env=lora)[1] != (
        "VLLM_ALLOW_RUNTIME_LORA_UPDATING cannot be used with api_server_count > 1")


def test_load_balancing_modes_message_changes_in_0_22():
    words = ("-dp", "2", "--data-parallel-rank", "0", "--data-parallel-hybrid-lb")
    assert _err("0.21.0", *words, model=MOE)[1].startswith("Cannot use both external and hybrid")
    assert _err("0.22.0", *words, model=MOE)[1].startswith("Cannot use more than one data parallel")


def test_api_server_module_validates_but_has_no_headless_dispatch():
    head = ("python", "-m", "vllm.entrypoints.openai.api_server", "--model")
    assert _err("0.12.0", "--enable-auto-tool-choice", head=head)[0] == "TypeError"
    assert _err("0.12.0", "--enable-auto-tool-choice", "--tool-call-parser", "nope", head=head)[0] == "KeyError"


def test_sse_keep_alive_and_per_request_metrics_by_release():
    assert _err("0.29.0", "--sse-keep-alive-interval", "-1")[1].startswith("Error: --sse-keep-alive-interval")
    assert _err("0.29.0", "--sse-keep-alive-interval", "0") is None
    assert _err("0.25.0", "--enable-per-request-metrics", "--disable-log-stats")[0] == "ValueError"
    assert _err("0.25.0", "--enable-per-request-metrics") is None
