"""Negative control N4, in a child process: capture a piece that contains the host-synchronising
HT MoE (the MoE ops left out of splitting_ops) on a real GPU. The capture must fail; a failed
capture can poison the CUDA context, hence the separate process. Prints one JSON line."""
from __future__ import annotations

import json
import sys

import torch


def main() -> int:
    from vllm_preflight.verify.controls import ATTENTION_ONLY
    from vllm_preflight.verify.cudagraphs import CudaGraphs
    from vllm_preflight.verify.moe.ht import HTEmulatedMoE
    from vllm_preflight.verify.replay import AddressLog, GraphRunner
    from vllm_preflight.verify.split import split
    from vllm_preflight.verify.toy import ToyConfig
    from vllm_preflight.verify.workbench import build_model

    device = torch.device("cuda", 0)
    result = {"raised": False, "error": None}
    with torch.cuda.stream(torch.cuda.Stream(device)):
        model, traced = build_model(ToyConfig(hidden=128, ffn=128, experts=8, layers=2), 8, device)
        model.set_moe(HTEmulatedMoE(2))
        sg = split(traced, ATTENTION_ONLY, "overload")
        graphs = CudaGraphs(device)
        runner = GraphRunner("piecewise", sg, graphs.wrapper, AddressLog())
        x = torch.zeros(8, 128, device=device)
        x.copy_(model.inputs(8, 1, device))
        with torch.no_grad():
            runner.set("eager")
            runner(x)
            runner.set("capture", 8)
            try:
                runner(x)
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001 - the expected outcome, reported to the parent
                result = {"raised": True, "error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
