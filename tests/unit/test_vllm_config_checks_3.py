"""VllmConfig checks of the vllm_config_3 family on releases between its recorded goldens
(0.12.0, pr29558, 0.33.0), each expectation read in that release's sources:
- microbatching: ParallelConfig.use_ubatching (0.14.0 config/parallel.py:357-358) is DBO or
  --ubatch-size > 1, and the DBO all2all assertion reads it from 0.14.0 (0.14.0 config/vllm.py,
  `if self.parallel_config.use_ubatching:`); 0.11.x-0.13.x have no --ubatch-size;
- the DBO token thresholds against the number of microbatches: ParallelConfig._verify_args from
  0.30.0 (config/parallel.py:1090-1100), not in 0.29.0;
- HiSparse takes Model Runner V2 from 0.30.0 (config/vllm.py:675-682), so a feature V2 lacks is
  refused by _validate_v2_model_runner instead of falling back to V1."""
from __future__ import annotations

from compare import MODELS

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve

EP = ("-dp", "2", "--enable-expert-parallel")
HS = ("--attention-config", '{"hisparse_config": {}}')
NGRAM = ("--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}')


def _error(model: str, target: str, *words: str, env: tuple = ()):
    argv = ("vllm", "serve", str(MODELS / model)) + words
    return resolve(Deployment(argv=argv, env=env, source="t"), target).vllm_error


def test_ubatch_size_turns_the_dbo_backend_check_on_from_0_14():
    err = _error("mixtral-moe", "0.13.0", *EP, "--ubatch-size", "2")
    assert err is not None and err.type == "ArgumentError"
    for target in ("0.14.0", "0.22.0", "0.29.0"):
        err = _error("mixtral-moe", target, *EP, "--ubatch-size", "2", "--all2all-backend", "allgather_reducescatter")
        assert err is not None and "Microbatching currently only supports" in err.message, target
        assert "allgather_reducescatter is not supported" in err.message
        # one microbatch is no microbatching; a supported backend passes
        assert _error("mixtral-moe", target, *EP, "--ubatch-size", "1", "--all2all-backend",
                      "allgather_reducescatter") is None
        assert _error("mixtral-moe", target, *EP, "--ubatch-size", "2", "--all2all-backend",
                      "deepep_low_latency") is None


def test_dbo_thresholds_from_0_30():
    words = (*EP, "--ubatch-size", "3", "--all2all-backend", "deepep_low_latency", "--dbo-decode-token-threshold", "2")
    assert _error("mixtral-moe", "0.29.0", *words) is None
    err = _error("mixtral-moe", "0.30.0", *words)
    assert err is not None and err.message == (
        "1 validation error for ParallelConfig\n  Value error, dbo_decode_token_threshold and "
        "dbo_prefill_token_threshold must be at least the number of microbatches (3).")
    # at the bound, and DBO's two microbatches against the prefill threshold
    assert _error("mixtral-moe", "0.31.0", *words[:-1], "3") is None
    err = _error("mixtral-moe", "0.32.0", *EP, "--enable-dbo", "--all2all-backend", "deepep_low_latency",
                 "--dbo-prefill-token-threshold", "1")
    assert err is not None and err.message.endswith("number of microbatches (2).")


def test_hisparse_takes_model_runner_v2_from_0_30():
    for target in ("0.30.0", "0.31.0"):
        assert _error("hook-deepseekv32", target, *NGRAM) is None  # V1 takes ngram
        err = _error("hook-deepseekv32", target, *HS, *NGRAM)
        assert err is not None and "Model Runner V2 does not yet support" in err.message, target
        assert "speculative method 'ngram'" in err.message


def test_drafting_slots_per_request_0_20_to_0_27():
    """0.20.0-0.27.x: max_num_scheduled_tokens = max_num_batched_tokens - slots x max_num_seqs,
    refused at <= 0 (0.20.0 config/vllm.py:1392); parallel drafting takes K-1 slots per request
    (config/speculative.py:954-967). 0.17.0-0.19.x have no such refusal; 0.28.0 counts the slots
    once (4 > 2 passes there; the 0.28.0 golden holds the refusals of that rule)."""
    words = ("--max-num-batched-tokens", "4", "--max-num-seqs", "2", "--max-model-len", "16", "--speculative-config",
             '{"method": "mtp", "num_speculative_tokens": 3, "parallel_drafting": true}')
    assert _error("deepseek-v3-moe", "0.19.0", *words) is None
    for target in ("0.20.0", "0.25.0", "0.27.1"):
        err = _error("deepseek-v3-moe", target, *words)
        assert err is not None and err.message == (
            "1 validation error for VllmConfig\n  Value error, max_num_scheduled_tokens is set to 0 based on the "
            "speculative decoding settings, which does not allow any tokens to be scheduled. Increase "
            "max_num_batched_tokens to accommodate the additional draft token slots, or decrease "
            "num_speculative_tokens or max_num_seqs."), target
        assert _error("deepseek-v3-moe", target, *words[:1], "5", *words[2:]) is None
    assert _error("deepseek-v3-moe", "0.28.0", *words) is None
