"""The multi-process HT run is under a watchdog: a rank that never joins is a failure, not a hang.
(The passing 2-rank gloo run is exercised end to end in test_cli.py.)"""
from __future__ import annotations

import pytest

pytest.importorskip("torch")

from vllm_preflight.verify.tiers.cpu import gloo_lockstep


def test_a_rank_that_never_joins_fails_within_the_deadline(ht_bench):
    checks, ranks = gloo_lockstep(ht_bench.plan, ht_bench, [1, 2, 4, 8], {"deadline_s": 8}, hang_rank=1)
    assert ranks == []
    (check,) = checks
    assert check.id == "A5" and check.status == "fail"
    assert check.metrics["timed_out"] and "hung" in check.detail
