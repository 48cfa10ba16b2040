"""CUDAGraphWrapper with vLLM's entry point and runtime contract (capture a batch descriptor it
has not seen, replay it afterwards, never copy inputs). CUDA is whatever the test puts here (a
CUDA stand-in on CPU). REPLAY_STALE=True plants a wrapper that hands back outputs without
replaying."""
import dataclasses

from vllm.compilation.monitor import CAPTURING
from vllm.config import CUDAGraphMode
from vllm.forward_context import get_forward_context

CUDA = None
REPLAY_STALE = False


@dataclasses.dataclass
class CUDAGraphOptions:
    debug_log_enable: bool = True
    gc_disable: bool = False
    weak_ref_output: bool = True


class CUDAGraphWrapper:
    def __init__(self, runnable, vllm_config, runtime_mode, cudagraph_options=None):
        self.runnable, self.runtime_mode = runnable, runtime_mode
        self.options = cudagraph_options or CUDAGraphOptions()
        self.entries = {}

    def __call__(self, *args):
        context = get_forward_context()
        mode = context.cudagraph_runtime_mode
        if mode == CUDAGraphMode.NONE or mode != self.runtime_mode:
            return self.runnable(*args)
        key = context.batch_descriptor
        if key not in self.entries:
            assert CAPTURING[0], "capturing is not enabled"
            graph = CUDA.CUDAGraph()
            with CUDA.graph(graph):
                output = self.runnable(*args)
            self.entries[key] = (graph, output)
            return output
        graph, output = self.entries[key]
        if not REPLAY_STALE:
            graph.replay()
        return output
