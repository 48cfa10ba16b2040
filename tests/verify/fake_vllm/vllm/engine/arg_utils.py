"""EngineArgs as far as verify's config stage calls it; the config it returns is the answer the
test wrote to $FAKE_VLLM_ANSWER ({"resolved": {...}} or {"error": "Type: message"})."""
import json
import os
import types

from vllm.config import CompilationMode, CUDAGraphMode, VllmConfig


def _objects(value, key=""):
    if isinstance(value, dict):
        return types.SimpleNamespace(**{k: _objects(v, k) for k, v in value.items()})
    if key == "cudagraph_mode" and isinstance(value, str):
        return CUDAGraphMode[value]
    if key == "mode" and isinstance(value, str):
        return CompilationMode[value]
    return value


class EngineArgs:
    def __init__(self, **kwargs):
        self.kwargs = kwargs

    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--model")
        parser.add_argument("--data-parallel-size", "-dp", type=int, default=1)
        parser.add_argument("--enable-expert-parallel", action="store_true")
        parser.add_argument("--all2all-backend")
        return parser

    @classmethod
    def from_cli_args(cls, args):
        return cls(**vars(args))

    def create_engine_config(self, usage_context=None):
        with open(os.environ["FAKE_VLLM_ANSWER"]) as f:
            answer = json.load(f)
        if answer.get("error"):
            kind, _, message = answer["error"].partition(": ")
            raise {"ValueError": ValueError, "OSError": OSError}.get(kind, RuntimeError)(message)
        return VllmConfig(**{k: _objects(v, k) for k, v in answer["resolved"].items()})


class AsyncEngineArgs(EngineArgs):
    pass
