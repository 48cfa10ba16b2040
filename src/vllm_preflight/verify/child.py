"""Entry point of every process verify starts (`python -m vllm_preflight.verify.child JOB ...`):
arm the lifeline first, before torch's import takes seconds, so that the child dies with verify
whenever verify dies; then run the job. Jobs: `rank` (one rank of a multi-process stage,
`dist_worker`), `n4` (the GPU capture control, `gpu_child`), `full-ht` (a FULL graph around
real DeepEP HT, `full_ht_child`), `config` (the node's vLLM resolves the deployment,
`node_vllm`)."""
from __future__ import annotations

import importlib
import sys

from vllm_preflight.verify import lifeline

JOBS = {"rank": "vllm_preflight.verify.dist_worker", "n4": "vllm_preflight.verify.gpu_child",
        "full-ht": "vllm_preflight.verify.full_ht_child", "config": "vllm_preflight.verify.node_vllm"}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    lifeline.watch_parent()
    if not args or args[0] not in JOBS:
        print(f"usage: python -m vllm_preflight.verify.child {{{','.join(JOBS)}}} ...", file=sys.stderr)
        return 2
    module = importlib.import_module(JOBS[args[0]])
    return int(module.main(args[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
