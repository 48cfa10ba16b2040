"""`--vs A B`: what changes between two targets, cell by cell, field by field, with the rule ids
that explain each side (the upgrade advisor)."""
from __future__ import annotations

from dataclasses import dataclass, field

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
    pairs: list[tuple[dict, dict]] = field(default_factory=list)  # every cell both sides have

    def head(self) -> str:
        n = len(self.changed)
        return f"{self.a} → {self.b}: {n} of {self.total} cell{'s' if self.total != 1 else ''} change" + \
            (":" if n else "")

    def summary(self) -> list[str]:
        lines = [self.head()]
        by_field: dict[str, int] = {}
        for _, _, ch in self.changed:
            for c in ch:
                by_field[c.field] = by_field.get(c.field, 0) + 1
        if by_field:
            ranked = sorted(by_field.items(), key=lambda x: (-x[1], _weight(x[0])))
            shown = ", ".join(f"{f.removeprefix('compilation_config.')} in {k}" for f, k in ranked[:6])
            lines.append("  " + shown + (f", and {len(ranked) - 6} more fields" if len(ranked) > 6 else ""))
        return lines + self.tail()

    def tail(self) -> list[str]:
        lines = self._pr_sentence()
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
    return Comparison(a, b, len(common), changed, len(ia) - len(common), len(ib) - len(common),
                      [(ia[k], ib[k]) for k in common])


# the settings a deployer reads first, said changed or unchanged explicitly, in this order
KEY_SETTINGS = ("compile mode", "cudagraph_mode", "capture sizes", "runtime cudagraph_mode")
# the fields each key setting speaks for: not repeated among the other changes when said for every cell
_FIELDS_OF = {"compile mode": ("compilation_config.mode", "compilation_config.level"),
              "cudagraph_mode": ("compilation_config.cudagraph_mode",),
              "capture sizes": ("compilation_config.max_cudagraph_capture_size", "runtime.max_cudagraph_capture_size"),
              "runtime cudagraph_mode": ("runtime.cudagraph_mode",)}
LEGEND = ("Legend: `A → B` is the value on {a}, then on {b}; `-` means that release has no such field; "
          "`None` means vLLM leaves the field unset (it decides later, or never uses it); in a list, `- x` "
          "are entries only {a} has and `+ x` entries only {b} has, `…` nothing on that side, `(order)` the "
          "same entries in another order; `[a, b, … N items]` is a long list cut short; parentheses name the "
          "rules of the resolver that set the value on each side (`vllm-preflight check -v` shows them).")


def _sizes(row: dict) -> str:
    cc = (row.get("resolved") or {}).get("compilation_config") or {}
    sizes = cc.get("cudagraph_capture_sizes")
    top = cc.get("max_cudagraph_capture_size")
    if not row.get("resolved"):
        return "-"
    if isinstance(sizes, list) and sizes:
        return f"{len(sizes)} sizes, up to {max(sizes)}"
    return f"up to {top}" if top is not None else "none"


def key_values(row: dict) -> dict[str, str]:
    """The key settings of one cell, as the table shows them (a refused cell: `refused`)."""
    if not row.get("resolved"):
        return {k: "refused" for k in KEY_SETTINGS}
    cc = row["resolved"]["compilation_config"]
    runtime = (row["resolved"].get("runtime") or {}).get("cudagraph_mode")
    mode = cc.get("mode", cc.get("level"))
    return {"compile mode": str(mode), "cudagraph_mode": str(cc.get("cudagraph_mode")),
            "capture sizes": _sizes(row), "runtime cudagraph_mode": str(runtime) if runtime else "not modelled"}


def key_lines(cmp: Comparison) -> list[dict]:
    """Per key setting: how many cells change it, and the values when all cells agree."""
    out = []
    for name in KEY_SETTINGS:
        values = [(key_values(ra)[name], key_values(rb)[name]) for ra, rb in cmp.pairs]
        changed = sum(1 for x, y in values if x != y)
        distinct = list(dict.fromkeys(values))
        out.append({"setting": name, "cells": len(values), "changed_cells": changed,
                    "a": distinct[0][0] if len(distinct) == 1 else None,
                    "b": distinct[0][1] if len(distinct) == 1 else None})
    return out


def _key_text(k: dict, a: str, b: str) -> str:
    name = k["setting"].ljust(max(len(s) for s in KEY_SETTINGS))
    if not k["changed_cells"]:
        return f"  {name}  unchanged" + (f": {k['a']}" if k["a"] is not None else f" in every one of {k['cells']} cells")
    if k["a"] is not None:
        return f"  {name}  changed: {k['a']} → {k['b']}"
    return f"  {name}  changed in {k['changed_cells']} of {k['cells']} cells"


_KEY_RULE_FIELDS = {"compile mode": "compilation_config.mode", "cudagraph_mode": "compilation_config.cudagraph_mode",
                    "capture sizes": "compilation_config.max_cudagraph_capture_size",
                    "runtime cudagraph_mode": "runtime.cudagraph_mode"}


def _key_rules(k: dict, cmp: Comparison) -> str:
    """The rules behind a key setting that changed the same way in every cell."""
    if not k["changed_cells"] or k["a"] is None:
        return ""
    ra, rb = cmp.pairs[0]
    f = _KEY_RULE_FIELDS[k["setting"]]
    why = [f"{side}: {', '.join(rules)}" for side, rules in ((cmp.a, _rules(ra, f)), (cmp.b, _rules(rb, f))) if rules]
    return f"  ({'; '.join(why)})" if why else ""


def model_op_filter(changes: tuple[Change, ...], ops: frozenset[str] | None) -> tuple[tuple[Change, ...], int]:
    """The changes with splitting_ops cut to the ops the deployment's model calls (`ops`: their short
    names; None: the model is not known well enough, every op is kept); and how many op entries of
    other model families were left out."""
    if ops is None:
        return changes, 0
    out, dropped = [], 0
    for c in changes:
        if c.field != "compilation_config.splitting_ops":
            out.append(c)
            continue
        sides = []
        for text in (c.a, c.b):
            if text.startswith(("- ", "+ ")):
                entries = [e.strip() for e in text[2:].split(",")]
                mine = [e for e in entries if e.split("::")[-1].split(".")[0] in ops]
                dropped += len(entries) - len(mine)
                sides.append(text[:2] + ", ".join(mine) if mine else "…")
            else:
                sides.append(text)
        if sides != ["…", "…"]:
            out.append(Change(c.field, sides[0], sides[1], c.rules_a, c.rules_b))
    return tuple(out), dropped


def lines(cmp: Comparison, axes: tuple[str, ...], fold: bool = True,
          model_ops: frozenset[str] | None = None, model_kind: str = "") -> list[str]:
    """The summary; the settings that matter, each said changed or unchanged; then each changed
    cell (folded over the axes) with its other changes (splitting ops: those of the deployment's
    model only); then a legend of the symbols."""
    from vllm_preflight.matrix import fold as fold_mod
    from vllm_preflight.matrix.table import axis_values

    out = [cmp.head()]
    keys = key_lines(cmp) if cmp.pairs else []
    if keys:
        out.append("Settings that matter" + (" (over every cell compared):" if len(cmp.pairs) > 1 else ":"))
        out += [_key_text(k, cmp.a, cmp.b) + _key_rules(k, cmp) for k in keys]
    out += cmp.tail()
    # a key setting said once for every cell is not repeated per cell; one that differs by cell is
    said = {f for k in keys if k["a"] is not None for f in _FIELDS_OF[k["setting"]]}
    rest = []
    dropped = 0
    for ra, rb, ch in cmp.changed:
        kept, n = model_op_filter(tuple(c for c in ch if c.field not in said), model_ops)
        dropped += n
        if kept:
            rest.append((ra, rb, kept))
    if rest:
        out.append("Other changes" + (f" (splitting ops of {model_kind} only)" if model_ops is not None else "")
                   + ":")
        entries = [({fold_mod.RELEASE: cmp.b, **ra["axes"]}, ch, None) for ra, rb, ch in rest]
        targets = [cmp.a, cmp.b]
        groups = fold_mod.fold(entries, axes, [cmp.b], lambda ax, ts: axis_values(ax, targets)) \
            if fold and axes else \
            [fold_mod.Group({fold_mod.RELEASE: (cmp.b,), **{a: (e[0][a],) for a in axes}}, e[1]) for e in entries]
        for g in groups:
            where = ", ".join(f"{a}={fold_mod.values_text(g.coords[a], axis_values(a, targets))}" for a in axes)
            out.append(f"- {where or 'the deployment'}:")
            out += [f"    {c.text(cmp.a, cmp.b)}" for c in g.sig]
    elif cmp.changed:
        out.append("Other changes: none" + (f" for {model_kind}" if model_ops is not None else ""))
    if dropped:
        out.append(f"  ({dropped} splitting-op entr{'y' if dropped == 1 else 'ies'} of other model families "
                   "left out: ops this model never calls)")
    if cmp.pairs:
        out.append(LEGEND.format(a=cmp.a, b=cmp.b))
    return out


def to_json(cmp: Comparison) -> dict:
    return {"a": cmp.a, "b": cmp.b, "cells": cmp.total, "changed": len(cmp.changed),
            "summary": cmp.summary(), "key_settings": key_lines(cmp),
            "cells_changed": [{"axes": ra["axes"], "changes": [
                {"field": c.field, "a": c.a, "b": c.b, "rules_a": list(c.rules_a), "rules_b": list(c.rules_b)}
                for c in ch]} for ra, rb, ch in cmp.changed]}
