"""The scheduler's check of a dynamic speculative-decoding schedule at engine start
(resolve/speculative/dynamic_sd.py `scheduler_refusal` / `dense_lookup`) against real vLLM 0.33.0's
`build_dynamic_sd_schedule_lookup` (the same file in 0.24.0-0.33.0), recorded by
tools/record_dynamic_sd_scheduler.py: the message of every refusal and every dense lookup."""
from __future__ import annotations

import json
from pathlib import Path

from vllm_preflight.resolve.speculative.dynamic_sd import dense_lookup, scheduler_refusal

DATA = Path(__file__).parent / "scheduler" / "dynamic_sd-0.33.0.jsonl"  # not golden cases: kept out of data/
CASES = [json.loads(line) for line in DATA.read_text().splitlines()]


def test_the_recording_covers_refusals_and_lookups():
    assert sum(c["error"] is None for c in CASES) >= 100
    assert len({c["error"].split(" (")[0] for c in CASES if c["error"]}) >= 7


def test_scheduler_refusal_and_lookup_agree_with_vllm():
    bad = []
    for c in CASES:
        schedule = [tuple(e) for e in c["schedule"]]
        got_error = scheduler_refusal(schedule, c["max_num_seqs"], c["k"])
        got_lookup = dense_lookup(schedule, c["max_num_seqs"], c["k"]) if got_error is None else None
        if (got_error, got_lookup) != (c["error"], c["lookup"]):
            bad.append((c["schedule"], c["max_num_seqs"], c["k"], c["error"], got_error))
    assert not bad, f"{len(bad)}/{len(CASES)} disagree; first: {bad[:3]}"
