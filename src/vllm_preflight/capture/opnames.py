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
    """The op's name without namespace or overload: `vllm::moe_forward` and
    `vllm::moe_forward.default` -> `moe_forward`, dotted `vllm.moe_forward` -> `moe_forward`."""
    if "::" in written:
        return written.split("::", 1)[1].split(".", 1)[0]
    return written.rsplit(".", 1)[-1]


def splits_at(written: str, matching: str) -> str | None:
    """The op name a `splitting_ops` entry splits at under a release's matching ("qualified":
    0.11.1+, "name": <= 0.11.0), or None when it never matches a call Dynamo records.

    Dynamo records `torch.ops.vllm.X(...)` as the packet: 0.11.1+ compares the packet's
    `vllm::X`, so `vllm::X.default` never matches; <= 0.11.0 compares `str(node.target)`,
    `vllm.X`, so neither `::` form matches there."""
    if matching == "name":
        ns, dot, name = written.partition(".")
        return name if dot and "::" not in written and "." not in name and ns and name else None
    op = parse_qualified(written)
    if op is None or written.rsplit("::", 1)[-1].count("."):
        return None
    return op.name


def unsplit(wanted: tuple[str, ...], splitting_ops, matching: str) -> list[str]:
    """The ops of `wanted` that no entry of `splitting_ops` splits at under `matching`."""
    split = {splits_at(w, matching) for w in splitting_ops}
    return [op for op in wanted if op not in split]
