"""VllmConfig checks of the vllm_config_2 family on releases between its recorded goldens
(0.12.0, pr29558, 0.33.0), each expectation read in that release's vllm/config/vllm.py:
- HiSparse: absent before 0.30.0; 0.30.0 (:1640-1653) PP, DCP and index_topk;
  --no-scheduler-reserve-full-isl from 0.31.0 (:1834); cudagraph_mode FULL from 0.32.0 (:1818);
  VLLM_USE_V2_MODEL_RUNNER=0 refused from 0.30.0 (:676);
- DeepSeek V4.1 Engram with DBO: from 0.30.0;
- watermarking with speculative decoding: from 0.30.0 (:1143); 0.30.0-0.32.x name only
  "autoregressive model-based" methods and allow parallel drafting for DSpark only (0.33.0: DFlash
  too, and the message lists the methods);
- compile range points: 0.13.0-0.17.x compile_ranges_split_points ("split point"), 0.18.0+
  compile_ranges_endpoints ("endpoint"); none in 0.12.0;
- a KV connector without sleep-mode support: only 0.33.0;
- max_num_batched_tokens against the lookahead slots of EAGLE/MTP drafting: only 0.33.0 (:2371;
  0.28.0-0.32.x reserve slots only for parallel drafting)."""
from __future__ import annotations

from compare import MODELS

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

HS = ("--attention-config", '{"hisparse_config": {}}')
DS32 = "hook-deepseekv32"
DUAL = '{"key": 7, "algorithm": "dual_key_gumbel"}'
MTP_PROB = '{"method": "mtp", "num_speculative_tokens": 1, "draft_sample_method": "probabilistic"%s}'


def _error(model: str, target: str, *words: str, env: tuple = ()):
    argv = ("vllm", "serve", str(MODELS / model)) + words
    err = resolve(Deployment(argv=argv, env=env, source="t"), target).vllm_error
    return None if err is None else err.message


def _value_error(msg: str | None) -> str | None:
    prefix = "1 validation error for VllmConfig\n  Value error, "
    assert msg is None or msg.startswith(prefix) or msg.startswith("1 validation error for VllmConfig\n  Assert"), msg
    return None if msg is None else msg.split(", ", 1)[1]


def test_hisparse_first_release_and_its_later_checks():
    assert _error(DS32, "0.29.0", *HS, "-pp", "2") is None or "HiSparse" not in _error(DS32, "0.29.0", *HS, "-pp", "2")
    assert _value_error(_error(DS32, "0.30.0", *HS, "-pp", "2")) == "HiSparse does not support pipeline parallelism."
    assert _value_error(_error("llama-dense", "0.31.0", *HS)) == \
        "HiSparse is only supported for DSA models with index_topk."
    # --no-scheduler-reserve-full-isl: refused from 0.31.0
    assert _error(DS32, "0.31.0", *HS, "--no-scheduler-reserve-full-isl").endswith(
        "HiSparse requires --scheduler-reserve-full-isl; remove --no-scheduler-reserve-full-isl.")
    # cudagraph_mode FULL: refused from 0.32.0 only
    full = ("--compilation-config", '{"cudagraph_mode": "FULL"}')
    assert "HiSparse" not in (_error(DS32, "0.31.0", *HS, *full) or "")
    assert "HiSparse does not support cudagraph_mode=FULL" in (_error(DS32, "0.32.0", *HS, *full) or "")
    v1 = (("VLLM_USE_V2_MODEL_RUNNER", "0"),)
    assert "HiSparse requires Model Runner V2" in (_error(DS32, "0.30.0", *HS, env=v1) or "")


def test_engram_dbo_from_0_30():
    assert _value_error(_error("vc2-deepseekv41-engram", "0.30.0", "--ubatch-size", "2")) == (
        "DeepSeek V4.1 Engram does not support DBO or microbatching. Disable --enable-dbo and set --ubatch-size to 0.")
    assert "Engram" not in (_error("vc2-deepseekv41-no-engram", "0.31.0", "--enable-dbo") or "")


def test_watermarking_wording_before_0_33():
    ngram = '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3, ' \
            '"draft_sample_method": "probabilistic"}'
    for target in ("0.30.0", "0.32.0"):
        assert _value_error(_error("llama-dense", target, "--watermark-config", DUAL, "--speculative-config",
                                   ngram)) == "Watermarking supports only autoregressive model-based speculative decoding."
    assert _value_error(_error("llama-dense", "0.33.0", "--watermark-config", DUAL, "--speculative-config",
                               ngram)) == "Watermarking supports only dflash, dspark, eagle, eagle3 and mtp speculative decoding."
    assert _value_error(_error("deepseek-v3-moe", "0.31.0", "--watermark-config", '{"key": 1}',
                               "--speculative-config", MTP_PROB % "")) == (
        "The 'gumbel' watermarking algorithm does not support speculative decoding. Set "
        "allow_target_only_watermarking=true to leave draft tokens unwatermarked.")
    assert _value_error(_error("deepseek-v3-moe", "0.30.0", "--watermark-config", DUAL, "--speculative-config",
                               '{"method": "mtp", "num_speculative_tokens": 1}')) == (
        "Speculative decoding with watermarking requires draft_sample_method='probabilistic'.")


def test_compile_range_points_by_release():
    assert _error("llama-dense", "0.13.0", "--compilation-config", '{"compile_ranges_split_points": [0]}').endswith(
        "Assertion failed, Invalid compile range split point: 0")
    assert _error("llama-dense", "0.17.1", "--compilation-config", '{"compile_ranges_split_points": [-2, 8]}').endswith(
        "Invalid compile range split point: -2")
    assert _error("llama-dense", "0.18.0", "--compilation-config", '{"compile_ranges_endpoints": [0]}').endswith(
        "Assertion failed, Invalid compile range endpoint: 0")
    assert _error("llama-dense", "0.20.0", "--compilation-config", '{"compile_ranges_endpoints": [4]}') is None


def test_sleep_mode_connectors_only_on_0_33():
    store = ("--enable-sleep-mode", "--kv-transfer-config",
             '{"kv_connector": "MooncakeStoreConnector", "kv_role": "kv_both"}')
    assert "sleep mode" not in (_error("llama-dense", "0.32.0", *store) or "")
    assert _value_error(_error("llama-dense", "0.33.0", *store)) == "MooncakeStoreConnector does not support sleep mode."


def test_lookahead_slots_only_from_0_33():
    words = ("--max-num-batched-tokens", "4", "--max-num-seqs", "1", "--max-model-len", "16",
             "--speculative-config", '{"method": "mtp", "num_speculative_tokens": 4}')
    assert _error("deepseek-v3-moe", "0.32.0", *words) is None  # no parallel drafting: no slots reserved
    assert _value_error(_error("deepseek-v3-moe", "0.33.0", *words)) == (
        "VllmConfig does not have enough slots to schedule a token and support the speculative decoding settings. "
        "Got max_num_batched_tokens=4 and num_lookahead_tokens=4.")
