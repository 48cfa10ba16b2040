"""vLLM's CUDAGraphMode and CompilationMode, by name.

CUDAGraphMode values are (decode routine, mixed-batch routine) pairs for the two
"separate routine" modes; the helpers mirror vLLM's enum methods.
"""
from __future__ import annotations

CUDAGRAPH_VALUES = {  # name -> (decode, mixed)
    "NONE": ("NONE", "NONE"),
    "PIECEWISE": ("PIECEWISE", "PIECEWISE"),
    "FULL": ("FULL", "FULL"),
    "FULL_DECODE_ONLY": ("FULL", "NONE"),
    "FULL_AND_PIECEWISE": ("FULL", "PIECEWISE"),
}
CUDAGRAPH_INT = {0: "NONE", 1: "PIECEWISE", 2: "FULL"}
COMPILATION_MODES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")
LEVEL_NAMES = ("NO_COMPILATION", "DYNAMO_AS_IS", "DYNAMO_ONCE", "PIECEWISE")  # 0.11.0's CompilationLevel


def decode_mode(m: str) -> str:
    return CUDAGRAPH_VALUES[m][0]


def mixed_mode(m: str) -> str:
    return CUDAGRAPH_VALUES[m][1]


def has_full_cudagraphs(m: str) -> bool:
    return "FULL" in CUDAGRAPH_VALUES[m]


def has_piecewise_cudagraphs(m: str) -> bool:
    return "PIECEWISE" in CUDAGRAPH_VALUES[m]


requires_piecewise_compilation = has_piecewise_cudagraphs


def separate_routine(m: str) -> bool:
    return m in ("FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


def without_piecewise(m: str) -> str:
    return {"PIECEWISE": "NONE", "FULL_AND_PIECEWISE": "FULL_DECODE_ONLY"}.get(m, m)


def mode_value(name: str) -> int:
    return COMPILATION_MODES.index(name)
