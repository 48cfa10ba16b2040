"""Attention backends per release, as data: priority lists, validity rules and declared
CUDA-graph support (AttentionCGSupport of each metadata builder).

`select(rules, query)` mirrors the CUDA platform's `get_attn_backend_cls`: an explicit choice is
validated alone (vLLM refuses an invalid one); otherwise the first valid backend of the
device's priority list wins. `declared_support(rules, backend, query)` is the builder's
`get_cudagraph_support`. `rules` is the release's runtime.rules.RuntimeRules (its selector
knobs say which lists and rules the release has). Node-dependent inputs (FlashInfer TRTLLM cubins, FA
kernels present in the wheel) are fields of the query, so callers can state alternatives.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

FP8 = ("fp8", "fp8_e4m3", "fp8_e5m2")


@dataclass(frozen=True)
class Query:
    cc: tuple[int, int]
    head_size: int = 128
    dtype: str = "bfloat16"  # model dtype as torch names it
    kv_cache_dtype: str = "auto"
    use_mla: bool = False
    has_sink: bool = False
    use_sparse: bool = False
    num_heads: int = 32  # query heads per TP rank
    num_kv_heads: int = 8
    trtllm_kernels: bool = False  # flashinfer-cubin installed / artifactory reachable
    fa_version_env: int | None = None  # 0.12: VLLM_FLASH_ATTN_VERSION
    use_trtllm_env: bool | None = None  # 0.12: VLLM_USE_TRTLLM_ATTENTION
    batch_invariant: bool = False

    @property
    def major(self) -> int:
        return self.cc[0]


@dataclass(frozen=True)
class Choice:
    backend: str | None  # enum name, e.g. FLASHINFER
    class_name: str | None  # the backend class name vLLM's warnings print
    error: tuple[str, str] | None = None  # vLLM refuses: (type, message)
    candidates: tuple[str, ...] = ()  # every valid backend, in priority order
    reasons: dict = field(default_factory=dict)  # invalid backend -> reasons


CLASS_NAMES = {
    "FLASH_ATTN": "FlashAttentionBackend", "FLASHINFER": "FlashInferBackend",
    "TRITON_ATTN": "TritonAttentionBackend", "FLEX_ATTENTION": "FlexAttentionBackend",
    "TURBOQUANT": "TurboQuantAttentionBackend",
    "CUTLASS_MLA": "CutlassMLABackend", "FLASHINFER_MLA": "FlashInferMLABackend",
    "FLASH_ATTN_MLA": "FlashAttnMLABackend", "FLASHMLA": "FlashMLABackend",
    "TRITON_MLA": "TritonMLABackend", "FLASHMLA_SPARSE": "FlashMLASparseBackend",
    "TOKENSPEED_MLA": "TokenSpeedMLABackend",
}

# 0.11.0's warnings name the metadata builder class instead of the backend
BUILDER_NAMES = {
    "FlashAttentionBackend": "FlashAttentionMetadataBuilder", "FlashInferBackend": "FlashInferMetadataBuilder",
    "TritonAttentionBackend": "TritonAttentionMetadataBuilder", "FlexAttentionBackend": "FlexAttentionMetadataBuilder",
    "CutlassMLABackend": "CutlassMLAMetadataBuilder", "FlashInferMLABackend": "FlashInferMLAMetadataBuilder",
    "FlashAttnMLABackend": "FlashAttnMLAMetadataBuilder", "FlashMLABackend": "FlashMLAMetadataBuilder",
    "TritonMLABackend": "MLACommonMetadataBuilder", "Mamba1AttentionBackend": "Mamba1AttentionMetadataBuilder",
    "Mamba2AttentionBackend": "Mamba2AttentionMetadataBuilder",
    "ShortConvAttentionBackend": "ShortConvAttentionMetadataBuilder",
    "GDNAttentionBackend": "GDNAttentionMetadataBuilder", "LinearAttentionBackend": "LinearAttentionMetadataBuilder",
}


# ---------------------------------------------------------------- priorities
# dense backends only: sparse-MLA backends never serve a dense layer, TOKENSPEED_MLA needs a
# package no wheel ships, TURBOQUANT only takes turboquant KV dtypes (all three are tried last)
STD = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION")


def priorities(r, q: Query) -> tuple[str, ...]:
    if not q.use_mla:
        if q.major == 10:
            return ("FLASHINFER", "FLASH_ATTN", "TRITON_ATTN", "FLEX_ATTENTION")
        return STD
    if q.major == 10:
        first = ("CUTLASS_MLA", "FLASHINFER_MLA") if r.sel_mla_sm10 == "cutlass" else ("FLASHINFER_MLA", "CUTLASS_MLA")
        return first + ("FLASH_ATTN_MLA", "FLASHMLA", "TRITON_MLA")
    if q.major == 12 and r.sel_mla_sm12:
        return ("TRITON_MLA",)
    return ("FLASH_ATTN_MLA", "FLASHMLA", "FLASHINFER_MLA", "TRITON_MLA")


# ---------------------------------------------------------------- kernels the wheel ships
def fa_supported(r, version: int | None, q: Query) -> bool:
    """vllm_flash_attn's is_fa_version_supported on this device (stock wheel)."""
    if version == 2:
        return q.major >= 8
    if version == 3:
        return q.major == 9
    if version == 4:
        return r.sel_fa4 and 9 <= q.major <= 11
    return False


def fa_version(r, q: Query) -> int | None:
    """get_flash_attn_version() without per-layer arguments (what the class attribute sees)."""
    if not r.sel_fa4:
        v = 3 if (q.major == 9 and fa_supported(r, 3, q)) else 2
        if q.fa_version_env in (2, 3):
            v = q.fa_version_env
        if q.major == 10 and v == 3:
            v = 2
    else:
        v = 3 if (q.major == 9 and fa_supported(r, 3, q)) else 4 if (q.major == 10 and fa_supported(r, 4, q)) else 2
        if q.major >= 10 and v == 3:
            v = 4 if fa_supported(r, 4, q) else 2
        if q.batch_invariant and v == 4:
            v = 2
    return v if fa_supported(r, v, q) else None


def fa_version_for_layer(r, q: Query) -> int | None:
    """0.33: get_flash_attn_version(head_size=..., has_sinks=..., supports_fa4_hd256=True), the
    version the FP8-KV validity check asks for."""
    v = fa_version(r, q)
    if not r.sel_fa4 or v is None:
        return v
    h = q.head_size
    if v == 3 and q.major == 9 and fa_supported(r, 4, q) and h > 256:
        v = 4
    if v == 4 and h == 256 and q.major in (10, 11) and (q.has_sink or q.kv_cache_dtype.startswith("fp8")):
        v = 2  # FA4's hd256 kernel: no sinks, no quantized KV cache
    if v == 4 and q.major >= 10 and h > 128 and h != 256:
        v = 2  # TMEM capacity
    return v if fa_supported(r, v, q) else None


def trtllm_supported(r, q: Query) -> bool:
    """FlashInfer's TRTLLM (and, from the XQA r, XQA decode) kernels on this device."""
    if q.use_trtllm_env is False or q.batch_invariant or not q.trtllm_kernels:
        return False
    if r.sel_trtllm == "sm100":
        return q.cc == (10, 0)  # exact SM100: B300 (SM103) fails
    if r.sel_trtllm == "sm100_family":
        return q.major == 10
    if r.sel_trtllm == "xqa_sm90":
        return q.cc == (9, 0) or q.major == 10
    return q.cc == (9, 0) or q.major in (10, 12)  # XQA decode on SM90/SM12x, TRTLLM on SM100 family


# ---------------------------------------------------------------- validity
@dataclass(frozen=True)
class Spec:
    dtypes: tuple[str, ...] = ("float16", "bfloat16")
    kv: tuple[str, ...] = ("auto",)
    mla: bool = False
    sparse: bool = False


SPECS = {  # by the release's sel_kv_lists
    "v012": {
        "FLASH_ATTN": Spec(kv=("auto",) + FP8),
        "FLASHINFER": Spec(kv=("auto",) + FP8),
        "TRITON_ATTN": Spec(dtypes=("float16", "bfloat16", "float32"), kv=("auto",) + FP8),
        "FLEX_ATTENTION": Spec(dtypes=("float16", "bfloat16", "float32")),
        "CUTLASS_MLA": Spec(kv=("auto", "fp8", "fp8_e4m3"), mla=True),
        "FLASHINFER_MLA": Spec(kv=("auto", "fp8", "fp8_e4m3"), mla=True),
        "FLASH_ATTN_MLA": Spec(mla=True),
        "FLASHMLA": Spec(kv=("auto", "fp8", "fp8_e4m3"), mla=True),
        "TRITON_MLA": Spec(mla=True),
        "FLASHMLA_SPARSE": Spec(dtypes=("bfloat16",), kv=("auto", "fp8_ds_mla"), mla=True, sparse=True),
    },
}
SPECS["v033"] = dict(SPECS["v012"])
SPECS["v033"].update({
    "FLASH_ATTN": Spec(kv=("auto", "float16", "bfloat16", "fp8", "fp8_e4m3")),
    "FLASHINFER": Spec(kv=("auto", "float16", "bfloat16") + FP8 + ("nvfp4", "nvfp4_4over6")),
    "TRITON_ATTN": Spec(dtypes=("float16", "bfloat16", "float32"),
                        kv=("auto", "float16", "bfloat16") + FP8 + ("int8_per_token_head", "fp8_per_token_head",
                                                                    "int4_per_token_head")),
    "FLEX_ATTENTION": Spec(dtypes=("float16", "bfloat16", "float32"), kv=("auto", "float16", "bfloat16")),
    "TURBOQUANT": Spec(kv=("turboquant_3bit_nc", "turboquant_4bit_nc", "turboquant_k3v4_nc", "turboquant_k8v4")),
    "TOKENSPEED_MLA": Spec(kv=("fp8", "fp8_e4m3"), mla=True),
    "CUTLASS_MLA": Spec(kv=("auto", "float16", "bfloat16", "fp8", "fp8_e4m3"), mla=True),
    "FLASHINFER_MLA": Spec(kv=("auto", "float16", "bfloat16", "fp8", "fp8_e4m3"), mla=True),
    "FLASH_ATTN_MLA": Spec(kv=("auto", "float16", "bfloat16"), mla=True),
    "FLASHMLA": Spec(kv=("auto", "float16", "bfloat16", "fp8", "fp8_e4m3"), mla=True),
    "TRITON_MLA": Spec(kv=("auto", "float16", "bfloat16", "fp8", "fp8_e4m3"), mla=True),
})


def _head_ok(r, name: str, q: Query) -> bool:
    h = q.head_size
    if name == "FLASH_ATTN":
        return h % 8 == 0 and (h <= 256 or (r.sel_fa4_layers and fa_supported(r, 4, q) and h <= 512))
    if name == "FLASHINFER":
        return h in ((64, 128, 256, 512) if r.sel_fi_head512 else (64, 128, 256))
    if name == "TRITON_ATTN":
        return h >= 32
    if name in ("FLEX_ATTENTION", "TURBOQUANT"):
        return True
    return h == 576  # MLA backends


def _kv_ok(r, name: str, spec: Spec, q: Query) -> bool:
    kv = q.kv_cache_dtype
    if name == "FLASH_ATTN":
        if not r.sel_fa_fp8_check:  # before 0.28: FP8 KV only with FA3 on SM90
            if kv.startswith("fp8"):
                return fa_version(r, q) == 3 and q.major == 9
            return kv in (("auto",) if r.sel_kv_lists == "v012" else ("auto", "float16", "bfloat16"))
        if kv not in spec.kv:
            return False
        if kv.startswith("fp8"):
            v = fa_version(r, q)
            return kv != "fp8_e5m2" and ((q.major == 9 and v in (3, 4)) or (v == 4 and q.major == 10))
        return True
    return kv in spec.kv


def _sink_ok(r, name: str, q: Query) -> bool:
    if name == "FLASH_ATTN":
        return fa_version(r, q) in ((3, 4) if r.sel_fa4_layers else (3,))
    if name == "FLASHINFER":  # sinks need the TRTLLM (prefill and decode) or XQA kernels, by architecture
        archs = {"sm100": (10,), "sm100_sm12x": (10, 12)}.get(r.sel_fi_sink_archs)
        if archs is not None and q.major not in archs:
            return False
        return trtllm_supported(r, q)
    return name == "TRITON_ATTN"


def _cc_ok(r, name: str, q: Query) -> bool:
    cc = q.cc
    if name == "FLASH_ATTN":
        return cc >= (8, 0)
    if name == "FLASHINFER":
        return ((8, 0) if r.sel_fi_cc80 else (7, 5)) <= cc <= (12, 1)
    if name in ("CUTLASS_MLA", "FLASHINFER_MLA", "TOKENSPEED_MLA"):
        return q.major == 10
    if name == "FLASH_ATTN_MLA":
        return q.major == 9
    if name in ("FLASHMLA", "FLASHMLA_SPARSE"):
        return q.major in (9, 10)
    if name == "TURBOQUANT":
        return cc >= (8, 0)
    return True


def _combination(r, name: str, q: Query) -> str | None:
    if name == "FLASH_ATTN" and q.has_sink and q.cc < (9, 0):
        return "sink not supported on compute capability < 9.0"
    if name == "FLASH_ATTN" and r.sel_fa_fp8_check and q.kv_cache_dtype.startswith("fp8"):
        v = fa_version_for_layer(r, q)
        h512 = r.sel_fa_fp8_h512 and v == 4 and q.head_size == 512
        ok = q.kv_cache_dtype != "fp8_e5m2" and ((q.major == 9 and (v == 3 or h512)) or (v == 4 and q.major == 10))
        if not ok:
            return ("FP8 KV cache requires FA3 on SM90, FA4 with head_size=512 on SM90, or FA4 on SM100"
                    if r.sel_fa_fp8_h512 else "FP8 KV cache requires FA3 on SM90 or FA4 on SM100")
    if name == "FLASH_ATTN_MLA" and not (fa_supported(r, 3, q) and q.major == 9):
        return "FlashAttention MLA not supported on this device"
    if name == "FLASHMLA":
        if q.use_sparse:
            return None if q.major in (9, 10) else "FlashMLA Sparse is only supported on Hopper and Blackwell devices."
        return None if q.major == 9 else "FlashMLA Dense is only supported on Hopper devices."
    return None


def reasons(r, name: str, q: Query) -> list[str]:
    """validate_configuration: every reason the backend cannot serve this layer, in vLLM's order."""
    spec = SPECS[r.sel_kv_lists][name]
    out = []
    if not _head_ok(r, name, q):
        out.append("head_size not supported")
    if q.dtype not in spec.dtypes:
        out.append("dtype not supported")
    if not _kv_ok(r, name, spec, q):
        out.append("kv_cache_dtype not supported")
    if q.use_mla != spec.mla:
        out.append("MLA not supported" if q.use_mla else "non-MLA not supported")
    if q.has_sink and not _sink_ok(r, name, q):
        out.append("attention sinks not supported" if r.sel_sink_text_new else "sink setting not supported")
    if q.use_sparse != spec.sparse:
        out.append("sparse not supported" if q.use_sparse else "non-sparse not supported")
    if not _cc_ok(r, name, q):
        out.append("compute capability not supported")
    comb = _combination(r, name, q)
    if comb:
        out.append(comb)
    return out


@lru_cache(maxsize=4096)  # pure in (release rules, query, choice); one run resolves many deployments
def select(r, q: Query, selected: str | None = None) -> Choice:
    if selected:
        if selected not in SPECS[r.sel_kv_lists]:  # a backend this table does not model: no verdict
            return Choice(selected, CLASS_NAMES.get(selected, selected), None, (selected,))
        why = reasons(r, selected, q)
        if why:
            return Choice(None, None, ("ValueError", (f"Selected backend AttentionBackendEnum.{selected} is not "
                                                      f"valid for this configuration. Reason: {why}")))
        return Choice(selected, CLASS_NAMES.get(selected, selected), None, (selected,))
    if r.sel_legacy_dense and not q.use_mla:
        legacy = _legacy_dense(r, q)
        return Choice(legacy, CLASS_NAMES.get(legacy, legacy), None, (legacy,))
    valid, invalid = [], {}
    for name in priorities(r, q):
        why = reasons(r, name, q)
        if why:
            invalid[name] = why
        else:
            valid.append(name)
    if not valid:
        return Choice(None, None, ("ValueError", "No valid attention backend found for cuda"), (), invalid)
    return Choice(valid[0], CLASS_NAMES.get(valid[0], valid[0]), None, tuple(valid), invalid)


def _legacy_dense(r, q: Query) -> str:
    """0.11.0's hand-written default for a dense layer: FlashInfer on exactly SM100 when it takes
    the head size and dtype; from SM80 Triton for sinks or an FP8 KV cache off SM90, else
    FlashAttention when it takes the head size and dtype; FlexAttention otherwise (below SM80
    always: T4, V100)."""
    if q.cc == (10, 0) and _head_ok(r, "FLASHINFER", q) and q.dtype in ("float16", "bfloat16"):
        return "FLASHINFER"
    if q.cc >= (8, 0):
        if (q.has_sink or q.kv_cache_dtype.startswith("fp8")) and q.cc != (9, 0):
            return "TRITON_ATTN"
        if _head_ok(r, "FLASH_ATTN", q) and q.dtype in ("float16", "bfloat16"):
            return "FLASH_ATTN"
    return "FLEX_ATTENTION"


# ---------------------------------------------------------------- declared support
def _declared(r) -> dict:
    return {"TRITON_ATTN": "ALWAYS", "FLEX_ATTENTION": r.sup_flex, "CUTLASS_MLA": "UNIFORM_SINGLE_TOKEN_DECODE",
            "FLASHINFER_MLA": r.sup_flashinfer_mla, "FLASH_ATTN_MLA": "UNIFORM_BATCH", "FLASHMLA": "UNIFORM_BATCH",
            "TRITON_MLA": r.sup_triton_mla, "FLASHMLA_SPARSE": "UNIFORM_BATCH", "TOKENSPEED_MLA": "UNIFORM_BATCH",
            "TURBOQUANT": "UNIFORM_BATCH"}


def declared_support(r, name: str, q: Query) -> str | None:
    if name == "FLASH_ATTN":
        return "ALWAYS" if fa_version(r, q) in ((3, 4) if r.sup_fa4_always else (3,)) else "UNIFORM_BATCH"
    if name == "FLASHINFER":
        heads_ok = q.num_heads % q.num_kv_heads == 0
        if r.sel_trtllm in ("sm100", "sm100_family"):
            return "UNIFORM_BATCH" if trtllm_supported(r, q) and heads_ok else "UNIFORM_SINGLE_TOKEN_DECODE"
        if q.cc < (9, 0) and r.sup_fi_fa2_decode:
            return "UNIFORM_BATCH"  # 0.33: native fa2 decode below SM90 takes uniform causal queries
        xqa_ok = q.major == 10 or (16 <= q.head_size <= 256 and q.head_size % 16 == 0)
        return "UNIFORM_BATCH" if trtllm_supported(r, q) and heads_ok and xqa_ok else "UNIFORM_SINGLE_TOKEN_DECODE"
    return _declared(r).get(name)  # None: not modelled


def with_kernels(q: Query, present: bool) -> Query:
    return replace(q, trtllm_kernels=present)
