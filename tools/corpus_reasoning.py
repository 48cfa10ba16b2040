"""The `reasoning_parser` model family (tools/corpus_model_families.py): `--reasoning-parser`
looked up when the engine config is built (src/vllm_preflight/resolve/config/reasoning.py).

The fixture `reasoning-llama-think` ships a small tokenizer with `<think>`/`</think>` (and
seed_oss's `<seed:think>` pair), since vLLM loads the tokenizer before the lookup. Registered parsers are built on that tokenizer, and some
of them refuse a tokenizer without their own tokens (mistral's tool-call token, olmo3's, the
`hf` and `beam` response templates on 0.33.0): that depends on the model's files, which the
tool does not read, so the pool names only think-token parsers among the registered ones."""
from __future__ import annotations

Pool = list[tuple[str, list[str], dict]]

THINK_PARSERS = ("deepseek_r1", "qwen3", "glm45", "granite", "kimi_k2", "minimax_m2", "hunyuan_a13b",
                 "ernie45", "step3", "seed_oss", "mimo", "deepseek_v3", "cohere_command3")
UNKNOWN = ("bogus", "DeepSeek_R1", "deepseek-r1", "Qwen3", "gpt_oss", "none", "None", "NONE", "r1")


def reasoning_parser(v: tuple) -> Pool:
    """Registered think-token parsers, misspelt, miscased and unknown names, `none` in three
    cases (no parser from 0.33.0, an unknown name before), with a dense and an MoE model's flags."""
    from vllm_preflight.releases import get_release
    from vllm_preflight.resolve.serve.serve import registered

    names = registered(get_release(".".join(map(str, v))).version, "reasoning") or []
    model = "reasoning-llama-think"
    pool: Pool = []
    for name in [n for n in THINK_PARSERS if n in names] + list(UNKNOWN):
        pool.append((model, ["--reasoning-parser", name], {}))
    for name in ("deepseek_r1", "bogus"):
        pool.append((model, [f"--reasoning-parser={name}", "-O3"], {}))
        pool.append((model, ["--reasoning-parser", name, "--enforce-eager"], {}))
    pool.append((model, [], {}))
    return pool
