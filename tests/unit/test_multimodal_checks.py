"""Multimodal checks per release (resolve/model/multimodal.py).

Expected values: the messages and outcomes recorded from real vLLM 0.12.0 and 0.33.0
(tests/golden/data/model_families/multimodal/), and for the releases in between the rules as
read in each release's vllm/config/model.py, config/multimodal.py and config/vllm.py:
ModelConfig's typed InitVars for every model (`dict[str, int]` limits in 0.11.0), the
MultiModalConfig constraints and validator from 0.11.1 (XFORMERS refused from 0.12.0), no
processor cache for encoder-decoder models from 0.13.0, renderer workers (0.19.0; pooling only
from 0.27.0), FP8 scale paths (0.21.0), the video pruning method (0.27.0), the processor device
(0.28.0), the EC producer and --language-model-only with encoder CUDA graphs (0.29.0).
The pydantic cross-checks compare the lax-int rules with pydantic itself where it is installed.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.releases import architectures
from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.model import multimodal as mmc

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"
MULTIMODAL = ("Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration",
              "LlavaForConditionalGeneration", "Gemma3ForConditionalGeneration", "WhisperForConditionalGeneration")


def _run(version: str, *words: str, model: str = "mm-qwen2-vl", env: dict | None = None):
    argv = ("vllm", "serve", str(MODELS / model)) + words
    return resolve(Deployment(argv=argv, env=tuple((env or {}).items()), source="t"), version)


def _err(res) -> tuple[str, str] | None:
    return None if res.vllm_error is None else (res.vllm_error.type, res.vllm_error.message)


@pytest.fixture
def registry(monkeypatch):
    """The registry's multimodal answer for the fixture architectures."""
    def answer(version: str, arch: str):
        return architectures.ArchSupport(registered=True, supports_pp=True, is_multimodal=arch in MULTIMODAL,
                                         supports_lora=True)
    monkeypatch.setattr(architectures, "arch_support", answer)


@pytest.fixture
def unrecorded(monkeypatch):
    monkeypatch.setattr(architectures, "arch_support", lambda version, arch: None)


# ------------------------------------------------------------------ ModelConfig's typed arguments
@pytest.mark.parametrize("version", ["0.12.0", "0.33.0"])
def test_typed_arguments_are_refused_for_text_only_models_too(version, registry):
    err = _err(_run(version, "--limit-mm-per-prompt", '{"image": 2.5}', model="llama-dense"))
    assert err is not None and err[0] == "ValidationError"
    assert err[1].startswith("2 validation errors for ModelConfig\nlimit_mm_per_prompt.image.int\n  Input should be "
                             "a valid integer, got a number with a fractional part [type=int_from_float")
    assert "\nlimit_mm_per_prompt.image.dict[str,int]\n  Input should be a valid dictionary" in err[1]
    err = _err(_run(version, "--media-io-kwargs", '{"video": 3}', model="llama-dense"))
    assert err is not None and err[1].startswith("1 validation error for ModelConfig\nmedia_io_kwargs.video\n  "
                                                 "Input should be a valid dictionary")
    err = _err(_run(version, "--mm-processor-kwargs", "[1]", model="llama-dense"))
    assert err is not None and err[1].startswith("1 validation error for ModelConfig\nmm_processor_kwargs\n")


@pytest.mark.parametrize("version", ["0.12.0", "0.33.0"])
def test_multimodal_config_is_not_built_for_text_only_models(version, registry):
    for words in (["--limit-mm-per-prompt", '{"image": -1}'], ["--mm-processor-cache-gb", "-1"],
                  ["--mm-shm-cache-max-object-size-mb", "64"], ["--mm-encoder-attn-backend", "foo"],
                  ["--video-pruning-rate", "1.5"]):
        assert _run(version, *words, model="llama-dense").vllm_error is None, words
        assert _run(version, *words).vllm_error is not None, words


def test_all_errors_of_the_typed_arguments_are_counted_in_field_order(registry):
    err = _err(_run("0.12.0", "--limit-mm-per-prompt", '{"image": 1, "video": 2.5}', "--media-io-kwargs", "[1]"))
    assert err is not None and err[1].startswith("3 validation errors for ModelConfig\nlimit_mm_per_prompt.video.int")
    assert err[1].rstrip().endswith("media_io_kwargs\n  Input should be a valid dictionary [type=dict_type, "
                                    "input_value=[1], input_type=list]")


def test_release_0_11_0_limits_are_plain_integers(registry):
    err = _err(_run("0.11.0", "--limit-mm-per-prompt", '{"image": {"count": 2}}'))
    assert err is not None and err[1].startswith("1 validation error for ModelConfig\nlimit_mm_per_prompt.image\n  "
                                                 "Input should be a valid integer [type=int_type")
    # and 0.11.0's MultiModalConfig has no bounds
    assert _run("0.11.0", "--limit-mm-per-prompt", '{"image": -1}').vllm_error is None
    assert _run("0.11.0", "--mm-processor-cache-gb", "-1").vllm_error is None


def test_mm_processor_kwargs_text_that_is_not_json_is_an_argparse_error(registry):
    err = _err(_run("0.33.0", "--mm-processor-kwargs", "abc"))
    assert err is not None and err[0] == "ArgumentError"
    assert err[1].startswith("argument --mm-processor-kwargs: Value abc cannot be converted to <function loads at 0x")


@pytest.mark.parametrize("value, problem", [
    (3, None), (True, None), (2.0, None), ("3", None), (" +3 ", None), ("1_000", None), ("3.00", None),
    (2.5, "int_from_float"), (float("nan"), "finite_number"), (1e20, "int_parsing_size"), ("3.5", "int_parsing"),
    ("3.", "int_parsing"), ("_3", "int_parsing"), ("abc", "int_parsing"), (None, "int_type"), ([1], "int_type"),
])
def test_lax_int_rules(value, problem):
    got = mmc._int_problem(value)
    assert (got[1] if got else None) == problem
    pydantic = pytest.importorskip("pydantic")
    try:
        pydantic.TypeAdapter(int).validate_python(value)
        want = None
    except pydantic.ValidationError as e:
        want = e.errors()[0]["type"]
    assert want == problem


# ------------------------------------------------------------------ MultiModalConfig
@pytest.mark.parametrize("version", ["0.12.0", "pr29558", "0.33.0"])
def test_limit_options_per_modality(version, registry):
    ok = ['{"image": 2, "video": 0}', '{"image": {"count": 2, "width": 512}}', '{"foo": {"count": 1, "bar": 2}}',
          '{"image": "3"}', '{"image": true}', '{"image": {}}']
    for text in ok:
        assert _run(version, "--limit-mm-per-prompt", text).vllm_error is None, text
    err = _err(_run(version, "--limit-mm-per-prompt", '{"image": {"count": 1, "foo": 2}}'))
    assert err is not None and err[1].startswith("1 validation error for ModelConfig\nlimit_per_prompt.foo\n  "
                                                 "Unexpected keyword argument")
    err = _err(_run(version, "--limit-mm-per-prompt", '{"image": {"count": -2, "width": 0}}'))
    assert err is not None and err[1].startswith("2 validation errors for ModelConfig\nlimit_per_prompt.count\n  "
                                                 "Input should be greater than or equal to 0")
    # the first modality that fails ends the validator
    err = _err(_run(version, "--limit-mm-per-prompt", '{"image": -1, "video": {"count": -1}}'))
    assert err is not None and err[1].startswith("1 validation error for ModelConfig\nlimit_per_prompt.count")


@pytest.mark.parametrize("version", ["0.12.0", "0.33.0"])
def test_cache_sizes_and_the_shm_validator(version, registry):
    err = _err(_run(version, "--mm-processor-cache-gb", "-1", "--mm-shm-cache-max-object-size-mb", "-1"))
    assert err is not None and err[1].startswith("2 validation errors for ModelConfig\nmm_processor_cache_gb\n")
    err = _err(_run(version, "--mm-shm-cache-max-object-size-mb", "64"))
    assert err == ("ValidationError", ("1 validation error for ModelConfig\n  Value error, "
                                       "'mm_shm_cache_max_object_size_mb' should only be set when "
                                       "'mm_processor_cache_type' is 'shm'."))
    assert _run(version, "--mm-shm-cache-max-object-size-mb", "64", "--mm-processor-cache-type", "shm").vllm_error is None
    assert _run(version, "--mm-shm-cache-max-object-size-mb", "128").vllm_error is None


def test_encoder_decoder_models_have_no_processor_cache_from_0_13(registry):
    assert _run("0.12.0", "--mm-processor-cache-gb", "-1", model="whisper-encdec").vllm_error is not None
    assert _run("0.13.0", "--mm-processor-cache-gb", "-1", model="whisper-encdec").vllm_error is None


def test_encoder_attention_backend_names_per_release(registry):
    err = _err(_run("0.12.0", "--mm-encoder-attn-backend", "xformers"))
    assert err is not None and "Attention backend 'XFORMERS' has been removed" in err[1]
    assert _run("0.11.1", "--mm-encoder-attn-backend", "xformers").vllm_error is None  # a member then
    err = _err(_run("0.12.0", "--mm-encoder-attn-backend", "foo"))
    assert err is not None and ("Value error, Unknown attention backend: 'FOO'. Valid options are: FLASH_ATTN, "
                                "TRITON_ATTN, ROCM_ATTN,") in err[1] and "CPU_ATTN, CUSTOM [type=value_error" in err[1]
    err = _err(_run("0.33.0", "--mm-encoder-attn-backend", "foo"))
    assert err is not None and "ROCM_OCTAVE, ULTRAQUANT, CUSTOM" in err[1]
    assert _run("0.33.0", "--mm-encoder-attn-backend", "flash_attn").vllm_error is None


def test_video_pruning_rate_bounds(registry):
    err = _err(_run("0.12.0", "--video-pruning-rate", "1.0"))
    assert err is not None and err[1].startswith("1 validation error for ModelConfig\nvideo_pruning_rate\n  "
                                                 "Input should be less than 1")
    err = _err(_run("0.12.0", "--video-pruning-rate=-0.5"))
    assert err is not None and "Input should be greater than or equal to 0" in err[1]
    assert _run("0.12.0", "--video-pruning-rate", "0.5").vllm_error is None


def test_deprecated_cache_spellings_before_0_13(registry):
    assert _run("0.12.0", "--disable-mm-preprocessor-cache", "--mm-processor-cache-gb", "-1").vllm_error is None
    err = _err(_run("0.12.0", env={"VLLM_MM_INPUT_CACHE_GIB": "-2"}))
    assert err is not None and "mm_processor_cache_gb\n  Input should be greater than or equal to 0" in err[1]
    assert _err(_run("0.12.0", env={"VLLM_MM_INPUT_CACHE_GIB": "x"})) == (
        "ValueError", "invalid literal for int() with base 10: 'x'")


# ------------------------------------------------------------------ later releases
def test_renderer_workers_with_the_processor_cache(registry):
    assert _run("0.18.0", "--renderer-num-workers", "2").vllm_error is not None  # argparse: no such option
    err = _err(_run("0.20.0", "--renderer-num-workers", "2"))
    assert err is not None and "processor cache enabled. The cache is not thread-safe" in err[1]
    assert _run("0.20.0", "--renderer-num-workers", "2", "--mm-processor-cache-gb", "0").vllm_error is None
    assert _run("0.33.0", "--renderer-num-workers", "2").vllm_error is None  # pooling runners only
    err = _err(_run("0.33.0", "--renderer-num-workers", "2", "--runner", "pooling"))
    assert err is not None and "enabled for pooling models" in err[1]


def test_fp8_scale_paths(registry, tmp_path):
    err = _err(_run("0.33.0", "--mm-encoder-fp8-scale-path", str(tmp_path / "s.json")))
    assert err is not None and "require 'mm_encoder_attn_dtype' to be 'fp8'" in err[1]
    assert _err(_run("0.33.0", "--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-path", "/nonexistent/s.json")) \
        == ("FileNotFoundError", "FP8 scale file not found: /nonexistent/s.json")
    (tmp_path / "s.json").write_text("{}")
    res = _run("0.33.0", "--mm-encoder-attn-dtype", "fp8", "--mm-encoder-fp8-scale-path", str(tmp_path / "s.json"))
    assert res.vllm_error is None
    assert any(a.fact == "node.mm_encoder_fp8_scale_path" for a in res.assumptions)


def test_video_pruning_method_per_architecture(registry):
    words = ("--video-pruning-rate", "0.5", "--video-pruning-method", "vidcom2")
    assert _err(_run("0.33.0", *words, model="mm-qwen2.5-vl")) == (
        "ValidationError", ("1 validation error for ModelConfig\n  Value error, Video pruning method 'vidcom2' is not "
                            "supported by Qwen2_5_VLForConditionalGeneration (supported methods: ['evs'])."))
    assert _run("0.33.0", *words).vllm_error is None  # Qwen2-VL implements no pruning: not checked
    assert _run("0.33.0", "--video-pruning-rate", "0", "--video-pruning-method", "vidcom2",
                model="mm-qwen2.5-vl").vllm_error is None


def test_processor_device_and_tensor_ipc(registry):
    err = _err(_run("0.33.0", "--mm-processor-device", "cuda"))
    assert err is not None and err[1].startswith("1 validation error for VllmConfig\n  Value error, Cannot run the "
                                                 "multi-modal processor on 'cuda'")
    assert _run("0.33.0", "--mm-processor-device", "cpu").vllm_error is None
    assert _run("0.33.0", "--mm-processor-device", "cuda", model="llama-dense").vllm_error is None
    err = _err(_run("0.33.0", "--mm-processor-kwargs", '{"device": "bogus"}'))
    assert err is not None and "Invalid \"device\" in mm_processor_kwargs: 'bogus'" in err[1]
    assert _run("0.27.0", "--mm-processor-kwargs", '{"device": "bogus"}').vllm_error is None
    err = _err(_run("0.33.0", "--mm-tensor-ipc", "torch_shm"))
    assert err is not None and "torch_shm is known to fail without VLLM_WORKER_MULTIPROC_METHOD" in err[1]
    assert _run("0.33.0", "--mm-tensor-ipc", "torch_shm", env={"VLLM_WORKER_MULTIPROC_METHOD": "spawn"}).vllm_error is None


def test_unrecorded_registry_is_an_assumption_not_a_guess(unrecorded):
    res = _run("0.33.0", "--mm-processor-cache-gb", "-1")
    assert res.vllm_error is None
    assert any(a.fact == "model.is_multimodal" for a in res.assumptions)
    # the typed arguments do not depend on the registry
    assert _run("0.33.0", "--limit-mm-per-prompt", "[1]").vllm_error is not None


def test_typed_arguments_are_checked_before_post_init(registry):
    # pydantic validates ModelConfig's arguments before its __post_init__ verifies max_model_len
    err = _err(_run("0.33.0", "--max-model-len", "10000000", "--limit-mm-per-prompt", "[1]", model="llama-dense"))
    assert err is not None and err[1].startswith("1 validation error for ModelConfig\nlimit_mm_per_prompt\n")
    err = _err(_run("0.33.0", "--max-model-len", "10000000", "--limit-mm-per-prompt", '{"image": -1}'))
    assert err is not None and "limit_per_prompt.count" not in err[1]  # MultiModalConfig comes after it


def test_release_0_11_1_lists_canonical_backend_names(registry):
    # 0.11.1's message joins the members' names through their values: the CUSTOM alias shows as TORCH_SDPA
    err = _err(_run("0.11.1", "--mm-encoder-attn-backend", "foo"))
    assert err is not None and "CPU_ATTN, TORCH_SDPA [type=value_error" in err[1] and "CUSTOM" not in err[1]
    assert _run("0.11.1", "--mm-encoder-attn-backend", "custom").vllm_error is None  # still a valid name
