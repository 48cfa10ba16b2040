"""Op names as vLLM writes them in `splitting_ops`, and the toy's stand-ins for them (no torch).

The toy registers its ops in a private namespace (`pfverify`) under vLLM's op names, so that a
resolved `vllm::X` list maps one to one onto the toy; nothing is ever registered under `vllm`.
"""
from __future__ import annotations

from dataclasses import dataclass

VLLM_NS = "vllm"
TOY_NS = "pfverify"

ATTENTION_OP = "unified_attention_with_output"  # what vLLM's Attention layer calls, every release
MOE_OP = "moe_forward"
MOE_SHARED_OP = "moe_forward_shared"  # returns (shared_out, fused_out)
MOE_OPS = (MOE_OP, MOE_SHARED_OP)

# Every name vLLM registers that some release puts in its default `splitting_ops`
# (vllm-resolution.md §2.2). The toy registers all of them so they resolve as in vLLM (where
# they are registered at import); it calls only ATTENTION_OP and the MoE ops.
KNOWN_SPLIT_OPS = (
    "unified_attention", "unified_attention_with_output", "unified_mla_attention",
    "unified_mla_attention_with_output", "mamba_mixer2", "mamba_mixer", "short_conv",
    "linear_attention", "plamo2_mamba_mixer", "gdn_attention", "gdn_attention_core",
    "gdn_attention_core_xpu", "qwen_gdn_attention_core", "qwen_gdn_attention_core_fused_norm_packed",
    "kda_attention", "sparse_attn_indexer", "rocm_aiter_sparse_attn_indexer",
    "olmo_hybrid_gdn_full_forward", "deepseek_v4_attention", "hpc_rope_norm_forward",
    "qwen4_exp_compute_ple_ngram_ids", "qwen4_exp_ple_short_conv", "qwen4_exp_qsa_with_output",
    "qwen4_exp_qsa_prepare_with_output", "unified_kv_cache_update", "unified_mla_kv_cache_update",
)
TOY_OPS = KNOWN_SPLIT_OPS + MOE_OPS


@dataclass(frozen=True)
class OpName:
    """A `splitting_ops` entry split into namespace, name and overload (`ns::name[.overload]`)."""

    written: str
    namespace: str
    name: str
    overload: str  # "default" when none is written

    @property
    def toy_namespace(self) -> str:
        return TOY_NS if self.namespace == VLLM_NS else self.namespace


def parse_qualified(written: str) -> OpName | None:
    """`ns::name[.overload]`, or None when the entry has not that form (it then never equals a
    qualified op name, and vLLM 0.11.1+ never splits at it).

    The dotted legacy form `vllm.moe_forward` has no `::` and so resolves to nothing here,
    which is what vLLM 0.11.1+ does with it.
    """
    parts = written.split("::")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    ns, rest = parts
    name, _, overload = rest.partition(".")
    if not name or "." in overload:
        return None
    return OpName(written, ns, name, overload or "default")


def toy_dotted(written: str) -> str:
    """vLLM <= 0.11.0 matches `str(node.target)` against the list (`vllm.name`); map the
    namespace onto the toy's so that the same string comparison applies."""
    prefix = VLLM_NS + "."
    return TOY_NS + "." + written[len(prefix):] if written.startswith(prefix) else written


def short(written: str) -> str:
    """`vllm::moe_forward` -> `moe_forward`, for tables."""
    return written.split("::", 1)[-1].split(".", 1)[-1] if "::" in written else written.rsplit(".", 1)[-1]
