import enum
import types


class CUDAGraphMode(enum.Enum):
    NONE = 0
    PIECEWISE = 1
    FULL = 2
    FULL_DECODE_ONLY = (FULL, NONE)
    FULL_AND_PIECEWISE = (FULL, PIECEWISE)


class CompilationMode(enum.IntEnum):
    NONE = 0
    STOCK_TORCH_COMPILE = 1
    DYNAMO_TRACE_ONCE = 2
    VLLM_COMPILE = 3


class VllmConfig:
    def __init__(self, **sections):
        self.compilation_config = types.SimpleNamespace(cudagraph_mode=CUDAGraphMode.PIECEWISE)
        for key, value in sections.items():
            setattr(self, key, value)
