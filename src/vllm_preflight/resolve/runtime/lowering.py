"""The model runner's lowering of `cudagraph_mode` to what the attention backends support.

One pure function for every release; the release's `RuntimeRules` (releases/runtime_rules.py) pick the
variant: 0.12.0's inline `GPUModelRunner._check_and_update_cudagraph_mode`, or the later
`CompilationConfig.resolve_cudagraph_mode_and_sizes` (early return for NONE, the
"requires piecewise capture" rule of Model Runner V2, V1-only size rounding, the Mamba
block-count check). Warnings are vLLM's own lines, as events.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from vllm_preflight.resolve.base.modes import decode_mode, has_full_cudagraphs, mixed_mode, separate_routine

LEVELS = ("NEVER", "UNIFORM_SINGLE_TOKEN_DECODE", "UNIFORM_BATCH", "ALWAYS")
RANK = {name: i for i, name in enumerate(LEVELS)}


@dataclass
class LowerInput:
    mode: str  # cudagraph_mode left by config time
    vllm_compile: bool  # compilation mode == VLLM_COMPILE
    attn_split: bool  # splitting_ops_contain_attention()
    partition: bool  # use_inductor_graph_partition
    q: int  # uniform decode query length (1 + num_speculative_tokens)
    support: str  # minimum AttentionCGSupport over every KV-cache group x backend
    backend: str | None  # class name of the backend that reached the minimum
    sizes: list[int]
    max_size: int | None
    tp: int = 1
    enable_sp: bool = False
    v2: bool = False  # Model Runner V2
    pw_available: bool = True  # V2: the model has a compiled submodule (or breakable graphs)
    adaptive: bool = False  # V2 adaptive verification
    mamba: bool = False  # kv_cache_config.has_mamba_layers
    num_blocks: int | None = None
    max_num_seqs: int | None = None
    profiling: bool = False


@dataclass
class Warning_:
    message: str
    step: str  # stable rule id suffix
    before: str
    after: str


@dataclass
class LowerResult:
    mode: str
    sizes: list[int]
    max_size: int | None
    warnings: list[Warning_] = field(default_factory=list)
    error: tuple[str, str] | None = None  # (exception type, message): vLLM refuses at KV-cache init


def _round_up(x: int, k: int) -> int:
    return (x + k - 1) // k * k


def lower(inp: LowerInput, rules) -> LowerResult:
    """Mirror of the release's runtime check; `rules` is a runtime.rules.RuntimeRules."""
    m = inp.mode
    s, b = inp.support, inp.backend
    out = LowerResult(m, list(inp.sizes), inp.max_size)

    def warn(step: str, new: str, text: str) -> None:
        out.warnings.append(Warning_(text, step, m, new))

    if rules.resolver:
        if inp.adaptive:
            m = "FULL_DECODE_ONLY" if (m == "FULL_DECODE_ONLY" or not inp.pw_available) else "FULL_AND_PIECEWISE"
        if m in (None, "NONE"):
            out.mode = "NONE"
            return out
    # mixed batches want FULL graphs
    if mixed_mode(m) == "FULL" and s != "ALWAYS":
        if s == "NEVER":
            out.error = ("ValueError", (f"CUDAGraphMode.{m} is not supported with {b} backend (support: "
                                        f"AttentionCGSupport.{s}); please try cudagraph_mode=PIECEWISE, and "
                                        f"{rules.never_hint}"))
            out.mode = m
            return out
        new = "FULL_AND_PIECEWISE" if inp.attn_split else "FULL_DECODE_ONLY"
        warn("full_unsupported", new, f"CUDAGraphMode.{m} is not supported with {b} backend (support: "
             f"AttentionCGSupport.{s}); setting cudagraph_mode={new}")
        m = new
    # decode FULL graphs with a backend that supports none
    if decode_mode(m) == "FULL" and s == "NEVER":
        if inp.vllm_compile and (inp.attn_split or inp.partition):
            new, why = "PIECEWISE", "because attention is compiled piecewise"
        else:
            new, why = "NONE", "because attention is not compiled piecewise"
        warn("never_supported", new, f"CUDAGraphMode.{m} is not supported with {b} backend (support: "
             f"AttentionCGSupport.{s}); setting cudagraph_mode={new} {why}")
        m = new
    # spec decode needs UNIFORM_BATCH for FULL decode graphs
    if decode_mode(m) == "FULL" and inp.q > 1 and RANK[s] < RANK["UNIFORM_BATCH"]:
        new = "PIECEWISE" if inp.attn_split else "NONE"
        warn("spec_decode", new, f"CUDAGraphMode.{m} is not supported with spec-decode for attention "
             f"backend {b} (support: AttentionCGSupport.{s}); setting cudagraph_mode={new}")
        m = new
    # Model Runner V2: piecewise graphs need a compiled submodule
    if rules.piecewise_capture_rule and not inp.pw_available and m in ("PIECEWISE", "FULL_AND_PIECEWISE"):
        new = "NONE" if m == "PIECEWISE" else "FULL_DECODE_ONLY"
        warn("no_piecewise_capture", new, f"Cudagraph mode {m} requires piecewise capture, but the loaded "
             "model provides neither a compiled submodule nor breakable CUDA graphs. Overriding to "
             f"{new}.")
        m = new
    out.mode = m
    # spec decode: capture sizes become multiples of q
    if rules.spec_rounding and decode_mode(m) == "FULL" and inp.q > 1 and _rounds_sizes(m, inp, rules):
        mult = inp.q
        if rules.tp_sp_rounding and inp.tp > 1 and inp.enable_sp:
            mult = max(inp.q, inp.tp)
            if mult % inp.q or mult % inp.tp:
                out.error = ("ValueError", (f"Can't determine cudagraph shapes that are both a multiple of "
                                            f"{inp.q} (num_speculative_tokens + 1) required by spec-decode and "
                                            f"{inp.tp} (tensor_parallel_size) required by sequence parallelism "
                                            "please adjust num_speculative_tokens or disable sequence parallelism"))
                return out
        if inp.sizes and mult > 1:
            # config time always sets the max with the sizes (their largest); fall back to that invariant
            mx = inp.max_size if inp.max_size is not None else max(inp.sizes)
            new_sizes = sorted({_round_up(x, mult) for x in inp.sizes if _round_up(x, mult) <= mx})
            if not new_sizes and mult <= mx:
                new_sizes = [mult]
            if not new_sizes:
                out.error = ("ValueError", (f"No valid cudagraph sizes after rounding to multiple of {mult} "
                                            f"{rules.rounding_parenthetical} please adjust num_speculative_tokens "
                                            f"({inp.q - 1}) or max_cudagraph_capture_size ({mx}) or "
                                            f"cudagraph_capture_sizes ({sorted(inp.sizes)})"))
                return out
            out.sizes, out.max_size = new_sizes, new_sizes[-1]
    # hybrid Mamba models: one Mamba cache block per decode sequence in a full graph
    if rules.mamba_block_check and inp.mamba and has_full_cudagraphs(m) and not inp.profiling \
            and inp.max_num_seqs is not None and inp.num_blocks is not None and inp.max_num_seqs > inp.num_blocks:
        out.error = ("ValueError", mamba_blocks_message(inp.max_num_seqs, inp.num_blocks))
    return out


def mamba_blocks_message(max_num_seqs, num_blocks) -> str:
    return (f"max_num_seqs ({max_num_seqs}) exceeds available Mamba cache blocks ({num_blocks}). Each decode "
            "sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower "
            f"max_num_seqs to at most {num_blocks} or increase gpu_memory_utilization.")


def _rounds_sizes(m: str, inp: LowerInput, rules) -> bool:
    if rules.resolver:  # FULL qualifies too; V2 leaves the list alone (it rounds its decode descriptors)
        return not (rules.v2_param and inp.v2)
    return separate_routine(m)  # 0.12.0: F&P and FDO only, never FULL
