"""What "matches eager" means (design note §4.6): EXACT, CLOSE or FAIL, never a bare allclose.

Every comparison first requires the same shape and dtype and all-finite values; then EXACT is a
max abs difference of 0, and CLOSE needs `|a-b| <= atol + rtol*|b|` everywhere plus DeepEP's
`calc_diff` under the dtype's threshold.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

EXACT, CLOSE, MISMATCH = "EXACT", "CLOSE", "FAIL"

# dtype -> (rtol, atol, calc_diff limit). Fixed per dtype, never scaled at run time:
# - bfloat16: rtol 1.6e-2 is torch.testing's default for bf16 (8 mantissa bits: one rounding is
#   about 2**-9 relative, a few roundings in a sum stay under 1.6e-2); atol 1e-2 is meaningful
#   because the toy keeps activations O(1) (RMSNorm); calc_diff 1e-4 gives ~10x headroom over the
#   ~1e-5 that bf16 rounding of O(1) values produces.
# - float16: 10 mantissa bits, 4x finer than bf16 plus headroom: 1e-3 / 1e-3 / 1e-5.
# - float32: different summation orders (R virtual ranks, padding) differ by a few ulp of O(1)
#   values (~1e-7); 1e-5 leaves 100x headroom and still catches any real routing error.
DOCUMENTED_TOLERANCES = {
    torch.float32: (1e-5, 1e-5, 1e-9),
    torch.bfloat16: (1.6e-2, 1e-2, 1e-4),
    torch.float16: (1e-3, 1e-3, 1e-5),
}
# The tolerances compare() applies. N0 perturbs by a fixed amount beyond the DOCUMENTED bound,
# so a loosened entry here is caught by N0 instead of silently widening every check.
TOLERANCES = dict(DOCUMENTED_TOLERANCES)
# N0's perturbation, in units of the documented elementwise bound (atol + rtol*|x|).
SELF_TEST_BEYOND = 2.0


@dataclass(frozen=True)
class Comparison:
    level: str
    max_abs: float
    calc_diff: float
    reason: str = ""
    flips: int = 0  # routing flips at near ties this comparison tolerated (routing.py)

    def at_least(self, wanted: str) -> bool:
        order = {MISMATCH: 0, CLOSE: 1, EXACT: 2}
        return order[self.level] >= order[wanted]

    def to_json(self) -> dict:
        return {"level": self.level, "max_abs": self.max_abs, "calc_diff": self.calc_diff, "reason": self.reason}


def calc_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    """DeepEP's similarity metric: both shifted by +1 in float64, 1 - 2*sum(xy)/sum(x^2+y^2)."""
    x, y = a.double() + 1, b.double() + 1
    denom = (x * x + y * y).sum()
    return float(1 - 2 * (x * y).sum() / denom) if denom > 0 else 0.0


def compare(actual: torch.Tensor, expected: torch.Tensor) -> Comparison:
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return Comparison(MISMATCH, float("inf"), float("inf"),
                          f"shape/dtype {tuple(actual.shape)} {actual.dtype} "
                          f"vs {tuple(expected.shape)} {expected.dtype}")
    a, b = actual.detach().cpu(), expected.detach().cpu()
    if not bool(torch.isfinite(a).all()) or not bool(torch.isfinite(b).all()):
        return Comparison(MISMATCH, float("inf"), float("inf"), "non-finite values")
    if a.numel() == 0:
        return Comparison(EXACT, 0.0, 0.0)
    diff = (a.double() - b.double()).abs()
    max_abs = float(diff.max())
    cd = calc_diff(a, b)
    if max_abs == 0.0:
        return Comparison(EXACT, 0.0, cd)
    rtol, atol, cd_limit = TOLERANCES.get(a.dtype, TOLERANCES[torch.float32])
    bad = int((diff > atol + rtol * b.double().abs()).sum())
    if bad == 0 and cd <= cd_limit:
        return Comparison(CLOSE, max_abs, cd)
    return Comparison(MISMATCH, max_abs, cd, f"{bad} elements outside atol {atol:g} + rtol {rtol:g}"
                      + ("" if cd <= cd_limit else f"; calc_diff {cd:.2e} > {cd_limit:g}"))


def self_test(sample: torch.Tensor) -> tuple[bool, str]:
    """The comparator must not be vacuous, nor its tolerance loose: an identical copy must be EXACT,
    one element moved by half the documented bound must be CLOSE, and one element moved by
    SELF_TEST_BEYOND times the documented bound (a fixed amount, whatever tolerance is in force)
    must FAIL."""
    rtol, atol, _ = DOCUMENTED_TOLERANCES.get(sample.dtype, DOCUMENTED_TOLERANCES[torch.float32])
    same = compare(sample.clone(), sample)

    def moved(factor: float) -> Comparison:
        bent = sample.clone()
        flat = bent.view(-1)
        i = flat.numel() // 2
        flat[i] += factor * (atol + rtol * float(flat[i].abs()))
        return compare(bent, sample)

    inside, beyond = moved(0.5), moved(SELF_TEST_BEYOND)
    ok = same.level == EXACT and inside.level == CLOSE and beyond.level == MISMATCH
    return ok, (f"identical copy: {same.level}; one element moved by 0.5x the documented bound: {inside.level}; "
                f"by {SELF_TEST_BEYOND:g}x: {beyond.level} (max abs {beyond.max_abs:.3g})")
