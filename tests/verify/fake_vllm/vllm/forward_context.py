import contextlib
import dataclasses

_CONTEXT = []


@dataclasses.dataclass(frozen=True)
class BatchDescriptor:
    num_tokens: int
    uniform_decode: bool = False


@dataclasses.dataclass
class ForwardContext:
    cudagraph_runtime_mode: object
    batch_descriptor: BatchDescriptor | None


@contextlib.contextmanager
def set_forward_context(attn_metadata, vllm_config, virtual_engine=0, num_tokens=None, cudagraph_runtime_mode=None,
                        batch_descriptor=None):
    _CONTEXT.append(ForwardContext(cudagraph_runtime_mode, batch_descriptor))
    try:
        yield
    finally:
        _CONTEXT.pop()


def get_forward_context():
    return _CONTEXT[-1]
