"""`--vs A B`: what changes between two targets, cell by cell, field by field, with the rule ids
that explain each side (the upgrade advisor)."""
from __future__ import annotations

from dataclasses import dataclass

from vllm_preflight.differences import flatten
from vllm_preflight.matrix import outcome as oc

# long lists (the max speaks for them), the runtime stage's bookkeeping, and its copy of the config value
SKIP = {"compilation_config.cudagraph_capture_sizes", "runtime.cudagraph_capture_sizes", "runtime.stage",
        "runtime.assumptions", "runtime.source", "runtime.evidence", "runtime.events", "runtime.depends_on",
        "runtime.config_cudagraph_mode"}


@dataclass(frozen=True)
class Change:
    field: str
    a: str
    b: str
    rules_a: tuple[str, ...]
    rules_b: tuple[str, ...]

    def text(self, la: str, lb: str) -> str:
        why = []
        if self.rules_a:
            why.append(f"{la}: {', '.join(self.rules_a)}")
        if self.rules_b:
            why.append(f"{lb}: {', '.join(self.rules_b)}")
        return f"{self.field}: {self.a} → {self.b}" + (f"  ({'; '.join(why)})" if why else "")


_FIRST = ("vllm", "compilation_config.cudagraph_mode", "hazards", "compilation_config.mode",
          "compilation_config.splitting_ops", "compilation_config.use_inductor_graph_partition")


def _weight(field: str) -> int:
    """The fields a deployer reads first come first in the summary."""
    return _FIRST.index(field) if field in _FIRST else len(_FIRST)


def _short(v) -> str:
    if isinstance(v, list) and len(v) > 4:
        return "[" + ", ".join(map(str, v[:3])) + f", … {len(v)} items]"
    return str(v)


def _view(row: dict) -> dict:
    view = {"vllm": (row.get("vllm_error") or {}).get("type") or "starts",
            "hazards": ", ".join(oc.hazard_ids(row)) or "-"}
    if row.get("resolved"):
        view.update({k: v for k, v in flatten(row["resolved"]).items() if k not in SKIP})
    return view


def _rules(row: dict, field: str) -> tuple[str, ...]:
    if field == "vllm":
        return ("vllm.refuses",) if row.get("vllm_error") else ()
    if field == "hazards":
        return oc.hazard_ids(row)
    return tuple(dict.fromkeys(e["rule"] for e in row.get("events") or []
                               if e.get("field") and (field == e["field"] or field.startswith(e["field"] + "."))))


def _list_change(x: list, y: list) -> tuple[str, str]:
    """Lists read as what each side has that the other lacks."""
    only_x = [v for v in x if v not in y]
    only_y = [v for v in y if v not in x]
    if not only_x and not only_y:
        return _short(x), _short(y) + " (order)"
    return ("- " + ", ".join(map(str, only_x)) if only_x else "…"), ("+ " + ", ".join(map(str, only_y)) if only_y else "…")


def changes(a: dict, b: dict) -> tuple[Change, ...]:
    va, vb = _view(a), _view(b)
    out = []
    for k in list(dict.fromkeys(list(va) + list(vb))):
        x, y = va.get(k, "-"), vb.get(k, "-")
        if x != y and not ({x, y} <= {None, "-"} if not isinstance(x, list) and not isinstance(y, list) else False):
            # a field one release lacks and the other leaves at None is no change a deployer sees
            sx, sy = _list_change(x, y) if isinstance(x, list) and isinstance(y, list) else (_short(x), _short(y))
            out.append(Change(k, sx, sy, _rules(a, k), _rules(b, k)))
    return tuple(sorted(out, key=lambda c: _weight(c.field)))


@dataclass
class Comparison:
    a: str
    b: str
    total: int
    changed: list[tuple[dict, dict, tuple[Change, ...]]]  # (row a, row b, changes)
    only_a: int
    only_b: int

    def summary(self) -> list[str]:
        n = len(self.changed)
        lines = [f"{self.a} → {self.b}: {n} of {self.total} cell{'s' if self.total != 1 else ''} change"
                 + (":" if n else "")]
        by_field: dict[str, int] = {}
        for _, _, ch in self.changed:
            for c in ch:
                by_field[c.field] = by_field.get(c.field, 0) + 1
        if by_field:
            ranked = sorted(by_field.items(), key=lambda x: (-x[1], _weight(x[0])))
            shown = ", ".join(f"{f.removeprefix('compilation_config.')} in {k}" for f, k in ranked[:6])
            lines.append("  " + shown + (f", and {len(ranked) - 6} more fields" if len(ranked) > 6 else ""))
        lines += self._pr_sentence()
        if self.only_a or self.only_b:
            lines.append(f"  cells only one side has (a value one release lacks): {self.a} {self.only_a}, "
                         f"{self.b} {self.only_b}")
        return lines

    def _pr_sentence(self) -> list[str]:
        if "pr29558" not in (self.a, self.b):
            return []
        pr_is_b = self.b == "pr29558"
        rel, pr = (self.a, self.b) if pr_is_b else (self.b, self.a)
        kept = hazardous = 0
        for ra, rb, _ in self.changed:
            r_rel, r_pr = (ra, rb) if pr_is_b else (rb, ra)
            if oc.of(r_rel).status == "off" and oc.of(r_pr).status in ("on", "hazard"):
                kept += 1
                if "VP301" in oc.hazard_ids(r_pr):
                    hazardous += 1
        return [(f"  {pr} keeps graphs in {kept} cell{'s' if kept != 1 else ''} where {rel} turns them off, "
                 f"and puts a FULL graph around the HT dispatch in {hazardous} of them (VP301)")]


def compare(rows_a: list[dict], rows_b: list[dict], a: str, b: str) -> Comparison:
    def key(r):
        return tuple(sorted(r["axes"].items()))
    ib = {key(r): r for r in rows_b}
    ia = {key(r): r for r in rows_a}
    common = [k for k in ia if k in ib]
    changed = []
    for k in common:
        ch = changes(ia[k], ib[k])
        if ch:
            changed.append((ia[k], ib[k], ch))
    return Comparison(a, b, len(common), changed, len(ia) - len(common), len(ib) - len(common))


def lines(cmp: Comparison, axes: tuple[str, ...], fold: bool = True) -> list[str]:
    """The summary, then each changed cell (folded over the axes) with its changes."""
    from vllm_preflight.matrix import fold as fold_mod
    from vllm_preflight.matrix.table import axis_values

    out = cmp.summary()
    if not cmp.changed:
        return out
    entries = [({fold_mod.RELEASE: cmp.b, **ra["axes"]}, ch, None) for ra, rb, ch in cmp.changed]
    targets = [t for t in (cmp.a, cmp.b)]
    groups = fold_mod.fold(entries, axes, [cmp.b], lambda ax, ts: axis_values(ax, targets)) if fold and axes else \
        [fold_mod.Group({fold_mod.RELEASE: (cmp.b,), **{a: (e[0][a],) for a in axes}}, e[1]) for e in entries]
    for g in groups:
        where = ", ".join(f"{a}={fold_mod.values_text(g.coords[a], axis_values(a, targets))}" for a in axes)
        out.append(f"- {where or 'the deployment'}:")
        out += [f"    {c.text(cmp.a, cmp.b)}" for c in g.sig]
    return out


def to_json(cmp: Comparison) -> dict:
    return {"a": cmp.a, "b": cmp.b, "cells": cmp.total, "changed": len(cmp.changed),
            "summary": cmp.summary(),
            "cells_changed": [{"axes": ra["axes"], "changes": [
                {"field": c.field, "a": c.a, "b": c.b, "rules_a": list(c.rules_a), "rules_b": list(c.rules_b)}
                for c in ch]} for ra, rb, ch in cmp.changed]}
