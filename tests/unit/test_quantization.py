"""--quantization against the checkpoint's quantization_config (resolve/model/quantization.py and resolve/quantization/), per
release. Expected texts are vLLM's (recorded in tests/golden/data/model_families/quantization/)
or read from the release's sources (cited at each test)."""
from __future__ import annotations

from pathlib import Path

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.modelfacts import facts_from_config
from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.model import quantization as Q
from vllm_preflight.resolve.quantization import quant_config as QC

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"


def _run(model: str, *words: str, target: str = "0.12.0"):
    argv = ("vllm", "serve", str(MODELS / model)) + words
    return resolve(Deployment(argv=argv, env=(), source="t"), target)


def _error(model: str, *words: str, target: str = "0.12.0") -> tuple[str, str] | None:
    res = _run(model, *words, target=target)
    return None if res.vllm_error is None else (res.vllm_error.type, res.vllm_error.message)


# ------------------------------------------------------------------ the data
def test_every_release_has_its_lists():
    for v in ("0.11.0", "0.12.0", "0.20.0", "0.33.0"):
        rel = Q.release_facts(v)
        assert rel is not None and rel["methods"] and rel["overrides"]
    assert Q.release_facts("0.12.0")["overrides"][:3] == ["bitblas", "gptq_marlin_24", "gptq_marlin"]
    assert "fp_quant" not in Q.release_facts("0.11.0")["methods"]  # added in 0.11.1
    assert Q.release_facts("0.13.0")["deprecated"] is None
    assert "fbgemm_fp8" in Q.release_facts("0.14.0")["deprecated"]
    # GPTQ's fast path moved from the gptq_marlin override to auto_gptq in 0.22.0
    assert "auto_gptq" in Q.release_facts("0.22.0")["overrides"]
    assert "auto_gptq" not in Q.release_facts("0.21.0")["methods"]


def test_class_facts_match_the_sources():
    c = Q.release_facts("0.12.0")["classes"]
    assert c["awq"]["act_dtypes"] == ["float16"] and c["awq"]["min_capability"] == 75  # awq.py:69-75
    assert c["fp8"]["act_dtypes"] == ["bfloat16", "float16"] and c["fp8"]["config_filenames"] == []
    assert c["fp_quant"]["min_capability"] == 100
    assert c["compressed-tensors"]["init_owner"] == "CompressedTensorsConfig"


def test_missing_arguments_are_worded_as_python_does():
    assert QC._missing_args("A", ["x"]) == "A.__init__() missing 1 required positional argument: 'x'"
    assert QC._missing_args("A", ["x", "y"]) == "A.__init__() missing 2 required positional arguments: 'x' and 'y'"
    assert QC._missing_args("A", ["x", "y", "z"]).endswith("'x', 'y', and 'z'")


# ------------------------------------------------------------------ the override rules
GPTQ_4 = {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True, "desc_act": False}


def _facts(quant: dict, **extra):
    return facts_from_config({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                              "quantization_config": quant, **extra})


def test_marlin_needs_symmetric_4_or_8_bit_and_a_marlin_group():
    assert Q._gptq_marlin_ok(GPTQ_4)
    assert not Q._gptq_marlin_ok({**GPTQ_4, "sym": False})
    assert not Q._gptq_marlin_ok({**GPTQ_4, "bits": 3})
    assert not Q._gptq_marlin_ok({**GPTQ_4, "group_size": 96})
    assert not Q._gptq_marlin_ok({k: x for k, x in GPTQ_4.items() if k != "desc_act"})
    assert Q._awq_marlin_ok({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True})
    assert not Q._awq_marlin_ok({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": False})


@pytest.mark.parametrize("v,user,want", [
    ((0, 12, 0), None, "gptq_marlin"), ((0, 12, 0), "marlin", "gptq_marlin"), ((0, 12, 0), "gptq", None),
    ((0, 33, 0), "gptq", "auto_gptq"), ((0, 33, 0), "marlin", "auto_gptq"), ((0, 33, 0), "awq", None)])
def test_gptq_override_by_release(v, user, want):
    facts = _facts(GPTQ_4)
    name = "gptq_marlin" if v < (0, 22, 0) else "auto_gptq"
    assert Q._override(name, GPTQ_4, user, facts, v, {}) == want


def test_modelopt_claims_the_checkpoint_whatever_the_user_says():
    q = {"quant_method": "modelopt", "quant_algo": "FP8"}
    assert Q._override("modelopt", q, "foo", _facts(q), (0, 12, 0), {}) == "modelopt"
    assert Q._override("modelopt_fp4", q, None, _facts(q), (0, 12, 0), {}) is None
    # 0.16.0+: an exact FP8, not any algo naming FP8
    q2 = {"quant_method": "modelopt", "quant_algo": "FP8_PB_WO"}
    assert Q._override("modelopt", q2, None, _facts(q2), (0, 14, 0), {}) == "modelopt"
    assert Q._override("modelopt", q2, None, _facts(q2), (0, 16, 0), {}) is None


def test_producer_layout_gets_a_quant_method():
    keys = {"quantization_config": {"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4"}}}
    assert Q._normalised(keys, (0, 12, 0))["quant_method"] == "modelopt_fp4"
    mixed = {"quantization_config": {"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "MIXED_PRECISION"}}}
    with pytest.raises(Exception) as e:
        Q._normalised(mixed, (0, 12, 0))
    assert "Unknown ModelOpt quant algo: MIXED_PRECISION" in str(getattr(e.value, "message", e.value))
    assert Q._normalised(mixed, (0, 33, 0))["quant_method"] == "modelopt_mixed"


def test_compressed_tensors_spelling_is_normalised_only_in_the_checkpoint():
    keys = {"compression_config": {"quant_method": "compressed_tensors"}}
    assert Q._normalised(keys, (0, 12, 0))["quant_method"] == "compressed-tensors"


# ------------------------------------------------------------------ whole deployments (recorded on real vLLM)
@pytest.mark.parametrize("target", ["0.12.0", "0.33.0"])
def test_mismatch_is_refused_by_model_config(target):
    err = _error("quant-gptq-4bit-sym", "--quantization", "awq", target=target)
    assert err is not None and err[0] == "ValidationError"
    assert ("1 validation error for ModelConfig\n  Value error, Quantization method specified in the model "
            "config (gptq) does not match the quantization method specified in the `quantization` argument "
            "(awq).") == err[1]


def test_override_names_are_accepted_per_release():
    assert _error("quant-gptq-4bit-sym", "--quantization", "gptq_marlin") is None
    assert _error("quant-awq-4bit", "--quantization", "awq_marlin") is None
    # auto_gptq does not exist in 0.12.0: the name is unknown there
    err = _error("quant-gptq-4bit-sym", "--quantization", "auto_gptq")
    assert err is not None and "(auto_gptq)" in err[1]
    assert _error("quant-gptq-4bit-sym", "--quantization", "auto_gptq", target="0.33.0") is None


def test_unknown_method_lists_the_release_methods():
    err = _error("llama-dense", "--quantization", "nonsense")
    methods = Q.release_facts("0.12.0")["methods"]
    assert err == ("ValidationError", ("1 validation error for ModelConfig\n  Value error, Unknown quantization "
                                       f"method: nonsense. Must be one of {methods}."))


def test_dtype_support_of_the_resolved_method():
    # AWQConfig.get_supported_act_dtypes is [torch.half] (0.12.0 awq.py:69-70); awq_marlin adds bf16
    err = _error("quant-awq-4bit", "--quantization", "awq", "--dtype", "bfloat16")
    assert err is not None and err[1].endswith("torch.bfloat16 is not supported for quantization method awq. "
                                               "Supported dtypes: [torch.float16]")
    assert _error("quant-awq-4bit", "--dtype", "bfloat16") is None
    # 0.33.0: awq runs as auto_awq, which takes bfloat16
    assert _error("quant-awq-4bit", "--quantization", "awq", "--dtype", "bfloat16", target="0.33.0") is None


def test_float32_config_is_downcast_before_the_dtype_check():
    assert _error("quant-fp8-fp32") is None
    err = _error("quant-fp8-fp32", "--dtype", "float32")
    assert err is not None and "torch.float32 is not supported for quantization method fp8" in err[1]


def test_gpu_capability():
    err = _error("llama-dense", "--quantization", "fp_quant")
    assert err is not None and err[1].endswith("The quantization method fp_quant is not supported for the current "
                                               "GPU. Minimum capability: 100. Current capability: 90.")


def test_methods_needing_a_config_file_on_an_unquantized_model():
    err = _error("llama-dense", "--quantization", "gptq")
    assert err is not None and err[1].endswith("Cannot find the config file for gptq")
    assert _error("llama-dense", "--quantization", "fp8") is None
    assert _error("llama-dense", "--quantization", "bitsandbytes") is None  # in-flight quantization
    err = _error("llama-dense", "--quantization", "compressed-tensors")
    assert err is not None and err[0] == "TypeError" and err[1].startswith(
        "CompressedTensorsConfig.__init__() missing 5 required positional arguments")


def test_deprecated_methods_from_0_14_0():
    err = _error("quant-fbgemm-fp8", target="0.33.0")
    assert err is not None and err[1].endswith(
        "('The quantization method %s is deprecated and will be removed in future versions of vLLM. To bypass, "
        "set `--allow-deprecated-quantization`.', 'fbgemm_fp8')")
    assert _error("quant-fbgemm-fp8", "--allow-deprecated-quantization", target="0.33.0") is None
    assert _error("quant-fbgemm-fp8") is None  # 0.12.0 has no such list


def test_gptq_checkpoints_refused_by_auto_gptq():
    err = _error("quant-gptq-4bit-asym", target="0.33.0")
    assert err is not None and err[1].endswith("Unsupported quantization config: bits=4, sym=False")
    assert _error("quant-gptq-4bit-asym") is None  # 0.12.0: runs with the plain gptq kernel (fp16 model)


def test_bitsandbytes_8bit_runs_eagerly_until_0_28():
    res = _run("quant-bnb-8bit")
    assert res.vllm_error is None and res.resolved["compilation_config"]["cudagraph_mode"] == "NONE"
    assert any(e.rule == "quant.bnb_8bit_eager" for e in res.events)
    assert _run("quant-bnb-4bit").resolved["compilation_config"]["cudagraph_mode"] != "NONE"


def test_blocked_weights_follow_the_built_config():
    # compressed-tensors with block-strategy weights turns on +quant_fp8 like blocked fp8
    res = _run("quant-compressed-tensors-fp8-block")
    assert "+quant_fp8" in res.resolved["compilation_config"]["custom_ops"]
    # --quantization humming (0.33.0) builds no fp8 config: no +quant_fp8
    res = _run("deepseek-v3-fp8-block", "--quantization", "humming", target="0.33.0")
    assert res.vllm_error is None and "+quant_fp8" not in res.resolved["compilation_config"]["custom_ops"]


def _hub(*words: str, target: str = "0.12.0"):
    return resolve(Deployment(argv=("vllm", "serve") + words, env=(), source="t"), target)


def test_unread_model_states_an_assumption_and_checks_only_the_name():
    res = _hub("org/not-a-known-model", "--quantization", "awq")
    assert res.vllm_error is None  # its checkpoint may well be AWQ: nothing refused on a guess
    assert any(a.fact == "model.quantization_config" for a in res.assumptions)
    res = _hub("org/not-a-known-model", "--quantization", "awqq")
    assert res.vllm_error is not None and "Unknown quantization method: awqq" in res.vllm_error.message


def test_table_models_carry_their_quantization_config():
    # openai/gpt-oss-120b's published config.json: quant_method mxfp4
    res = _hub("openai/gpt-oss-120b", "--quantization", "fp8")
    assert res.vllm_error is not None and "model config (mxfp4)" in res.vllm_error.message
    assert _hub("openai/gpt-oss-120b", "--quantization", "fp8", target="0.33.0").vllm_error is None  # gpt_oss_mxfp4
    res = _hub("Qwen/Qwen3-8B", "--quantization", "gptq")
    assert res.vllm_error is not None and res.vllm_error.message.endswith("Cannot find the config file for gptq")


# ------------------------------------------------------------------ rules read from the sources of other releases
def test_gguf_claims_any_checkpoint_only_from_0_20_to_0_23():
    # GGUFConfig.override_quantization_method (0.20.0 gguf.py:86-93); gguf leaves the methods in 0.24.0
    q = {"quant_method": "fp8"}
    assert Q._override("gguf", q, "gguf", _facts(q), (0, 20, 0), {}) == "gguf"
    assert Q._override("gguf", q, "gguf", _facts(q), (0, 19, 0), {}) is None
    assert Q._override("gguf", q, None, _facts(q), (0, 22, 0), {}) is None


def test_moe_wna16_accepts_no_op_act_order_from_0_30():
    # 0.30.0 moe_wna16.py: normalize_and_validate_gptq_desc_act turns desc_act off for group_size -1
    q = {**GPTQ_4, "desc_act": True, "group_size": -1}
    assert Q._override("moe_wna16", q, "moe_wna16", _facts(q), (0, 30, 0), {}) == "moe_wna16"
    assert Q._override("moe_wna16", q, "moe_wna16", _facts(q), (0, 29, 0), {}) is None
    assert Q._override("moe_wna16", GPTQ_4, None, _facts(GPTQ_4), (0, 30, 0), {}) is None  # only when asked


def test_deepseek_v4_fp8_claims_fp8_checkpoints_of_its_models_or_when_asked():
    q = {"quant_method": "fp8", "weight_block_size": [128, 128]}
    v4 = _facts(q, model_type="deepseek_v4")
    assert Q._override("deepseek_v4_fp8", q, None, v4, (0, 20, 0), {}) == "deepseek_v4_fp8"
    assert Q._override("deepseek_v4_fp8", q, None, _facts(q), (0, 20, 0), {}) is None
    assert Q._override("deepseek_v4_fp8", q, "deepseek_v4_fp8", _facts(q), (0, 33, 0), {}) == "deepseek_v4_fp8"


def test_humming_refuses_gpt_oss_mxfp4_from_0_21():
    q = {"quant_method": "mxfp4"}
    oss = _facts(q, model_type="gpt_oss")
    assert Q._override("humming", q, "humming", oss, (0, 20, 0), {}) == "humming"
    with pytest.raises(Exception) as e:
        Q._override("humming", q, "humming", oss, (0, 21, 0), {})
    assert "--moe-backend humming" in getattr(e.value, "message", "")


def test_awq_marlin_is_skipped_for_batch_invariance_from_0_20():
    q = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}
    assert Q._override("awq_marlin", q, None, _facts(q), (0, 20, 0), {"VLLM_BATCH_INVARIANT": "1"}) is None
    assert Q._override("awq_marlin", q, None, _facts(q), (0, 19, 0), {"VLLM_BATCH_INVARIANT": "1"}) == "awq_marlin"


def test_online_shorthands_on_an_unquantized_model():
    # 0.33.0: mxfp8 is an online shorthand here (ModelOptMxFp8Config only for mxfp8 checkpoints)
    assert _error("llama-dense", "--quantization", "mxfp8", target="0.33.0") is None
    err = _error("llama-dense", "--quantization", "online", target="0.33.0")
    assert err == ("TypeError", "OnlineQuantizationConfig.__init__() missing 1 required positional argument: 'args'")


def test_checkpoint_keys_each_method_reads():
    # get_from_keys in GPTQConfig / MoeWNA16Config.from_config (recorded on real 0.12.0)
    q = {"quant_method": "gptq", "bits": 4, "group_size": 128}
    with pytest.raises(Exception) as e:
        QC._from_checkpoint("GPTQConfig", q, (0, 12, 0))
    assert "Cannot find any of ['desc_act'] in the model's quantization config." in e.value.message
    with pytest.raises(Exception) as e:
        QC._from_checkpoint("MoeWNA16Config", {**q, "desc_act": False}, (0, 12, 0))
    assert "Cannot find any of ['sym']" in e.value.message
    QC._from_checkpoint("AWQConfig", {"w_bit": 4, "q_group_size": 128, "zero_point": True}, (0, 12, 0))


def test_bitblas_checkpoints_need_the_package():
    with pytest.raises(Exception) as e:
        QC._from_checkpoint("BitBLASConfig", {**GPTQ_4, "checkpoint_format": "bitblas"}, (0, 12, 0))
    assert "could not importwith the following error: No module named 'bitblas'" in e.value.message


def test_modelopt_algo_is_compared_as_written_before_0_14():
    # ModelOptQuantConfigBase.from_config (0.12.0 modelopt.py:208-271; upper-cased from 0.14.0)
    q = {"quant_method": "modelopt", "quant_algo": "nvfp4"}
    with pytest.raises(Exception) as e:
        QC._from_checkpoint("ModelOptNvFp4Config", q, (0, 12, 0))
    assert "ModelOpt currently only supports: ['FP8', 'NVFP4'] quantizations in vLLM." in e.value.message
    QC._from_checkpoint("ModelOptNvFp4Config", q, (0, 14, 0))
    with pytest.raises(Exception) as e:
        QC._from_checkpoint("ModelOptFp8Config", {"quant_method": "modelopt"}, (0, 33, 0))
    assert "Missing 'quant_algo' in quantization config" in e.value.message
