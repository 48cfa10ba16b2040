"""`confirm --record DIR`: what a logged start proves, as a verify record (`verify --record`'s
format, validated by its schema), so `matrix --records DIR` shows real starts beside predictions.

The record's digest is that of the resolved settings `check` gives the same arguments (the
matrix row's), its status `pass` when the node agreed with them and `fail` when it did not;
what the log itself showed (release, GPU, arguments, logged and captured modes) is kept under
`environment.log`.
"""
from __future__ import annotations

import platform

from vllm_preflight.confirm.compare import Comparison


def build(c: Comparison) -> dict | None:
    from vllm_preflight.verify import record
    from vllm_preflight.verify.outcome import Check

    if c.release is None or c.resolved is None:
        return None
    checks = [Check("L1", f"logged {r.setting}", "pass" if r.agree else "fail",
                    f"logged {r.logged!s:.80} · predicted {r.predicted!s:.80}"[:200])
              for r in c.rows]
    if c.runtime is not None:
        checks.append(Check("L2", "captured CUDA graphs", "pass" if c.runtime.agree else "fail",
                            f"captured {c.runtime.logged} · predicted {c.runtime.predicted}"))
    sizes = 1
    for k in ("tensor_parallel_size", "data_parallel_size", "pipeline_parallel_size"):
        v = next((r.logged for r in c.rows if r.setting == k), 1)
        sizes *= v if isinstance(v, int) and v > 0 else 1
    env = {
        "python": platform.python_version(),
        "torch": None,
        "device": c.gpu or "unknown",
        "deep_ep": {"installed": False, "apis": [], "detail": "not shown by a vLLM start log"},
        "log": {
            "source": c.where,
            "logged_release": c.logged_release,
            "gpu": c.start.gpu,
            "arguments": c.argv,
            "logged": {r.setting: r.logged for r in c.rows},
            "captured": c.runtime.logged if c.runtime else None,
            "processes": c.start.processes,
        },
    }
    status = "pass" if c.agrees else "fail"
    reason = ("the node's start agrees with the prediction" if c.agrees
              else "the node's start disagrees: " + c.disagreements[0][:300])
    rec = record.build(source=c.where, target="release", vllm_version=c.release, resolved=c.resolved,
                       environment=env, tier="multi-gpu" if sizes > 1 else "gpu", plan=None, checks=checks,
                       timings=[], ranks=[], status=status, exit_code=0 if c.agrees else 1, reason=reason)
    record.validate(rec)
    return rec


def write(directory: str, comparisons: list[Comparison]) -> list[str]:
    from vllm_preflight.verify import record

    paths = []
    for c in comparisons:
        rec = build(c)
        if rec is not None:
            paths.append(record.write_into(directory, rec))
    return paths
