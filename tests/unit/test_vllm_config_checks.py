"""VllmConfig checks on releases between the recorded goldens (vllm_config family: 0.12.0, pr29558,
0.30.0, 0.31.0, 0.33.0), each expectation read in that release's source:
- 0.28.0 speculative.py:1141 and 0.29.0 :1507: adaptive verification only with DSpark;
- 0.29.0 config/vllm.py:2646-2671: without CUDA graphs the wording names enforce_eager (0.30.0+:
  "requires full CUDA graphs");
- 0.22.0-0.30.x config/vllm.py (0.26.0 :953-975): routed experts refuse PP and any KV-transfer
  instance, with the connector wording of those releases; 0.28.0 adds context parallelism;
  0.21.x lists what routed experts are not validated with (none of it checked in 0.20.x);
- 0.21.0 config/vllm.py:1995-2003: the NVFP4-with-MLA message without the ds_mla hint;
- 0.18.0 config/vllm.py:682-700: async scheduling on ray names the three supported executors."""
from __future__ import annotations

from compare import MODELS

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

NGRAM_ADAPTIVE = ('{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3, '
                  '"enable_adaptive_verification": true}')
NIXL = '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}'


def _error(model: str, target: str, *words: str, env: tuple = ()):
    argv = ("vllm", "serve", str(MODELS / model)) + words
    err = resolve(Deployment(argv=argv, env=env, source="t"), target).vllm_error
    return None if err is None else err.message


def test_adaptive_verification_is_dspark_only_on_0_28_and_0_29():
    for target in ("0.28.0", "0.29.0"):
        msg = _error("llama-dense", target, "--speculative-config", NGRAM_ADAPTIVE)
        assert msg is not None and msg.startswith("1 validation error for SpeculativeConfig\n")
        assert "Adaptive verification only supported with DSpark" in msg


def test_adaptive_verification_wording_without_cuda_graphs_changes_in_0_30():
    assert "requires full CUDA graphs" in _error("llama-dense", "0.32.0", "--speculative-config", NGRAM_ADAPTIVE,
                                                 "--enforce-eager")


def test_routed_experts_early_checks_0_22_to_0_30():
    msg = _error("mixtral-moe", "0.26.0", "--enable-return-routed-experts", "--kv-transfer-config", NIXL)
    assert "incompatible with KV connectors (PD disaggregation, KV cache offload)." in msg
    assert "pipeline parallelism (PP > 1)" in _error("mixtral-moe", "0.22.0", "--enable-return-routed-experts",
                                                    "-pp", "2")
    cp = ("--enable-return-routed-experts", "-tp", "2", "-dcp", "2")
    assert "context parallelism (DCP > 1 or PCP > 1)" in _error("deepseek-v3-moe", "0.28.0", *cp)
    assert _error("deepseek-v3-moe", "0.27.0", *cp) is None
    assert _error("mixtral-moe", "0.20.0", "--enable-return-routed-experts", "-pp", "2") is None


def test_routed_experts_0_21_lists_what_is_not_validated():
    # 0.21.0 config/vllm.py:1898-1941; async scheduling is on by default (recorded on real 0.21.0)
    msg = _error("deepseek-v3-moe", "0.21.0", "--enable-return-routed-experts", "--no-async-scheduling",
                 "-pp", "2", "-tp", "2", "-dcp", "2")
    assert msg is not None and msg.endswith(
        "not yet validated with: pipeline parallelism (pipeline_parallel_size=2), decode context parallelism "
        "(decode_context_parallel_size=2). Disable these features or omit --enable-return-routed-experts.")
    assert _error("mixtral-moe", "0.21.0", "--enable-return-routed-experts", "--no-async-scheduling") is None


def test_nvfp4_kv_cache_with_mla_message_by_release():
    old = _error("deepseek-v3-moe", "0.21.0", "--kv-cache-dtype", "nvfp4")
    assert old is not None and "(e.g., 'fp8' or 'auto') for MLA models" in old
    assert _error("deepseek-v3-moe", "0.20.0", "--kv-cache-dtype", "nvfp4") is None or \
        "nvfp4 KV cache" not in _error("deepseek-v3-moe", "0.20.0", "--kv-cache-dtype", "nvfp4")
    assert _error("llama-dense", "0.21.0", "--kv-cache-dtype", "nvfp4") is None


def test_async_scheduling_on_ray_before_0_19():
    msg = _error("llama-dense", "0.17.0", "--async-scheduling", "--distributed-executor-backend", "ray", "-tp", "2")
    assert msg is not None and "but you chose `ray`." in msg
