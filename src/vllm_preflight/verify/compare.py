"""What "matches eager" means (design note §4.6): EXACT, CLOSE or FAIL, never a bare allclose.

Every comparison first requires the same shape and dtype and all-finite values; then EXACT is a
max abs difference of 0, and CLOSE needs `|a-b| <= atol + rtol*|b|` everywhere plus DeepEP's
`calc_diff` under the dtype's threshold.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

EXACT, CLOSE, MISMATCH = "EXACT", "CLOSE", "FAIL"

# dtype -> (rtol, atol, calc_diff limit)
TOLERANCES = {
    torch.float32: (1e-5, 1e-5, 1e-9),
    torch.bfloat16: (1.6e-2, 1e-2, 1e-4),
    torch.float16: (1e-3, 1e-3, 1e-5),
}


@dataclass(frozen=True)
class Comparison:
    level: str
    max_abs: float
    calc_diff: float
    reason: str = ""

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
    """The comparator must not be vacuous: one element moved by ten times its tolerance has to
    FAIL, and the unperturbed copy has to be EXACT."""
    rtol, atol, _ = TOLERANCES.get(sample.dtype, TOLERANCES[torch.float32])
    same = compare(sample.clone(), sample)
    bent = sample.clone()
    flat = bent.view(-1)
    i = flat.numel() // 2
    flat[i] += 10 * (atol + rtol * float(flat[i].abs()))
    moved = compare(bent, sample)
    ok = same.level == EXACT and moved.level == MISMATCH
    return ok, f"identical copy: {same.level}; one element moved: {moved.level} (max abs {moved.max_abs:.3g})"
