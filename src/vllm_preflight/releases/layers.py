"""What the runtime stage needs to know about a model's layers: its KV-cache groups.

By architecture (config.json `architectures[0]`): the attention kind of its attention layers
(standard or MLA), the head size the selector sees, attention sinks, and the extra
KV-cache groups of hybrid models whose backends are fixed by layer type (Mamba, GDN, linear
attention, chunked-local). Architectures not listed are taken as standard attention with head
size 128, and that is reported as an assumption.
"""
from __future__ import annotations


class Layers:
    """The layer kinds a model has (MLA, Mamba ...). Read only; equal by value. A plain class (a
    frozen dataclass cost about 0.5 ms of every cold start to create)."""

    __slots__ = ("extra", "head_size", "mla", "sink", "unknown_support")
    _ORDER = ("mla", "head_size", "sink", "extra", "unknown_support")
    mla: bool
    head_size: int
    sink: bool
    extra: tuple[str, ...]  # extra KV-cache groups: mamba1 | mamba2 | short_conv | gdn | linear | chunked_local |
    # cross_attention
    unknown_support: str | None  # layers whose declared support the tool does not model

    def __init__(self, mla: bool = False, head_size: int = 128, sink: bool = False, extra: tuple[str, ...] = (),
                 unknown_support: str | None = None) -> None:
        for name, value in zip(self._ORDER, (mla, head_size, sink, extra, unknown_support)):
            object.__setattr__(self, name, value)

    def _values(self) -> tuple:
        return (self.mla, self.head_size, self.sink, self.extra, self.unknown_support)

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"Layers is read only: cannot set {name!r}")

    def __eq__(self, other) -> bool:
        return type(other) is Layers and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return "Layers(" + ", ".join(f"{n}={v!r}" for n, v in zip(self._ORDER, self._values())) + ")"


_STD = Layers()
_MLA = Layers(mla=True, head_size=576)
ARCHITECTURES: dict[str, Layers] = {
    **{a: _STD for a in ("LlamaForCausalLM", "MistralForCausalLM", "MixtralForCausalLM", "Qwen2ForCausalLM",
                         "Qwen3ForCausalLM", "Qwen3MoeForCausalLM", "Qwen2MoeForCausalLM", "Glm4MoeForCausalLM",
                         "Gemma3ForCausalLM", "Phi3ForCausalLM", "GraniteForCausalLM", "GraniteMoeForCausalLM")},
    **{a: _MLA for a in ("DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "KimiK2ForCausalLM")},
    "GptOssForCausalLM": Layers(head_size=64, sink=True),
    **{a: Layers(extra=("mamba2",)) for a in ("NemotronHForCausalLM", "GraniteMoeHybridForCausalLM",
                                               "FalconH1ForCausalLM", "BambaForCausalLM", "Zamba2ForCausalLM")},
    "JambaForCausalLM": Layers(extra=("mamba1",)),
    "Qwen3NextForCausalLM": Layers(head_size=256, extra=("gdn",)),
    "MiniMaxText01ForCausalLM": Layers(extra=("linear",)),
    "MiniMaxM1ForCausalLM": Layers(extra=("linear",)),
    "Lfm2ForCausalLM": Layers(head_size=64, extra=("short_conv",)),
    "Llama4ForConditionalGeneration": Layers(extra=("chunked_local",)),
    "Llama4ForCausalLM": Layers(extra=("chunked_local",)),
    # the decoder's cross-attention group: vLLM's CrossAttention_<Backend> subclasses the chosen backend's
    # metadata builder, so it declares the same CUDA-graph support (0.15.1 layers/attention/cross_attention.py)
    "WhisperForConditionalGeneration": Layers(head_size=64, extra=("cross_attention",)),
    "DeepseekV32ForCausalLM": Layers(mla=True, head_size=576, unknown_support="sparse MLA with its indexer"),
}

# class names vLLM's warnings print for the fixed (non-selector) backends
FIXED_BACKENDS = {"mamba1": "Mamba1AttentionBackend", "mamba2": "Mamba2AttentionBackend",
                  "short_conv": "ShortConvAttentionBackend", "gdn": "GDNAttentionBackend",
                  "linear": "LinearAttentionBackend"}
CHUNKED_LOCAL_SIZE = 8192
# the extra KV-cache groups of Mamba-like (state-space, linear-attention) layers
MAMBA_LIKE = ("mamba1", "mamba2", "short_conv", "gdn", "linear")  # Llama-4's attention_chunk_size


def layers_for(architecture: str, is_mla: bool, is_pooling: bool) -> tuple[Layers, str | None]:
    """(layers, assumption text or None)."""
    if architecture in ARCHITECTURES:
        return ARCHITECTURES[architecture], None
    if is_pooling:
        return Layers(unknown_support="encoder-only attention (pooling model)"), None
    if is_mla:
        return _MLA, f"{architecture}: MLA attention, head size 576 (not in the runtime table)"
    return _STD, f"{architecture}: standard attention, head size 128, no hybrid layers (not in the runtime table)"
