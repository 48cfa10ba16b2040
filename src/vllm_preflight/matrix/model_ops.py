"""Which `splitting_ops` entries concern a deployment's model: `--vs` lists only those.

vLLM's default list names the ops of every model family it knows (MLA attention, Mamba and
other linear-attention mixers, sparse indexers, ...); a model calls only its own. The families
here are read from the model's facts (the same facts the resolver uses: a local config.json, the
built-in table of well-known models, `--assume model.FACT=V`); where the facts are a guess, or
the model is a hybrid whose ops the tool does not sort, every op is kept.
"""
from __future__ import annotations

ATTENTION = frozenset({"unified_attention", "unified_attention_with_output", "unified_kv_cache_update"})
MLA = frozenset({"unified_mla_attention", "unified_mla_attention_with_output", "unified_mla_kv_cache_update"})
MOE = frozenset({"moe_forward", "moe_forward_shared"})
SPARSE_INDEXER = frozenset({"sparse_attn_indexer", "rocm_aiter_sparse_attn_indexer"})  # DeepSeek-V3.2
DEEPSEEK_V4 = frozenset({"deepseek_v4_attention"})
# architectures with mixers beside attention (Mamba, gated delta nets, short convolutions, ...):
# their ops are not sorted here, so every op is kept for them
_HYBRID_WORDS = ("mamba", "jamba", "nemotronh", "next", "falconh", "plamo", "lfm", "hybrid", "linear",
                 "minimax", "zamba", "bamba", "qwen4", "olmo3", "kimi")


def model_of(argv) -> str | None:
    argv = list(argv)
    if len(argv) > 2 and argv[1] == "serve" and not argv[2].startswith("-"):
        return argv[2]
    for i, w in enumerate(argv):
        if w == "--model" and i + 1 < len(argv):
            return argv[i + 1]
        if w.startswith("--model="):
            return w.split("=", 1)[1]
    return None


def model_ops(deployment, model_assume: dict[str, str] | None = None) -> tuple[frozenset[str] | None, str]:
    """(short names of the ops the model calls, a few words naming its kind); (None, "") when the
    model is not known well enough to leave any op out."""
    from vllm_preflight.modelfacts import model_facts

    name = model_of(getattr(deployment, "argv", ()) or ())
    if not name:
        return None, ""
    try:
        facts, assumed = model_facts(name, getattr(deployment, "base_dir", None), dict(model_assume or {}))
    except Exception:  # noqa: BLE001 - an unreadable model: keep every op
        return None, ""
    if any(a.fact == "model.is_moe" for a in assumed):  # a stated guess, not the model's facts
        return None, ""
    arch = facts.architecture.lower()
    if any(w in arch for w in _HYBRID_WORDS):
        return None, ""
    ops = set(MLA if facts.is_mla else ATTENTION)
    kind = ["MLA attention" if facts.is_mla else "attention"]
    if "deepseekv32" in arch:
        ops |= SPARSE_INDEXER
        kind.append("sparse indexer")
    if "deepseekv4" in arch:
        ops |= DEEPSEEK_V4
        kind.append("DeepSeek-V4 attention")
    if facts.is_moe:
        ops |= MOE
        kind.append("MoE")
    return frozenset(ops), f"{name} ({', '.join(kind)})"
