"""Controls on the plan itself (no torch): the plan must capture what the resolved mode says, and
verify must tell the story `check` tells.

Every run-time check verifies the graphs the plan lists, so a plan that quietly drops one (the
FULL half of FULL_AND_PIECEWISE, say) would let a FULL graph around DeepEP-HT pass while
`check` reports VP301. P1 re-derives the graph kinds from vLLM's own decomposition of
`cudagraph_mode` (`CUDAGraphMode.decode_mode()` / `mixed_mode()`: FULL_DECODE_ONLY is (FULL,
NONE), FULL_AND_PIECEWISE is (FULL, PIECEWISE)), independently of `plan.py`; P2 requires
`check`'s VP301 and verify's V2 to agree on the same resolution.
"""
from __future__ import annotations

from vllm_preflight.capture.plan import VerifyPlan
from vllm_preflight.verify.outcome import FAIL, PASS, SKIP, Check

# vLLM's CUDAGraphMode as (decode mode, mixed mode); the single modes are both.
MODE_PARTS = {
    "NONE": ("NONE", "NONE"), "PIECEWISE": ("PIECEWISE", "PIECEWISE"), "FULL": ("FULL", "FULL"),
    "FULL_DECODE_ONLY": ("FULL", "NONE"), "FULL_AND_PIECEWISE": ("FULL", "PIECEWISE"),
}
_BY_VALUE = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


def _mode_name(value) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _BY_VALUE[value] if 0 <= value < len(_BY_VALUE) else None
    text = str(value).rsplit(".", 1)[-1].strip().upper()
    return text if text in MODE_PARTS else None


def expected_graphs(resolved: dict) -> tuple[set[str], str]:
    """The graph kinds vLLM captures for `resolved`, read directly from the settings."""
    cc = resolved.get("compilation_config") or {}
    runtime = resolved.get("runtime")
    runtime = runtime if isinstance(runtime, dict) else {}
    raw = runtime.get("cudagraph_mode") or cc.get("cudagraph_mode")
    mode = _mode_name(raw if raw is not None else "NONE") or "?"
    parts = set(MODE_PARTS.get(mode, ()))
    kinds: set[str] = set()
    if not cc.get("cudagraph_capture_sizes"):
        return kinds, mode
    if "FULL" in parts:
        kinds.add("full")
    compile_mode = str(cc.get("mode", "NONE")).rsplit(".", 1)[-1].upper()
    if "PIECEWISE" in parts and compile_mode in ("VLLM_COMPILE", "3"):
        kinds.add("piecewise")  # pieces exist only where vLLM's own backend split the graph
    return kinds, mode


def plan_covers_modes(plan: VerifyPlan, resolved: dict) -> Check:
    """P1 proves the plan lists every graph the resolved cudagraph_mode captures (and no other):
    the run-time checks verify only what the plan lists. Control: the mutation tests plant a
    plan that drops the FULL half of FULL_AND_PIECEWISE and require P1 to fail."""
    want, mode = expected_graphs(resolved)
    got = set(plan.graph_kinds)
    ok = want == got
    detail = (f"cudagraph_mode {mode}: vLLM captures {', '.join(sorted(want)) or 'nothing'}; "
              f"the plan verifies {', '.join(sorted(got)) or 'nothing'}")
    if not ok:
        missing, extra = want - got, got - want
        detail = ("the plan " + "; ".join(
            ([f"drops the {', '.join(sorted(missing))} graph(s)"] if missing else [])
            + ([f"adds {', '.join(sorted(extra))}"] if extra else [])) + ": " + detail)
    return Check("P1", "the plan captures what cudagraph_mode captures", PASS if ok else FAIL, detail,
                 {"expected": sorted(want), "planned": sorted(got)})


def agrees_with_check(checks: list[Check], findings: list[dict] | None) -> Check:
    """P2 proves verify and `check` tell one story on the same resolution: `check`'s VP301 (a
    CUDA graph holds the DeepEP-HT dispatch) fires exactly when verify's V2 fails. Control: a
    plan that drops the FULL half makes them disagree (mutation tests)."""
    if findings is None:
        return Check("P2", "verify and check agree (VP301 <-> V2)", SKIP, "no check findings for this resolution")
    vp301 = any(f.get("rule") == "VP301" for f in findings)
    v2 = [c for c in checks if c.id == "V2"]
    v2_failed = any(c.failed for c in v2)
    if not v2 and not vp301:
        return Check("P2", "verify and check agree (VP301 <-> V2)", PASS,
                     "nothing is captured: check reports no VP301 and verify has no graph to fail")
    ok = vp301 == v2_failed
    detail = (f"check {'reports' if vp301 else 'does not report'} VP301; verify's V2 "
              f"{'fails' if v2_failed else 'passes' if v2 else 'did not run'}")
    return Check("P2", "verify and check agree (VP301 <-> V2)", PASS if ok else FAIL,
                 detail if ok else "they disagree: " + detail, {"vp301": vp301, "v2_failed": v2_failed})
