"""The model-level refusal corpus (issue 9, round 3): what vLLM checks against the model itself
while it builds its config -- pipeline-parallel support per architecture, multimodal options,
LoRA, max_model_len against the model's own limits, quantization against the checkpoint's
`quantization_config`, the per-architecture config hooks -- and the JSON config options that
pydantic validates (--eplb-config, --kv-events-config, ...).

Each family is a function of the release (a version tuple) returning pool entries
`(fixture model, argv words after the model, env)`; the fixture models are config.json-only
folders under tests/fixtures/models/. `model_family_cases` turns a pool into the corpus that
`tools/record_golden.py VERSION --model-family FAMILY` has real vLLM resolve
(goldens: tests/golden/data/model_families/FAMILY/VERSION.jsonl).
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_corpus import vt

Pool = list[tuple[str, list[str], dict]]


def _pp_arch(v: tuple) -> Pool:
    """Pipeline parallelism on architectures with and without `SupportsPP`."""
    return []


def _multimodal(v: tuple) -> Pool:
    """Multimodal options on multimodal and text-only models."""
    return []


def _lora(v: tuple) -> Pool:
    """LoRAConfig fields and its checks against the model."""
    return []


def _max_model_len(v: tuple) -> Pool:
    """--max-model-len against the model's derived maximum length."""
    return []


def _quantization(v: tuple) -> Pool:
    """--quantization against the checkpoint's quantization_config."""
    return []


def _arch_hooks(v: tuple) -> Pool:
    """Per-architecture config hooks (MODELS_CONFIG_MAP) that refuse a config or change a compiled setting."""
    return []


def _json_options(v: tuple) -> Pool:
    """The JSON config options validated by pydantic (--eplb-config, --kv-events-config, ...)."""
    return []


MODEL_FAMILIES = {"pp_arch": _pp_arch, "multimodal": _multimodal, "lora": _lora,
                  "max_model_len": _max_model_len, "quantization": _quantization, "arch_hooks": _arch_hooks,
                  "json_options": _json_options}
FAMILY_CASES = 100  # cases per family and release: the pool once, then seeded repeats


def model_family_cases(version: str, family: str, n: int = FAMILY_CASES, seed: int = 29558) -> list[dict]:
    """One family's corpus for one release: every pool entry once, then seeded repeats with a
    second setting mixed in until `n` cases."""
    r = random.Random(f"{seed}-{version}-{family}")
    v = vt("0.12.0" if version == "pr29558" else version)
    pool = MODEL_FAMILIES[family](v)
    extras = [[], ["-O0"], ["-O3"], ["-tp", "2"], ["--enforce-eager"], ["--max-num-seqs", "64"]]
    cases = []
    for i in range(max(n, len(pool)) if pool else 0):
        if i < len(pool):
            model, words, env = pool[i]
            extra: list[str] = []
        else:
            model, words, env = r.choice(pool)
            extra = r.choice(extras)
            if extra and extra[0] in words:
                extra = []
        argv = ["vllm", "serve", "{models}/" + model] + list(words) + list(extra)
        cases.append({"id": f"{version}-{family}-{i:04d}", "argv": argv, "env": dict(env), "model": model,
                      "gpu": "H200", "axes": [f"family:{family}"] + ([f"extra:{' '.join(extra)}"] if extra else [])})
    return cases
