"""`--reasoning-parser` at engine-config time (resolve/config/reasoning.py), on the parts the
goldens (tests/golden/data/model_families/reasoning_parser/) cannot hold: a plugin file, and the
releases between 0.13.0 and 0.19.x that look the name up only in the API server.
From the sources: 0.20.0 engine/arg_utils.py:1634 turns the flag into a ReasoningConfig and
config/vllm.py:1246 looks it up (0.19.x has neither); `vllm serve` imports a
--reasoning-parser-plugin before it builds the engine (entrypoints/cli/serve.py), the engine
alone does not; 0.33.0's parse_reasoning_parser maps `none` to no parser."""
from __future__ import annotations

from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

MODEL = str(Path(__file__).resolve().parents[1] / "fixtures" / "models" / "reasoning-llama-think")


def _res(version: str, *words: str, serve_stage: bool = True):
    return resolve(Deployment(argv=("vllm", "serve", MODEL) + words, env=(), source="t"), version,
                   serve_stage=serve_stage)


def _facts(res) -> dict:
    return {a.fact: a.source for a in res.assumptions}


@pytest.mark.parametrize("version", ["0.20.0", "0.25.0", "0.33.0"])
def test_unknown_name_is_a_key_error_from_0_20(version):
    err = _res(version, "--reasoning-parser", "deepseek-r1").vllm_error
    assert err is not None and err.type == "KeyError"
    assert err.message.startswith("\"Reasoning parser 'deepseek-r1' not found. Available parsers: ")
    assert "deepseek_r1, " in err.message


@pytest.mark.parametrize("version", ["0.13.0", "0.16.0", "0.19.1"])
def test_before_0_20_the_engine_accepts_and_the_report_says_why(version):
    res = _res(version, "--reasoning-parser", "deepseek-r1")
    assert res.vllm_error is None
    assert "API server" in _facts(res)["reasoning_parser.registered"]


def test_a_plugin_file_may_register_the_name_under_vllm_serve_only():
    served = _res("0.33.0", "--reasoning-parser", "mine", "--reasoning-parser-plugin", "my_parser.py")
    assert served.vllm_error is None
    assert "my_parser.py" in _facts(served)["reasoning_parser.registered"]
    engine_only = _res("0.33.0", "--reasoning-parser", "mine", "--reasoning-parser-plugin", "my_parser.py",
                       serve_stage=False)
    assert engine_only.vllm_error is not None and engine_only.vllm_error.type == "KeyError"


def test_none_means_no_parser_from_0_33_only():
    assert _res("0.33.0", "--reasoning-parser", "NONE").vllm_error is None
    assert _res("0.32.0", "--reasoning-parser", "none").vllm_error.type == "KeyError"


def test_a_registered_parser_states_the_tokenizer_assumption():
    res = _res("0.33.0", "--reasoning-parser", "qwen3")
    assert res.vllm_error is None
    assert "tokenizer" in _facts(res)["reasoning_parser.tokenizer"]
