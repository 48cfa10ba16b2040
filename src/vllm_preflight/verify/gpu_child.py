"""Negative control N4, in a child process: capture a piece that contains the host-synchronising
HT MoE (the MoE ops left out of splitting_ops) on a real GPU. The capture must fail, and the
child says why by mechanism: a dispatch hook records every op that read a device value on the
host while the stream was capturing, and inside which opaque op it ran. A failed capture can
poison the CUDA context, hence the separate process. Prints one JSON line."""
from __future__ import annotations

import json
import sys
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from vllm_preflight.verify.host_sync import HostSyncWatch
from vllm_preflight.verify.probe import HOST_READS, run_entered, toy_op_name


class CaptureSyncHook(TorchDispatchMode):
    """Records host reads that happen while `cuda` says the current stream is capturing, and the
    toy op they ran inside (its Python body is entered under the hook)."""

    def __init__(self, cuda):
        super().__init__()
        self.cuda = cuda
        self.syncs: list[dict] = []
        self.inside: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        op = toy_op_name(func)
        if op is not None:
            self.inside.append(op)
            try:
                return run_entered(self, func, args, kwargs)
            finally:
                self.inside.pop()
        name = str(func.overloadpacket) if hasattr(func, "overloadpacket") else str(func)
        if name in HOST_READS and self.cuda.is_current_stream_capturing():
            self.syncs.append({"op": name, "in": self.inside[-1] if self.inside else "the captured piece"})
        return func(*args, **(kwargs or {}))


def capture_report(cuda, device) -> dict:
    """Build the toy on `device`, capture the piece holding the HT MoE, report what happened."""
    from vllm_preflight.verify.controls import ATTENTION_ONLY
    from vllm_preflight.verify.cudagraphs import CudaGraphs
    from vllm_preflight.verify.moe.ht import HTEmulatedMoE
    from vllm_preflight.verify.replay import AddressLog, GraphRunner
    from vllm_preflight.verify.split import split
    from vllm_preflight.verify.toy import ToyConfig
    from vllm_preflight.verify.workbench import build_model

    result: dict[str, Any] = {"raised": False, "error": None, "host_syncs_under_capture": []}
    hook = CaptureSyncHook(cuda)
    with cuda.stream(cuda.Stream(device)):
        model, traced = build_model(ToyConfig(hidden=128, ffn=128, experts=8, layers=2), 8, device)
        model.set_moe(HTEmulatedMoE(2))
        sg = split(traced, ATTENTION_ONLY, "")
        runner = GraphRunner("piecewise", sg, CudaGraphs(device, cuda=cuda).wrapper, AddressLog())
        x = torch.zeros(8, 128, device=device)
        x.copy_(model.inputs(8, 1, device))
        with torch.no_grad():
            runner.set("eager")
            runner(x)
            runner.set("capture", 8)
            watch = HostSyncWatch(capturing=cuda.is_current_stream_capturing)
            try:
                with hook, watch:
                    runner(x)
                cuda.synchronize()
            except Exception as e:  # noqa: BLE001 - what a capture raises, whatever it is, is the report
                text = str(e).splitlines()[0] if str(e) else ""
                result.update(raised=True, error=f"{type(e).__name__}: {text}")
    # dispatch-level reads, then the Python-level syncs (`.tolist()`, `.cpu()`) the hook cannot see
    result["host_syncs_under_capture"] = hook.syncs + [
        {"op": sync, "in": inside or "the captured piece"} for sync, inside in watch.events]
    return result


def main(argv: list[str] | None = None) -> int:
    print(json.dumps(capture_report(torch.cuda, torch.device("cuda", 0))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
