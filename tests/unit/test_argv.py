"""`vllm serve` parsing per release, from the parse cases of vLLM's own tests
(tests/engine/test_arg_utils.py, tests/utils_/test_argparse_utils.py; see
shared docs vllm-test-cases.json) plus argparse behaviours the parser must keep."""
import json

import pytest

from vllm_preflight.gpus import GPUS
from vllm_preflight.releases import get_release
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.parser.argument_parser import parse


def _parse(version, words):
    release = get_release(version)
    state = State(release=release, gpu=GPUS["H200"], env={}, model=None)
    return parse(list(words), release, state), state


@pytest.mark.parametrize("words,level", [(["-O0"], 0), (["-O", "1"], 1), (["-O=2"], 2), (["-O.level", "3"], 3)])
def test_0_11_0_dash_o_is_the_compilation_level(words, level):
    args, _ = _parse("0.11.0", words)
    assert args.values["compilation_config"] == {"level": level}


@pytest.mark.parametrize("words,raw", [  # 0.11.1's parser rewrites -O<n> to -O.mode=<n>
    (["-O0"], {"mode": 0}), (["-O", "1"], {"mode": 1}), (["-O.mode", "3"], {"mode": 3}),
    (["-O.mode=NONE"], {"mode": "NONE"}), (["-O.mode=VLLM_COMPILE"], {"mode": "VLLM_COMPILE"}),
])
def test_0_11_1_dash_o_is_the_compilation_config(words, raw):
    args, state = _parse("0.11.1", words)
    assert args.values["compilation_config"] == raw
    # the deprecated `level` maps onto `mode`
    assert state.cc["mode"] in ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")


@pytest.mark.parametrize("version", ["0.12.0", "0.13.0"])
@pytest.mark.parametrize("words,level", [(["-O", "1"], "1"), (["-O3"], "3"), (["-O0"], "0"), (["-O=2"], "2")])
def test_0_12_plus_dash_o_is_the_optimization_level(version, words, level):
    args, _ = _parse(version, words)
    assert args.values["optimization_level"] == level
    assert "compilation_config" not in args.values


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_dotted_compilation_config(n):
    args, state = _parse("0.12.0", [f"-cc.mode={n}"])
    assert args.values["compilation_config"] == {"mode": n}
    assert state.cc["mode"] == ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")[n]


@pytest.mark.parametrize("flag", ["-cc", "--compilation-config"])
def test_json_compilation_config(flag):
    cfg = {"mode": 3, "cudagraph_capture_sizes": [1, 2, 4, 8], "backend": "eager"}
    args, state = _parse("0.12.0", [flag, json.dumps(cfg)])
    assert args.values["compilation_config"] == cfg
    assert state.cc["cudagraph_capture_sizes"] == [1, 2, 4, 8] and state.cc["backend"] == "eager"


def test_0_12_dotted_dash_o_is_deprecated_but_works():
    args, _ = _parse("0.12.0", ["-O.backend=eager"])
    assert args.values["compilation_config"] == {"backend": "eager"}
    assert any("The -O.* dotted syntax for --compilation-config is deprecated" in w for w in args.warnings)


def test_0_13_dotted_dash_o_is_read_as_an_optimization_level():
    # `-O.x=v` becomes `--optimization-level .x=v`: argparse takes the text, and VllmConfig's
    # pydantic validation rejects it later (a ValidationError, as recorded from 0.13.0)
    args, _ = _parse("0.13.0", ["-O.backend=eager"])
    assert args.values["optimization_level"] == ".backend=eager"
    from vllm_preflight.model import Deployment
    from vllm_preflight.resolve import resolve
    res = resolve(Deployment(argv=("vllm", "serve", "m", "-O.backend=eager")), "0.13.0")
    assert res.vllm_error.type == "ValidationError" and "optimization_level" in res.vllm_error.message


def test_dotted_list_append_and_nested_keys():
    args, _ = _parse("0.13.0", ["-cc.custom_ops+=+rms_norm,-quant_fp8", "-cc.pass_config.fuse_attn_quant=true"])
    assert args.values["compilation_config"] == {
        "custom_ops": ["+rms_norm", "-quant_fp8"], "pass_config": {"fuse_attn_quant": True}}


def test_underscores_become_dashes_and_abbreviations_resolve():
    args, _ = _parse("0.13.0", ["--data_parallel_size", "4", "--tensor-parallel-si=2"])
    assert args.values["data_parallel_size"] == 4 and args.values["tensor_parallel_size"] == 2


@pytest.mark.parametrize("words,needle", [
    (["--enable-cuda-graphs"], "unrecognized arguments"),
    (["--data-parallel-size", "eight"], "invalid int value"),
    (["--all2all-backend", "deepep_hight_throughput"], "invalid choice"),
    (["-cc", "{mode: 3"], "compilation-config"),
])
def test_rejected_as_the_release_parser_would(words, needle):
    with pytest.raises(Refusal) as e:
        _parse("0.13.0", words)
    assert e.value.type == "ArgumentError" and needle in e.value.message


def test_all2all_backend_flag_does_not_exist_on_0_11_0():
    with pytest.raises(Refusal) as e:
        _parse("0.11.0", ["--all2all-backend", "deepep_high_throughput"])
    assert "unrecognized arguments" in e.value.message
