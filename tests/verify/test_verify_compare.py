from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from vllm_preflight.verify.compare import CLOSE, EXACT, MISMATCH, calc_diff, compare, self_test


def test_levels():
    a = torch.randn(4, 8)
    assert compare(a.clone(), a).level == EXACT
    assert compare(a + 1e-7, a).level == CLOSE
    assert compare(a + 1e-2, a).level == MISMATCH


def test_bf16_uses_bf16_tolerances():
    a = torch.randn(4, 8).to(torch.bfloat16)
    nudged = a.clone()
    nudged[0, 0] += 0.004  # one bf16 ulp near 1: inside rtol 1.6e-2 + atol 1e-2
    assert compare(nudged, a).level in (CLOSE, EXACT)


def test_shape_dtype_and_nonfinite_fail_first():
    a = torch.randn(4, 8)
    assert compare(a[:2], a).level == MISMATCH
    assert compare(a.double(), a).level == MISMATCH
    bad = a.clone()
    bad[1, 1] = float("nan")
    assert compare(bad, bad).reason == "non-finite values"


def test_calc_diff_is_zero_for_equal_and_positive_otherwise():
    a = torch.randn(16)
    assert calc_diff(a, a) == pytest.approx(0.0, abs=1e-15)
    assert calc_diff(a, -a) > 0.1


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_self_test_catches_one_perturbed_element(dtype):
    ok, detail = self_test(torch.randn(8, 16).to(dtype))
    assert ok, detail


def test_a_fail_after_five_close_results_is_a_fail_not_a_warning():
    """Tally counts every comparison by level; the verdict never reads the 5 kept examples."""
    from vllm_preflight.verify.compare import CLOSE, EXACT, MISMATCH, Comparison
    from vllm_preflight.verify.outcome import FAIL, WARN
    from vllm_preflight.verify.replay import AddressLog, ReplayResult, Tally
    from vllm_preflight.verify.tiers.common import replay_checks

    t = Tally(EXACT)
    for i in range(5):
        t.note(f"close {i}", Comparison(CLOSE, 1e-7, 0.0))
    t.note("the fail", Comparison(MISMATCH, 3.0, 1.0))
    assert len(t.failures) == 5 and t.mismatches == 1 and not t.close_only and not t.ok
    res = ReplayResult(replay=t)
    (check,) = replay_checks(("A3", "A4"), res, AddressLog(), "piecewise", "float32", "emulated piecewise")
    assert check.status == FAIL
    only_close = Tally(EXACT)
    for i in range(6):
        only_close.note(f"close {i}", Comparison(CLOSE, 1e-7, 0.0))
    (warn,) = replay_checks(("A3", "A4"), ReplayResult(replay=only_close), AddressLog(), "piecewise", "float32", "x")
    assert warn.status == WARN
