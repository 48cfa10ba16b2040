"""Issue 24's corpus (resolver fidelity, round 3): one family per input vLLM reads that the port
read too loosely. Each family is a list of (model fixture, words after `vllm serve MODEL`, env).

* `gpu_classes`: the same deployments on every GPU class (the oracle emulates its compute
  capability, name and memory): the GPU-dependent defaults (max_num_seqs and the capture sizes by
  memory, the all-reduce + RMSNorm fusion on SM90/SM100 with TP > 1, the SM100 capture ceiling,
  sequence parallelism on SM90) and the quantization capability checks.
* `env_choices`: every variable vLLM reads through its choice-checking reader, with an accepted
  value, a value it does not accept and the accepted value in other case (releases/data/env_choices.json).
* `field_types`: config fields given values of the wrong type, as flags and inside JSON options.

Goldens: tests/golden/data/fidelity/FAMILY/VERSION[@GPU].jsonl (tools/record_fidelity.py)."""
from __future__ import annotations

import json
from typing import Any

Pool = list[tuple[str, list[str], dict]]

LLAMA, MOE, FP8, GPTOSS = "llama-dense", "mixtral-moe", "deepseek-v3-fp8-block", "gpt-oss-moe"
# GPU -> (capability, NVML name, memory GiB, GPUs per node): the port's table (gpus.py)
# the GPU classes of issue 24 (A10 is A10G under another name); 0.11.0 and 0.33.0 also ran A100 and B300
# (0.33.0: A100, H200, B200, B300, RTX5090 as well)
GPU_CLASSES = ("T4", "V100", "A10G", "L4", "L40", "H20", "GH200")


def gpu_classes(v: tuple) -> Pool:
    cc = "--compilation-config"
    pool: Pool = []
    for model in (LLAMA, MOE):
        pool += [(model, [], {}), (model, ["-tp", "2"], {}), (model, ["-tp", "4", cc, json.dumps({"mode": 3})], {}),
                 (model, ["--enforce-eager"], {}), (model, ["--max-num-seqs", "64"], {}),
                 (model, ["-tp", "2", "--max-num-seqs", "512"], {})]
        if v >= (0, 12):
            pool += [(model, ["-O3", "-tp", "2"], {}), (model, ["-O1"], {}), (model, ["-O0"], {})]
    pool += [(MOE, ["-tp", "2", "-dp", "2", "--enable-expert-parallel"], {}),
             (MOE, ["-tp", "2", cc, json.dumps({"pass_config": {"enable_sequence_parallelism": True}})], {}),
             (FP8, ["-tp", "2"], {}), (FP8, [], {}), (GPTOSS, [], {}), (GPTOSS, ["-tp", "2"], {}),
             (LLAMA, ["--dtype", "bfloat16"], {}), (LLAMA, ["--dtype", "float16", "-tp", "2"], {}),
             (LLAMA, ["--kv-cache-dtype", "fp8"], {}), (LLAMA, ["--quantization", "fp8"], {})]
    return pool


# read on the config path (where a release reads them at all): each with an accepted value, one
# it does not accept and the accepted one in other case; the others once with a bad value, to
# show they are not read before the model runner (resolve/engine/env_choices.py)
CONFIG_TIME_ENV = ("VLLM_ATTENTION_BACKEND", "VLLM_COMPILE_CACHE_SAVE_FORMAT", "VLLM_ALL2ALL_BACKEND")
CONTROL_ENV = ("VLLM_KV_CACHE_LAYOUT", "VLLM_WORKER_MULTIPROC_METHOD")


def env_choices(v: tuple, table: dict) -> Pool:
    """`table`: {NAME: entry} of the release (releases.env_choices). Recorded one fresh process
    per case: vLLM reads some of these while it builds its parser (a config class's default),
    which a batch process does once for every case."""
    pool: Pool = []
    for name in CONFIG_TIME_ENV:
        e = table.get(name)
        if e is None:
            continue
        good = e["choices"][0]
        model = MOE if "ALL2ALL" in name else LLAMA
        flags = ["--tensor-parallel-size", "2", "--data-parallel-size", "2", "--enable-expert-parallel"] \
            if model == MOE else []
        values = (good, "no_such_value", good.swapcase()) if name == "VLLM_ATTENTION_BACKEND" else (good, "no_such_value")
        for value in values:
            pool.append((model, flags, {name: value}))
    for name in CONTROL_ENV:
        if name in table:
            pool.append((LLAMA, [], {name: "no_such_value"}))
    return pool


def field_types(v: tuple) -> Pool:
    cc = "--compilation-config"
    pool: Pool = []
    val: Any
    values: tuple[Any, ...] = ("yes", "maybe", "1", "0", "true", "on", 2, 1.5, [1], None, "")
    for field in ("use_inductor_graph_partition", "cudagraph_copy_inputs", "use_cudagraph"):
        for val in values:
            pool.append((LLAMA, [cc, json.dumps({field: val})], {}))
    for field in ("max_cudagraph_capture_size", "cudagraph_num_of_warmups", "compile_sizes"):
        for val in ("8", "eight", 8.0, 8.5, True, [8], "", None):
            pool.append((LLAMA, [cc, json.dumps({field: val})], {}))
    for flag in ("fuse_norm_quant", "eliminate_noops", "enable_fusion", "enable_noop", "fuse_allreduce_rms"):
        for val in ("yes", "maybe", 1, 2, "1", [True], None):
            pool.append((LLAMA, [cc, json.dumps({"pass_config": {flag: val}})], {}))
    for val in ("8", "eight", [8], "[1, 2]", 1.0):
        pool.append((LLAMA, [cc, json.dumps({"cudagraph_capture_sizes": val})], {}))
    for val in ("PIECEWISE", 1, "piecewise", "FULL_PIECEWISE", None, 2.0):
        pool.append((LLAMA, [cc, json.dumps({"cudagraph_mode": val})], {}))
    for val in (3, "3", "VLLM_COMPILE", 3.0, 3.5, True, "three"):
        pool.append((LLAMA, [cc, json.dumps({"mode" if v >= (0, 11, 1) else "level": val})], {}))
    for val in ("inductor", 1, None, ["eager"]):
        pool.append((LLAMA, [cc, json.dumps({"backend": val})], {}))
    for val in (["+rms_norm"], "+rms_norm", [1], None):
        pool.append((LLAMA, [cc, json.dumps({"custom_ops": val})], {}))
    for val in (["vllm::unified_attention"], "vllm::unified_attention", [None], 5):
        pool.append((LLAMA, [cc, json.dumps({"splitting_ops": val})], {}))
    return pool


# configs without the experts key: transformers' config class fills its default in
TD_MODELS = ("replayssm-nemotronh", "td-mixtral-no-experts", "td-qwen3moe-no-experts", "td-olmoe-no-experts",
             "td-qwen2moe-no-experts")


def transformers_defaults(v: tuple) -> Pool:
    pool: Pool = []
    for model in TD_MODELS:
        for words in ([], ["--data-parallel-size", "2", "--enable-expert-parallel"],
                      ["--tensor-parallel-size", "2", "--enable-expert-parallel"],
                      ["--tensor-parallel-size", "2", "--data-parallel-size", "2", "--enable-expert-parallel",
                       "--all2all-backend", "deepep_low_latency"]):
            if "--all2all-backend" in words and v < (0, 11, 1):
                continue
            pool.append((model, words, {}))
    return pool
