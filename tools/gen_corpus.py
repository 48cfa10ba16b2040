"""Seeded generator of `vllm serve` cases for one vLLM release (or the pr29558 target).

    python tools/gen_corpus.py VERSION [--n 360] [--seed 29558] [-o cases.jsonl]

Each case is {"id", "argv", "env", "model", "gpu", "axes"}: `argv` starts with
`vllm serve {models}/<model>`; `{models}` stands for tests/fixtures/models. The
corpus is made per release so that each release sees mostly spellings it accepts
(plus a share of deliberately wrong ones: flags from other releases, bad JSON, values
outside the release's choices). Quotas guarantee minimum counts per axis; the
recorder checks the outcome quotas once the real release has resolved the cases.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
from collections import Counter

MODELS = {  # fixture dir -> kind
    "mixtral-moe": "moe",
    "qwen3-moe": "moe",
    "deepseek-v3-moe": "moe-mla",
    "deepseek-v3-fp8-block": "moe-fp8-block",
    "llama-dense": "dense",
    "llama-classify": "pooling",
    "whisper-encdec": "encoder-decoder",
}
CG_MODES = ["NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"]
MOE_OPS = ["vllm::moe_forward", "vllm::moe_forward_shared"]


def vt(v: str) -> tuple[int, ...]:
    from vllm_preflight.releases.versions import version_key

    return version_key(v)


def release_options(v: tuple) -> set[str]:
    """The option dests (argparse names) of the release with version tuple `v`."""
    from vllm_preflight.releases import get_release

    return set(get_release(".".join(str(x) for x in v[:3])).options.by_dest)


def backends_for(v: tuple) -> list[str]:
    b = ["naive", "pplx", "deepep_high_throughput", "deepep_low_latency",
         "allgather_reducescatter", "flashinfer_all2allv"]
    if v >= (0, 16):
        b.append("mori")
    if v >= (0, 18):
        b += ["nixl_ep", "flashinfer_nvlink_two_sided", "flashinfer_nvlink_one_sided"]
    if v >= (0, 24):
        b += ["deepep_v2", "mori_high_throughput", "mori_low_latency"]
    if v >= (0, 33):
        b += ["moonep", "passthrough"]
    return b


class Gen:
    def __init__(self, version: str, seed: int):
        self.target = version
        self.v = vt("0.12.0" if version == "pr29558" else version)
        self.r = random.Random(f"{seed}:{version}")

    # -- spelling helpers ---------------------------------------------------
    def cc_flag(self) -> str:
        if self.v < (0, 12):
            return self.r.choice(["--compilation-config", "-O"])
        return self.r.choice(["--compilation-config", "-cc"])

    def mode_key(self) -> str:
        if self.v < (0, 11, 1):
            return "level"
        if self.v < (0, 18) and self.r.random() < 0.1:
            return "level"  # deprecated alias
        return "mode"

    def pass_name(self, new: str) -> str:
        old = {"fuse_attn_quant": "enable_attn_fusion", "eliminate_noops": "enable_noop",
               "enable_sp": "enable_sequence_parallelism", "fuse_gemm_comms": "enable_async_tp",
               "fuse_allreduce_rms": "enable_fi_allreduce_fusion", "fuse_norm_quant": "enable_fusion"}
        if new not in old:
            return new
        if self.v < (0, 12):
            return old[new]
        if self.v < (0, 13) and self.r.random() < 0.3:
            return old[new]  # deprecated, still mapped on 0.12.0
        if self.r.random() < 0.05:
            return old[new]  # rejected from 0.13.0 on
        return new

    # -- one case -------------------------------------------------------------
    def case(self, i: int, focus: str) -> dict:
        r = self.r
        env: dict[str, str] = {}
        axes: list[str] = [f"focus:{focus}"]
        model = r.choice(list(MODELS))
        if focus in ("deepep_ht_moe",):
            model = r.choice(["mixtral-moe", "qwen3-moe", "deepseek-v3-moe", "deepseek-v3-fp8-block"])
        elif focus == "deepep_ht_dense":
            model = r.choice(["llama-dense", "llama-classify"])
        elif focus == "model_kind":
            model = list(MODELS)[i % len(MODELS)]
        argv = ["vllm", "serve", "{models}/" + model]
        kind = MODELS[model]
        if model == "llama-dense" and r.random() < 0.25:
            argv += ["--runner", "pooling"]  # a decoder served as an embedding model
            kind = "pooling"
        axes.append(f"model:{kind}")
        cc: dict = {}

        # parallelism
        dp = r.choice([1, 1, 2, 4, 8, 16])
        # tp stays <= 4: the oracle machine's 24 GiB of host memory trips vLLM's swap-space
        # check (4 GiB x tp > 70% of host memory) at tp=8, which a real node does not
        tp = r.choice([1, 1, 2, 2, 4])
        if focus.startswith("deepep_ht"):
            dp = r.choice([1, 2, 4, 8, 8, 16]) if r.random() < 0.85 else 1
        if dp > 1:
            argv += r.choice([["--data-parallel-size", str(dp)], ["-dp", str(dp)], [f"--data-parallel-size={dp}"]])
        if tp > 1:
            argv += r.choice([["--tensor-parallel-size", str(tp)], ["-tp", str(tp)]])
        axes += [f"dp:{dp>1}", f"tp:{tp}"]
        if MODELS[model].startswith("moe") and r.random() < 0.6:
            argv += ["-ep"] if (self.v >= (0, 14) and r.random() < 0.5) else ["--enable-expert-parallel"]
            axes.append("ep")

        # all2all backend: flag, env, both, none
        backend = None
        if focus.startswith("deepep_ht"):
            backend = "deepep_high_throughput"
        elif r.random() < 0.5:
            backend = r.choice(backends_for(self.v))
        if backend is not None:
            how = r.choice(["flag", "flag", "flag", "env", "both"]) if self.v >= (0, 11, 1) else "env"
            if focus == "env_backend":
                how = "env"
            if how in ("flag", "both"):
                argv += r.choice([["--all2all-backend", backend], [f"--all2all-backend={backend}"]])
            if how in ("env", "both"):
                env["VLLM_ALL2ALL_BACKEND"] = backend if how == "env" else r.choice(
                    ["deepep_high_throughput", "deepep_low_latency", "allgather_reducescatter"])
            axes.append(f"backend:{backend}:{how}")
        if r.random() < 0.03 and self.v >= (0, 11, 1):
            argv += ["--all2all-backend", "deepep_hight_throughput"]  # typo: not a choice
            axes.append("error:bad_backend")

        # compilation mode / optimization level
        m = r.random()
        if m < 0.35:
            pass
        elif m < 0.6:
            lvl = r.choice([0, 1, 2, 3, 3])
            argv += r.choice([[f"-O{lvl}"], ["-O", str(lvl)], [f"-O={lvl}"]] if self.v >= (0, 12) else [[f"-O{lvl}"], ["-O", str(lvl)]])
            axes.append(f"olevel:{lvl}")
        elif m < 0.7 and self.v >= (0, 12):
            argv += ["--optimization-level", str(r.choice([0, 1, 2, 3]))]
            axes.append("optimization_level_flag")
        else:
            cc[self.mode_key()] = r.choice([0, 1, 2, 3, 3, 3, "VLLM_COMPILE", "NONE"]) if self.v >= (0, 11, 1) else r.choice([0, 1, 2, 3, 3])
            axes.append("cc_mode")

        # cudagraph mode
        if focus == "cudagraph_mode" or r.random() < 0.45:
            cgm = CG_MODES[i % len(CG_MODES)] if focus == "cudagraph_mode" else r.choice(CG_MODES)
            if r.random() < 0.15:
                cgm = cgm.lower()
            cc["cudagraph_mode"] = cgm
            axes.append(f"cudagraph_mode:{cgm.upper()}")
        if r.random() < 0.02:
            cc["cudagraph_mode"] = "FULL_PIECEWISE"
            axes.append("error:bad_cudagraph_mode")

        # splitting ops
        s = r.random()
        if s < 0.08:
            cc["splitting_ops"] = []
            axes.append("splitting_ops:empty")
        elif s < 0.14:
            cc["splitting_ops"] = ["vllm::unified_attention", "vllm::unified_attention_with_output"]
            axes.append("splitting_ops:attn")
        elif s < 0.20:
            cc["splitting_ops"] = ["vllm::unified_attention_with_output", "vllm::unified_mla_attention_with_output"] + MOE_OPS
            axes.append("splitting_ops:moe")
        if r.random() < 0.12:
            cc["use_inductor_graph_partition"] = True
            axes.append("inductor_partition")

        # pass config
        pc: dict = {}
        if r.random() < 0.15:
            pc[self.pass_name("fuse_attn_quant")] = True
            if r.random() < 0.7:
                pc[self.pass_name("eliminate_noops")] = True
            axes.append("attn_fusion")
        if r.random() < 0.08:
            pc[self.pass_name("enable_sp")] = True
            axes.append("sp")
        if r.random() < 0.05:
            pc[self.pass_name("fuse_gemm_comms")] = True
            axes.append("async_tp")
        if r.random() < 0.06:
            pc[self.pass_name("fuse_allreduce_rms")] = r.choice([True, False])
            axes.append("allreduce_fusion")
        if r.random() < 0.05:
            pc[self.pass_name("fuse_norm_quant")] = True
        if pc:
            cc["pass_config"] = pc
        if r.random() < 0.12:
            cc["custom_ops"] = r.choice([["+quant_fp8"], ["none", "+rms_norm"], ["-quant_fp8"], ["all"], ["+silu_and_mul"]])
            axes.append("custom_ops")
        if r.random() < 0.01:
            cc["custom_ops"] = ["quant_fp8"]
            axes.append("error:custom_op_syntax")

        # capture sizes
        c = r.random()
        if c < 0.06:
            argv += ["--cudagraph-capture-sizes", "1", "2", "4", "8", "16"] if self.v >= (0, 11, 1) else ["--cuda-graph-sizes", "1", "2", "4", "8", "16"]
            axes.append("capture_sizes_flag")
        elif c < 0.1 and self.v >= (0, 11, 1):
            argv += ["--max-cudagraph-capture-size", str(r.choice([32, 64, 100, 256, 1024]))]
            axes.append("max_capture_flag")
        elif c < 0.13:
            cc["cudagraph_capture_sizes"] = r.choice([[1, 2, 4], [4, 8, 16, 32], [1, 3, 1000]])
            axes.append("capture_sizes_cc")
        elif c < 0.15 and self.v < (0, 13):
            argv += ["--cuda-graph-sizes", str(r.choice([64, 128, 300]))]
            axes.append("cuda_graph_sizes")
        if r.random() < 0.25:
            argv += ["--max-num-seqs", str(r.choice([8, 16, 64, 128, 256, 512, 1024]))]
            axes.append("max_num_seqs")
        if r.random() < 0.15:
            argv += ["--max-num-batched-tokens", str(r.choice([256, 2048, 4096, 8192, 16384]))]
            axes.append("max_num_batched_tokens")
        if r.random() < 0.08 and MODELS[model] != "encoder-decoder":
            n = r.choice([1, 2, 3, 4])
            argv += ["--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": n, "prompt_lookup_max": 4})]
            axes.append("spec_decode")

        if focus == "enforce_eager" or r.random() < 0.1:
            argv.append("--enforce-eager")
            axes.append("enforce_eager")
        if r.random() < 0.04:
            argv.append("--enable-dbo")
            axes.append("dbo")

        # env that matters
        e = r.random()
        if e < 0.05:
            env["TORCH_COMPILE_DISABLE"] = "1"
            axes.append("env:TORCH_COMPILE_DISABLE")
        elif e < 0.08 and self.v >= (0, 22):
            env["VLLM_USE_BREAKABLE_CUDAGRAPH"] = "1"
            axes.append("env:BREAKABLE")
        elif e < 0.10:
            env["VLLM_BATCH_INVARIANT"] = "1"
            axes.append("env:BATCH_INVARIANT")

        # compilation config spelling: JSON or dotted
        if cc:
            if r.random() < 0.6 or self.v < (0, 12):
                flag = self.cc_flag()
                argv += [flag, json.dumps(cc)] if r.random() < 0.8 else [f"{flag}={json.dumps(cc)}"]
            else:
                for k, val in cc.items():
                    if isinstance(val, dict):
                        for k2, v2 in val.items():
                            argv.append(f"-cc.{k}.{k2}={json.dumps(v2)}")
                    elif isinstance(val, list):
                        argv.append(f"-cc.{k}={json.dumps(val)}")
                    else:
                        argv.append(f"-cc.{k}={val}")
                axes.append("cc_dotted")

        # deliberate errors
        x = r.random()
        if focus == "errors" or x < 0.03:
            kind = r.choice(["unknown_flag", "bad_json", "bad_int", "old_syntax", "cross_version"])
            if kind == "unknown_flag":
                argv += ["--enable-cuda-graphs"]
            elif kind == "bad_json":
                argv += [self.cc_flag(), "{mode: 3,"]
            elif kind == "bad_int":
                argv += ["--data-parallel-size", "eight"]
            elif kind == "old_syntax":
                argv += ["-O.cudagraph_mode=PIECEWISE"] if self.v >= (0, 12) else ["-cc", "{}"]
            else:
                argv += ["--all2all-backend", "naive"] if self.v < (0, 11, 1) else ["-O", '{"mode": 3}']
            axes.append(f"error:{kind}")
        return {"id": f"{self.target}-{i:04d}", "argv": argv, "env": env, "model": model,
                "gpu": "H200", "axes": axes}


FOCUS_QUOTAS = [  # (focus, share of the corpus)
    ("deepep_ht_moe", 0.22), ("deepep_ht_dense", 0.08), ("cudagraph_mode", 0.12),
    ("env_backend", 0.05), ("enforce_eager", 0.04), ("model_kind", 0.10), ("errors", 0.05),
]


def generate(version: str, n: int = 360, seed: int = 29558) -> list[dict]:
    g = Gen(version, seed)
    plan: list[str] = []
    for focus, share in FOCUS_QUOTAS:
        plan += [focus] * int(n * share)
    plan += ["random"] * (n - len(plan))
    return [g.case(i, f) for i, f in enumerate(plan)]


def axis_counts(cases: list[dict]) -> Counter:
    c: Counter = Counter()
    for case in cases:
        c.update(a.split(":")[0] + (":" + a.split(":")[1] if a.startswith(("model", "focus", "cudagraph_mode")) else "") for a in case["axes"])
    return c


MIN_AXES = {"model:moe": 40, "model:dense": 20, "model:pooling": 10, "model:encoder-decoder": 10,
            "model:moe-mla": 20, "model:moe-fp8-block": 10, "enforce_eager": 10, "backend": 60,
            **{f"cudagraph_mode:{m}": 10 for m in CG_MODES}, "error": 10, "spec_decode": 5}


# --------------------------------------------------------------- refusal families
# Issue 9: what vLLM refuses (or changes) beyond the compilation path, one family per axis.
# Each family draws the spellings it exercises from a pool (valid and invalid alike) so
# that the recorded answer, not our reading of vLLM, says which are refused.
SPEC = "--speculative-config"
KVT = "--kv-transfer-config"


def _bool_negatives(v: tuple) -> list[list[str]]:
    flags = ["--no-enable-prefix-caching", "--no-enforce-eager", "--no-enable-expert-parallel",
             "--no-enable-dbo", "--no-disable-custom-all-reduce", "--no-enable-chunked-prefill",
             "--no-disable-cascade-attn", "--no-trust-remote-code", "--no-enable-eplb",
             "--no-async-scheduling", "--no-disable-log-stats", "--no-skip-tokenizer-init",
             "--no-enable-lora", "--no-disable-sliding-window", "--no-use-tqdm-on-load",
             "--no-enable-sleep-mode", "--no-no-enable-prefix-caching", "--no-disable-chunked-mm-input",
             "--no-fully-sharded-loras", "--no-enable-return-routed-experts", "--no-kv-sharing-fast-prefill",
             "--no-calculate-kv-scales", "--no-enable-log-requests"]
    return [[f] for f in flags]


def _enum_values(v: tuple) -> list[list[str]]:
    out = [["--dtype", d] for d in ("bfloat16", "half", "float16", "auto", "bf16", "BFLOAT16", "fp8")]
    out += [["--kv-cache-dtype", d] for d in ("auto", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "int8", "FP8")]
    out += [["--runner", r] for r in ("auto", "generate", "pooling", "draft", "embed")]
    out += [["--load-format", f] for f in ("dummy", "auto", "safetensors", "bogus")]
    out += [["--distributed-executor-backend", b] for b in ("mp", "ray", "uni", "external_launcher", "torchrun")]
    out += [["--optimization-level", o] for o in ("0", "3", "4", "O2", "-1")]
    out += [["-O", o] for o in ("O3", "o1", "3", "4")]
    out += [["--data-parallel-backend", b] for b in ("mp", "ray", "nccl")]
    out += [["--performance-mode", m] for m in ("balanced", "throughput", "interactivity", "latency")]
    out += [["--structured-outputs-config.backend", b] for b in ("auto", "xgrammar", "outlines", "bogus")]
    out += [["--tokenizer-mode", m] for m in ("auto", "slow", "mistral", "custom", "fast")]
    return out


def _custom_ops(v: tuple) -> list[dict]:
    pools = [["+rms_norm", "-rms_norm"], ["-rms_norm", "+rms_norm"], ["all", "none"], ["none", "all"],
             ["+quant_fp8", "-quant_fp8"], ["all", "-rms_norm"], ["none", "+rms_norm", "+silu_and_mul"],
             ["+rms_norm", "+rms_norm"], ["-silu_and_mul", "-silu_and_mul"], ["all", "all"], ["none", "none"],
             ["rms_norm"], ["+"], ["+rms_norm", "none", "-quant_fp8"], ["all", "+rms_norm"], []]
    return [{"custom_ops": p} for p in pools]


def _pass_flags(v: tuple) -> list[dict]:
    names = ["fuse_norm_quant", "fuse_act_quant", "fuse_attn_quant", "eliminate_noops", "enable_sp",
             "fuse_gemm_comms", "fuse_allreduce_rms", "enable_qk_norm_rope_fusion", "fuse_act_padding",
             "fuse_rope_kvcache", "fuse_rocm_aiter_rmsnorm_quant", "enable_noop", "enable_fusion",
             "enable_attn_fusion", "fuse_mla_dual_rms_norm", "enable_rope_kvcache_fusion"]
    out = [{"pass_config": {n: True}} for n in names]
    out += [{"pass_config": {n: False}} for n in names[:8]]
    return out


def _speculative(v: tuple) -> list[dict]:
    return [
        {"method": "ngram", "num_speculative_tokens": 3},
        {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4},
        {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 2},
        {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 5, "prompt_lookup_max": 2},
        {"method": "ngram", "num_speculative_tokens": 0, "prompt_lookup_max": 4},
        {"method": "ngram", "num_speculative_tokens": -1, "prompt_lookup_max": 4},
        {"method": "ngram"},
        {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3, "disable_by_batch_size": 1},
        {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3, "disable_by_batch_size": 4},
        {"model": "ngram", "num_speculative_tokens": 2},
        {"method": "[ngram]", "num_speculative_tokens": 2},
        {"method": "NGRAM", "num_speculative_tokens": 2},
        {"method": "bogus", "num_speculative_tokens": 2},
        {"method": "eagle", "num_speculative_tokens": 2},
        {"method": "draft_model", "num_speculative_tokens": 2},
        {"num_speculative_tokens": 2},
        {"method": "ngram", "num_speculative_tokens": 2, "unknown_key": 1},
        {"method": "suffix", "num_speculative_tokens": 2},
        {"method": "ngram", "num_speculative_tokens": "2", "prompt_lookup_max": 3},
        {"method": "ngram", "num_speculative_tokens": 1.0, "prompt_lookup_max": 3},
        {"method": "ngram", "num_speculative_tokens": 8, "prompt_lookup_max": 3, "prompt_lookup_min": 1},
        {"method": "ngram_gpu", "num_speculative_tokens": 2},
        {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3, "draft_tensor_parallel_size": 2},
    ]


def _kv_transfer(v: tuple) -> list[dict]:
    out: list[dict] = []
    for conn in ("NixlConnector", "LMCacheConnectorV1", "P2pNcclConnector", "SharedStorageConnector",
                 "ExampleConnector", "OffloadingConnector", "MooncakeConnector", "BogusConnector", "nixl"):
        for role in ("kv_both", "kv_producer", "kv_consumer"):
            out.append({"kv_connector": conn, "kv_role": role})
    out += [{"kv_connector": "NixlConnector"}, {"kv_connector": "NixlConnector", "kv_role": "kv_bogus"},
            {"kv_connector": "NixlConnector", "kv_role": "KV_BOTH"}, {"kv_role": "kv_both"},
            {"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "cpu"},
            {"kv_connector": "NixlConnector", "kv_role": "kv_both", "unknown_key": 1},
            {"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_parallel_size": 2}, {}]
    if v >= (0, 17):  # layerwise KV transfer turns full graphs into PIECEWISE
        out += [{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both",
                 "kv_connector_extra_config": {"use_layerwise": lw}} for lw in (True, False)]
        out += [{"kv_connector": "MultiConnector", "kv_role": "kv_both", "kv_connector_extra_config": {
            "connectors": [{"kv_connector": "NixlConnector", "kv_role": "kv_both"},
                           {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both",
                            "kv_connector_extra_config": {"use_layerwise": True}}]}}]
    return out


def _model_parallel(v: tuple) -> list[tuple[str, list[str]]]:
    dense, moe = "llama-dense", "mixtral-moe"
    out = [(dense, ["-tp", "3"]), (moe, ["-tp", "3"]), (dense, ["-tp", "4"]), (dense, ["-tp", "2"]),
           (dense, ["--enable-expert-parallel"]), (dense, ["--enable-expert-parallel", "-dp", "2"]),
           ("llama-classify", ["--enable-expert-parallel"]), (moe, ["--enable-expert-parallel"]),
           ("qwen3-moe", ["--enable-expert-parallel", "-tp", "2"]), ("deepseek-v3-moe", ["--enable-expert-parallel"]),
           (dense, ["-dp", "0"]), (dense, ["-dp", "-1"]), (dense, ["-tp", "0"]),
           (dense, ["--decode-context-parallel-size", "2"]), (dense, ["-tp", "2", "--decode-context-parallel-size", "2"]),
           (dense, ["-tp", "4", "--decode-context-parallel-size", "2"]),
           (dense, ["-tp", "4", "--decode-context-parallel-size", "3"]),
           ("deepseek-v3-moe", ["-tp", "2", "--decode-context-parallel-size", "2"]),
           (dense, ["-pp", "2"]), (dense, ["-pp", "2", "--async-scheduling"]), (moe, ["-pp", "2", "--async-scheduling"]),
           (dense, ["--async-scheduling"]), (dense, ["-pp", "2", "-tp", "2"]),
           (moe, ["-dp", "2", "-tp", "2", "--enable-expert-parallel", "--enable-eplb"]),
           (dense, ["--enable-eplb"]), (moe, ["--enable-eplb"]),
           (moe, ["-dp", "2", "--data-parallel-size-local", "4"]), (dense, ["--max-num-seqs", "0"]),
           (dense, ["--max-num-batched-tokens", "16", "--max-num-seqs", "32"]),
           (dense, ["--max-model-len", "512", "--max-num-batched-tokens", "256", "--no-enable-chunked-prefill"])]
    if v >= (0, 14):
        out += [(dense, ["-ep"]), (moe, ["-ep", "-dp", "2"])]
    return out


def _env_all2all(v: tuple) -> list[tuple[dict, list[str]]]:
    vals = ["deepep_high_throughput", "DEEPEP_HIGH_THROUGHPUT", "DeepEP_HT", "deepep", "pplx", "naive",
            "allgather_reducescatter", "deepep_low_latency", "flashinfer_all2allv", "mori", "nixl_ep", ""]
    out = []
    for val in vals:
        out.append(({"VLLM_ALL2ALL_BACKEND": val}, ["-dp", "2", "--enable-expert-parallel"]))
        if v >= (0, 11, 1):
            out.append(({"VLLM_ALL2ALL_BACKEND": val}, ["-dp", "2", "--enable-expert-parallel",
                                                        "--all2all-backend", "deepep_low_latency"]))
    if v >= (0, 11, 1):
        for val in ("DEEPEP_HIGH_THROUGHPUT", "DeepEP_High_Throughput", "deepep", "ht"):
            out.append(({}, ["-dp", "2", "--enable-expert-parallel", "--all2all-backend", val]))
    return out


FAMILIES = ("parser_negative", "enum_values", "custom_ops", "pass_flags", "speculative", "kv_transfer",
            "model_parallel", "env_all2all", "duplicate_keys")
FAMILY_MIN = 25  # quota: cases per family in every release's corpus


def family_cases(version: str, n: int = 520, seed: int = 29558) -> list[dict]:
    """The refusal-family corpus: every pool entry once, then seeded repeats with a second
    setting mixed in (O-level, TP, cudagraph mode) until `n` cases."""
    g = Gen(version, seed)
    r, v = g.r, g.v
    base: list[tuple[str, str, list[str], dict]] = []  # (family, model, argv tail, env)
    for words in _bool_negatives(v):
        base.append(("parser_negative", "mixtral-moe", words, {}))
    for words in _enum_values(v):
        base.append(("enum_values", "llama-dense", words, {}))
    for cc in _custom_ops(v) + _pass_flags(v):
        fam = "custom_ops" if "custom_ops" in cc else "pass_flags"
        base.append((fam, "llama-dense", [g.cc_flag() if v >= (0, 12) else "--compilation-config", json.dumps(cc)], {}))
    for spec in _speculative(v):
        base.append(("speculative", "llama-dense", [SPEC, json.dumps(spec)], {}))
    for kv in _kv_transfer(v):
        base.append(("kv_transfer", "llama-dense", [KVT, json.dumps(kv)], {}))
    for model, words in _model_parallel(v):
        base.append(("model_parallel", model, words, {}))
    for env, words in _env_all2all(v):
        base.append(("env_all2all", "mixtral-moe", words, env))
    # per-architecture config hooks (VllmConfig.try_verify_and_update_config): gpt-oss raises
    # the largest capture size unless the user set the sizes
    cap_flag = "--max-cudagraph-capture-size" if v >= (0, 11, 1) else "--cuda-graph-sizes"
    for words in ([], [cap_flag, "64"], ["--cudagraph-capture-sizes", "1", "2", "4"] if v >= (0, 11, 1) else [],
                  ["--enforce-eager"], ["-tp", "2"], ["-tp", "3"], ["--max-num-seqs", "32"],
                  ["--enable-expert-parallel", "-dp", "2"]):
        base.append(("model_hooks", "gpt-oss-moe", list(words), {}))
    if v >= (0, 12):
        dup = [["-cc.mode=3", "-cc.mode=0"], ["-cc.cudagraph_mode=FULL", "-cc.cudagraph_mode=PIECEWISE"],
               ["-cc.pass_config.fuse_attn_quant=true", "-cc.pass_config.fuse_attn_quant=false"],
               ["-cc", '{"mode": 3}', "-cc.mode=0"], ["-cc.mode=0", "-cc", '{"mode": 3}'],
               ["-cc.custom_ops+=+rms_norm", "-cc.custom_ops+=-rms_norm"],
               ["-cc.custom_ops+=+rms_norm", "-cc.custom_ops+=+silu_and_mul"],
               ["-cc.cudagraph_capture_sizes=[1,2]", "-cc.cudagraph_capture_sizes=[4,8]"],
               ["-O3", "-O0"], ["-O", "3", "--optimization-level", "1"]]
        for words in dup:
            base.append(("duplicate_keys", "llama-dense", words, {}))
    extras = [[], ["-O0"], ["-O3"], ["-tp", "2"], ["--enforce-eager"],
              ["-cc", json.dumps({"cudagraph_mode": "PIECEWISE"})] if v >= (0, 12) else []]
    cases = []
    for i in range(max(n, len(base))):
        if i < len(base):
            fam, model, words, env = base[i]
        else:  # repeats go round the families, so each meets its quota
            fams = sorted({b[0] for b in base})
            fam, model, words, env = r.choice([b for b in base if b[0] == fams[i % len(fams)]])
        extra = [] if i < len(base) else r.choice(extras)
        if extra[:1] == ["-cc"] and any(w.startswith("-cc") or w == "--compilation-config" for w in words):
            extra = []
        argv = ["vllm", "serve", "{models}/" + model] + list(words) + list(extra)
        cases.append({"id": f"{version}-f{i:04d}", "argv": argv, "env": dict(env), "model": model,
                      "gpu": "H200", "axes": [f"family:{fam}"] + ([f"extra:{' '.join(extra)}"] if extra else [])})
    return cases


DYNAMIC_SCHEDULES = [  # num_speculative_tokens_per_batch_size: tiers, clamp, gaps, tail, invalid ones
    [[1, 16, 3], [17, 64, 2], [65, 1024, 1]], [[1, 8, 4], [9, 1024, 1]], [[1, 4, 3]], [[1, 16, 5]],
    [[1, 16, 3], [32, 128, 2]], [[1, 16, 0], [17, 1024, 2]], [[2, 16, 3]], [[1, 16, 3], [8, 32, 2]],
    [[-1, 4, 2]], [], [[1, 2]], "abc", [[1, "x", 3]], [["1", "16", "3"]], [[1.5, 2, 3]], [[1, 16, 3, 4]],
    [[1, 16, 2], [17, 512, 3]], None,
]


def dynamic_spec_cases(version: str) -> list[dict]:
    """Dynamic speculative decoding (`num_speculative_tokens_per_batch_size`): every schedule on the
    default runner, then the V1 runner, DP, explicit graph modes and capture sizes mixed in."""
    tails: list[tuple[list[str], dict]] = []

    def spec(schedule, method="ngram", n=3) -> list[str]:
        return [SPEC, json.dumps({"method": method, "num_speculative_tokens": n, "prompt_lookup_max": 4,
                                  "num_speculative_tokens_per_batch_size": schedule})]

    v1 = {"VLLM_USE_V2_MODEL_RUNNER": "0"}
    for sch in DYNAMIC_SCHEDULES:
        tails.append((spec(sch), {}))
    for sch in DYNAMIC_SCHEDULES[:8] + [[], None]:
        tails.append((spec(sch), v1))
    base = DYNAMIC_SCHEDULES[0]
    for extra, env in [
        (["-dp", "2"], {}), (["-dp", "2"], v1), (["--max-num-seqs", "32"], {}), (["--max-num-seqs", "32"], v1),
        (["--max-num-seqs", "8"], {}), (["--enforce-eager"], {}), (["--enforce-eager"], v1), (["-O0"], v1),
        (["--cudagraph-capture-sizes", "1", "2", "4", "8"], {}), (["--cudagraph-capture-sizes", "1", "2", "4", "8"], v1),
        (["--max-cudagraph-capture-size", "64"], {}), (["--max-cudagraph-capture-size", "64"], v1),
        (["-tp", "2"], v1),
    ] + [(["-cc.cudagraph_mode=" + m], e) for m in CG_MODES for e in ({}, v1)]:
        tails.append((spec(base) + extra, env))
    for method, env in [("ngram_gpu", {}), ("ngram_gpu", v1)]:
        tails.append((spec(base, method), env))
        tails.append((spec(base, method) + ["-cc.cudagraph_mode=FULL"], env))
    tails.append((spec(base, n=1), {}))
    tails.append((spec([[1, 8, 4], [9, 1024, 1]], n=2), {}))
    odd: tuple[object, ...] = ([[1]], [5], [[1, None, 3]], {"a": 1}, [[True, 16, 2.0]], [[1, 16, 3], [17, 32]], [[1, 16, -2]],
                               [[1, 32, 3], [33, 96, 2], [97, 256, 1]], [[1, 1, 3], [2, 2, 2], [3, 3, 1]])
    for odd_schedule in odd:
        tails.append((spec(odd_schedule), {}))
    for extra, env in [(["--max-num-seqs", "96"], {}), (["--max-num-seqs", "300"], {}), (["-O0"], {}),
                       (["-cc.mode=0", "-cc.cudagraph_mode=FULL"], v1), (["-cc.mode=0", "-cc.cudagraph_mode=FULL"], {}),
                       (["-dp", "2", "-cc.cudagraph_mode=FULL"], v1), (["--max-num-batched-tokens", "256"], {})]:
        tails.append((spec([[1, 32, 3], [33, 96, 2], [97, 256, 1]]) + extra, env))
    tails.append((spec(base, "[ngram]"), v1))
    tails.append(([SPEC, json.dumps({"model": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3,
                                     "num_speculative_tokens_per_batch_size": base})], v1))
    tails.append((spec(base, "ngram_gpu") + ["-dp", "2"], v1))
    return [{"id": f"{version}-d{i:03d}", "argv": ["vllm", "serve", "{models}/llama-dense"] + words, "env": dict(env),
             "model": "llama-dense", "gpu": "H200", "axes": ["family:dynamic_spec"]}
            for i, (words, env) in enumerate(tails)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("--n", type=int, default=360)
    ap.add_argument("--seed", type=int, default=29558)
    ap.add_argument("-o", "--output")
    ap.add_argument("--families", action="store_true", help="the refusal-family corpus (issue 9)")
    a = ap.parse_args()
    if a.families:
        cases = family_cases(a.version, max(a.n, 520), a.seed)
        _write(cases, a.output)
        return 0
    cases = generate(a.version, a.n, a.seed)
    counts = axis_counts(cases)
    short = {k: (counts.get(k, 0), v) for k, v in MIN_AXES.items() if counts.get(k, 0) < v}
    if short:
        print(f"axis quotas not met: {short}", file=sys.stderr)
        return 1
    _write(cases, a.output)
    return 0


def _write(cases: list, output: str | None) -> None:
    with open(output, "w") if output else contextlib.nullcontext(sys.stdout) as out:
        for c in cases:
            out.write(json.dumps(c) + "\n")


if __name__ == "__main__":
    sys.exit(main())
