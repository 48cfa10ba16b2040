"""Static checks on the real split graph, before anything runs (design note §4.2, V1-V7).

Each check looks at the graph (and at what the probe saw opaque ops do), never at the name of
the mode it is checking, except V2, which is vLLM's own configuration rule and is reported as
such. A finding names the node and the user-code line it came from.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import fx

from vllm_preflight.capture.opnames import ATTENTION_OP, MOE_OPS, short, unsplit
from vllm_preflight.capture.plan import VerifyPlan
from vllm_preflight.verify.host_sync import fx_host_copy
from vllm_preflight.verify.outcome import FAIL, INFO, PASS, SKIP, WARN, Check
from vllm_preflight.verify.probe import OpBehaviour, is_opaque, op_namespace
from vllm_preflight.verify.split import SplitGraph


def _free_unbacked_symbols() -> Callable[[Any], Iterable[Any]] | None:
    try:  # private but long-lived; guarded so an odd torch does not break verify
        from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
    except ImportError:  # pragma: no cover
        return None
    return free_unbacked_symbols


free_unbacked_symbols = _free_unbacked_symbols()

_FORBIDDEN = {"aten._local_scalar_dense", "aten._assert_scalar", "aten.item"}


@dataclass
class Finding:
    graph: str        # "piecewise" | "full"
    piece: str        # submod_<id> or "full graph"
    node: str
    what: str
    where: str = ""

    def line(self) -> str:
        at = f" ({self.where})" if self.where else ""
        return f"{self.piece}: {self.node}: {self.what}{at}"


@dataclass
class InputUse:
    piece: str
    input: str
    producer: str     # "model input" | "parameter" | "batch size" | "captured piece" | "eager piece"
    source: str       # the producing piece's name, or the placeholder
    tensors: int      # tensors inside (tuples flattened)
    unbacked: bool = False  # carries a data-dependent size or scalar


@dataclass
class StaticReport:
    checks: list[Check] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    inputs: list[InputUse] = field(default_factory=list)

    def failed(self, graph: str) -> bool:
        return any(c.failed for c in self.checks if c.graph in (graph, None))


def target_name(target) -> str:
    if isinstance(target, torch._ops.OpOverloadPacket):
        return target._qualified_op_name.split("::", 1)[-1]
    if isinstance(target, torch._ops.OpOverload):
        return target._schema.name.split("::", 1)[-1]
    return getattr(target, "__name__", str(target))


def _where(node: fx.Node) -> str:
    """The innermost user-code line that produced the node, as `file.py:LINE in fn`."""
    trace = (node.meta.get("stack_trace") or "").strip().splitlines()
    files = [ln.strip() for ln in trace if ln.strip().startswith("File ")]
    if not files:
        return ""
    m = re.match(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)', files[-1])
    return f"{os.path.basename(m['path'])}:{m['line']} in {m['fn']}" if m else files[-1]


def _symbols(value) -> set:
    if free_unbacked_symbols is None or value is None:
        return set()
    try:
        return set(free_unbacked_symbols(value))
    except Exception:  # noqa: BLE001 - a private torch helper on any example value: no symbols, not a crash
        return set()


def _new_unbacked(node: fx.Node) -> set:
    """Unbacked symbols this node introduces (a data-dependent size or a host-read scalar)."""
    mine = _symbols(node.meta.get("example_value"))
    for inp in node.all_input_nodes:
        mine -= _symbols(inp.meta.get("example_value"))
    return mine


def _unsafe_reasons(node: fx.Node, behaviour: dict[str, OpBehaviour]) -> list[str]:
    reasons = []
    host = fx_host_copy(node)
    if host is not None:
        reasons.append(f"host read / copy to the host: {host}")
    if node.op == "call_function":
        target = node.target
        if isinstance(target, torch._ops.OpOverload):
            tags = set(target.tags)
            for tag in ("cudagraph_unsafe", "dynamic_output_shape", "data_dependent_output"):
                t = getattr(torch.Tag, tag, None)
                if t is not None and t in tags:
                    reasons.append(f"op tagged {tag}")
            if f"{target.namespace}.{target._schema.name.split('::')[-1]}" in _FORBIDDEN:
                reasons.append(f"{target} is never capturable")
        elif isinstance(target, torch._ops.OpOverloadPacket):
            unsafe_tag = getattr(torch.Tag, "cudagraph_unsafe", None)
            if unsafe_tag is not None and unsafe_tag in set(target.default.tags):
                reasons.append("op tagged cudagraph_unsafe")
        if is_opaque(target) and node.name in behaviour and behaviour[node.name].unsafe:
            reasons.append("inside the op: " + behaviour[node.name].summary())
    new = _new_unbacked(node)
    if new:
        reasons.append("introduces unbacked symbol " + ", ".join(sorted(str(s) for s in new))
                       + " (a value read from the device decides a size or a scalar)")
    return reasons


def moe_nodes(gm: fx.GraphModule) -> set[str]:
    return {n.name for n in gm.graph.nodes
            if n.op == "call_function" and op_namespace(n.target) and target_name(n.target) in MOE_OPS}


def _units(graph: str, sg: SplitGraph) -> list[tuple[str, list[fx.Node]]]:
    """Captured units: each piece for piecewise; the whole forward for a FULL graph."""
    if graph == "full":
        return [("full graph", [n for n in sg.traced.gm.graph.nodes if n.op not in ("placeholder", "output")])]
    return [(p.name, p.nodes) for p in sg.captured]


def classify_inputs(sg: SplitGraph, placeholder_kinds: dict[str, str]) -> list[InputUse]:
    """Where each input of each captured piece comes from (design note V7): a model input (a
    static input buffer), a parameter, the batch size, a captured piece (stable in the graph pool)
    or an eager piece, which must hand back the same addresses every time."""
    part_name = {n: f"submod_{pid}" for n, pid in sg.part_of.items()}
    splitting = {p.name for p in sg.pieces if p.splitting}
    uses = []
    for piece in sg.captured:
        seen = set()
        for node in piece.nodes:
            for inp in node.all_input_nodes:
                if inp in seen or part_name.get(inp) == piece.name:
                    continue
                seen.add(inp)
                value = inp.meta.get("example_value")
                if inp.op == "placeholder":
                    kind = placeholder_kinds.get(inp.name, "const")
                    producer = {"input": "model input", "size": "batch size"}.get(kind, "parameter")
                    source = inp.name
                else:
                    source = part_name[inp]
                    producer = "eager piece" if source in splitting else "captured piece"
                flat = value if isinstance(value, (tuple, list)) else (value,)
                count = sum(1 for v in flat if isinstance(v, torch.Tensor))
                uses.append(InputUse(piece.name, inp.name, producer, source, count,
                                     unbacked=inp.op != "placeholder" and bool(_symbols(value))))
    return uses


def check_names(sg: SplitGraph, plan: VerifyPlan) -> Check:
    """V1 proves that every configured name the toy's calls depend on splits where the config
    says, matched as `plan`'s release matches names (split.resolve_names). It FAILs when a
    MoE or attention entry resolves to nothing and no other entry splits that op (the op then
    stays inside a captured piece although the config lists it), e.g. `vllm::moe_forward.default`
    on 0.11.1+ or a dotted name; other dead entries are reported. Control: N6 plants the
    overload-qualified MoE name and requires V1 to fail."""
    dropped = sg.resolved.dropped
    split_ops = {short(n) for n in sg.resolved.kept}
    detail = (f"{len(sg.resolved.kept)} of {len(plan.splitting_ops)} names resolve"
              + ("; dropped as vLLM drops them: " + "; ".join(f"{n} ({why})" for n, why in dropped) if dropped else ""))
    lost = [n for n, _ in dropped if short(n) in MOE_OPS + (ATTENTION_OP,) and short(n) not in split_ops]
    redundant = [n for n, _ in dropped if short(n) in MOE_OPS + (ATTENTION_OP,) and short(n) in split_ops]
    if lost:
        detail = (f"listed but never split, so the op stays inside a captured piece: {', '.join(lost)}; " + detail)
    status = FAIL if lost else WARN if redundant else PASS
    return Check("V1", "splitting op names resolve", status, detail,
                 {"kept": list(sg.resolved.kept), "dropped": [n for n, _ in dropped], "lost": lost})


def check_ht_full(plan: VerifyPlan) -> Check:
    """V2 is vLLM's own rule for DeepEP-HT with DP>1: the MoE ops split out (entries matched as
    the release matches them, `opnames.unsplit`), and no FULL graph at all. check's VP301 reads
    the same rule. Controls: N1 (MoE left out) and the P1 cross-check of the plan's FULL half."""
    if not plan.ht:
        return Check("V2", "DeepEP-HT graph rule", SKIP, "MoE does not use DeepEP high-throughput here")
    problems = []
    if plan.full:
        problems.append(f"cudagraph_mode {plan.cudagraph_mode} captures a FULL graph around the whole "
                        "forward, DeepEP-HT dispatch included: its host wait on the receive counts cannot "
                        "finish under capture (DeepEP 'CPU recv timeout', or a crash)")
    if plan.piecewise:
        missing = unsplit(MOE_OPS, plan.splitting_ops, plan.name_matching)
        if missing:
            problems.append("splitting_ops do not split at " + ", ".join(f"vllm::{m}" for m in missing))
    if problems:
        return Check("V2", "DeepEP-HT graph rule", FAIL, "; ".join(problems), graph="full" if plan.full else None)
    return Check("V2", "DeepEP-HT graph rule", PASS, "MoE ops are split points and no FULL graph is captured")


def check_graph(graph: str, sg: SplitGraph, behaviour: dict[str, OpBehaviour],
                placeholder_kinds: dict[str, str]) -> StaticReport:
    """V3-V7 for one graph kind, each on the split graph itself:

    - V3 proves PIECEWISE splits at every attention call (vLLM's dispatcher asserts it); the
      mutation test `attention-not-split` shows it failing.
    - V4 proves nothing uncapturable sits inside a captured unit: host reads and copies to the
      host in traced code (FX scan), ops tagged unsafe or data-dependent, new unbacked symbols,
      and what the probe saw inside opaque ops (dispatch-level reads and data-dependent sizes,
      torch-function-level `.cpu()` / `.tolist()` / `bool(t)`). Controls N1, N2 and N7.
    - V5 proves no data-dependent size or scalar crosses into a captured piece (the mutation
      test `host-read-in-toy` plants one).
    - V6, V7 (info) describe the split and the inputs that rely on the address contract; they
      cannot fail, so they are never counted as passed."""
    rep = StaticReport()
    units = _units(graph, sg)
    # V3 (piecewise only): vLLM's dispatcher asserts that PIECEWISE splits at every attention op.
    if graph == "piecewise":
        inside = [Finding(graph, name, n.name, "attention op inside a captured piece", _where(n))
                  for name, nodes in units for n in nodes
                  if n.op == "call_function" and op_namespace(n.target) and target_name(n.target) == ATTENTION_OP]
        rep.findings += inside
        rep.checks.append(Check("V3", "attention ops are split points", FAIL if inside else PASS,
                                "; ".join(f.line() for f in inside) or "every attention call runs between pieces",
                                graph=graph))
    # V4: nothing unsafe inside a captured unit.
    unsafe = [Finding(graph, name, n.name, "; ".join(r), _where(n))
              for name, nodes in units for n in nodes for r in [_unsafe_reasons(n, behaviour)] if r]
    rep.findings += unsafe
    rep.checks.append(Check("V4", "nothing uncapturable inside a captured graph", FAIL if unsafe else PASS,
                            "; ".join(f.line() for f in unsafe) or
                            f"{len(units)} captured unit(s), no host reads or data-dependent sizes",
                            {"findings": len(unsafe)}, graph=graph))
    if graph == "full":
        return rep
    # V5-V7 look at what crosses piece boundaries.
    rep.inputs = classify_inputs(sg, placeholder_kinds)
    unbacked_inputs = [Finding(graph, u.piece, u.input, "takes an unbacked (data-dependent) size or scalar as input")
                       for u in rep.inputs if u.unbacked]
    rep.findings += unbacked_inputs
    rep.checks.append(Check("V5", "no data-dependent sizes flow into captured pieces",
                            FAIL if unbacked_inputs else PASS,
                            "; ".join(f.line() for f in unbacked_inputs) or "none", graph=graph))
    # V6 and V7 describe the split; nothing independent stands behind them that could disagree,
    # so they are information, never counted as passed checks.
    rep.checks.append(Check(
        "V6", "piece accounting", INFO,
        f"{sg.call_sites} split call sites -> expected {sg.expected_pieces} pieces (2S+1 less empty), "
        f"split_module made {sg.actual_pieces}; {len(sg.captured)} captured per size",
        {"call_sites": sg.call_sites, "expected": sg.expected_pieces, "actual": sg.actual_pieces,
         "captured": len(sg.captured)}, graph=graph))
    contract = [u for u in rep.inputs if u.producer == "eager piece"]
    tuples = [u for u in contract if u.tensors > 1]
    detail = (f"{len(contract)} captured-piece inputs come from eager pieces and rely on the address "
              f"contract (checked at replay)")
    if tuples:
        detail += (f"; {len(tuples)} of them are tuples ({', '.join(f'{u.piece}<-{u.input}' for u in tuples)}), "
                   "which vLLM's debug address check does not look inside")
    rep.checks.append(Check("V7", "inputs of captured pieces classified", INFO, detail,
                            {"eager_inputs": len(contract), "tuple_inputs": len(tuples)}, graph=graph))
    return rep
