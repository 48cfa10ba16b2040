"""Routing flips after padding: counted, and tolerated only where a near tie explains them.

A padded batch runs other kernels than the unpadded one (a GEMM picks its tiling by the row
count), so the router logits of the real rows can differ in the last bits. Where two experts'
router probabilities are nearly tied, that is enough to route a token to another expert: a
correct graph then differs from eager by far more than the dtype's tolerance, on that token
and, through attention, on the rows after it. `compare_with_flips` accepts such a difference
only when the routing of both runs (recorded in the toy's MoE layers) shows it:

- every token whose expert set differs is a near tie in the reference run: the gap between the
  k-th and (k+1)-th router probability is at most `TIE_GAP[dtype]` (bf16: 2**-6, a few bf16
  roundings of O(1) logits; fp16 2**-9; fp32 2**-16);
- at most `allowance(n)` = max(1, n // 16) flipped tokens per comparison;
- no row before the first flipped token differs beyond the tolerance (causal attention: a flip
  cannot reach earlier rows).

Anything else stays a FAIL. Each tolerated flip is counted (`Comparison.flips`, the checks'
`routing_flips` metric) and named in the detail.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import torch

from vllm_preflight.verify.compare import CLOSE, MISMATCH, TOLERANCES, Comparison, compare

TIE_GAP = {torch.bfloat16: 2.0 ** -6, torch.float16: 2.0 ** -9, torch.float32: 2.0 ** -16}
# the MoE layers append (layer name, topk_idx [T, K], router probabilities [T, E]) to every
# log in here while it is active
ACTIVE: list[RoutingLog] = []


def allowance(n: int) -> int:
    return max(1, n // 16)


@dataclass
class RoutingLog:
    calls: list[tuple[str, torch.Tensor, torch.Tensor]] = field(default_factory=list)


def note(layer: str, topk_idx: torch.Tensor, router_logits: torch.Tensor) -> None:
    """Called by the toy's MoE layer with its routing (a no-op unless a log is active)."""
    if not ACTIVE:
        return
    probs = torch.softmax(router_logits.detach().float(), dim=-1)
    for log in ACTIVE:
        log.calls.append((layer, topk_idx.detach().clone(), probs.clone()))


@contextlib.contextmanager
def recording():
    log = RoutingLog()
    ACTIVE.append(log)
    try:
        yield log
    finally:
        ACTIVE.remove(log)


@dataclass
class Flips:
    tokens: list[int] = field(default_factory=list)       # flipped token rows (first n), sorted
    not_ties: list[str] = field(default_factory=list)     # flips no near tie explains
    decisions: int = 0                                     # (layer, token) decisions compared


def flips(reference: RoutingLog, other: RoutingLog, n: int, dtype: torch.dtype) -> Flips:
    """Tokens among the first `n` routed to another expert set in `other` than in `reference`."""
    out = Flips()
    gap_limit = TIE_GAP.get(dtype, TIE_GAP[torch.float32])
    tokens: set[int] = set()
    for (layer, a, probs), (_, b, _) in zip(reference.calls, other.calls):
        k = a.shape[1]
        same = torch.sort(a[:n], dim=1).values == torch.sort(b[:n], dim=1).values
        differing = (~same.all(dim=1)).nonzero().flatten().tolist()
        out.decisions += min(n, a.shape[0])
        top = torch.topk(probs[:n], min(k + 1, probs.shape[1]), dim=1).values
        for t in differing:
            tokens.add(t)
            gap = float(top[t, k - 1] - top[t, k]) if top.shape[1] > k else float("inf")
            if gap > gap_limit:
                out.not_ties.append(f"{layer} token {t} (probability gap {gap:.2e} > {gap_limit:.2e})")
    out.tokens = sorted(tokens)
    return out


def compare_with_flips(actual: torch.Tensor, expected: torch.Tensor, found: Flips) -> Comparison:
    """`compare`, except that a FAIL explained by few near-tie routing flips is CLOSE (counted)."""
    base = compare(actual, expected)
    if base.level != MISMATCH or not found.tokens or actual.shape != expected.shape or actual.dim() != 2:
        return base
    n = actual.shape[0]
    if found.not_ties:
        return Comparison(MISMATCH, base.max_abs, base.calc_diff,
                          base.reason + "; routing flips without a near tie: " + "; ".join(found.not_ties[:2]))
    if len(found.tokens) > allowance(n):
        return Comparison(MISMATCH, base.max_abs, base.calc_diff,
                          base.reason + f"; {len(found.tokens)} tokens routed differently, more than the "
                                        f"{allowance(n)} allowed for {n} rows")
    rtol, atol, _ = TOLERANCES.get(actual.dtype, TOLERANCES[torch.float32])
    a, b = actual.detach().cpu().double(), expected.detach().cpu().double()
    bad_rows = ((a - b).abs() > atol + rtol * b.abs()).any(dim=1).nonzero().flatten().tolist()
    first = found.tokens[0]
    early = [r for r in bad_rows if r < first]
    if early:
        return Comparison(MISMATCH, base.max_abs, base.calc_diff,
                          base.reason + f"; row {early[0]} differs before the first routing flip (token {first})")
    return Comparison(CLOSE, base.max_abs, base.calc_diff,
                      f"{len(bad_rows)} rows beyond tolerance after {len(found.tokens)} routing flip(s) at near "
                      f"ties (tokens {', '.join(map(str, found.tokens))}): tolerated and counted",
                      flips=len(found.tokens))
