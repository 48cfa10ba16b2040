"""The folded table every renderer draws: header, lines (cells, colour, reasons), notes.

Renderers only draw it; what a line says is decided here, once.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from vllm_preflight.matrix import fold as fold_mod
from vllm_preflight.matrix import outcome as oc
from vllm_preflight.matrix.axes import AXES
from vllm_preflight.releases import get_release

# an axis is what the cell asks for; the outcome columns say what vLLM resolves
AXIS_HEADERS = {"mode": "asked mode", "cudagraph_mode": "asked cudagraph_mode", "partition": "asked partition",
                "fusion": "asked fusion"}


@dataclass
class Line:
    cells: list[str]
    status: str
    reasons: list[str]
    rows: list[dict] = field(default_factory=list)


@dataclass
class Table:
    title: str
    headers: list[str]
    lines: list[Line]
    notes: list[str] = field(default_factory=list)
    status_column: int = 0


def axis_values(axis: str, targets: list[str]) -> list[str]:
    out: list[str] = []
    for t in targets:
        for v in AXES[axis].values(get_release(t)):
            if v not in out:
                out.append(v)
    return out


def build(rows: list[dict], axes: tuple[str, ...], targets: list[str], title: str,
          evidence: dict[int, str] | None = None, folded: bool = True) -> Table:
    """rows in plan order; `evidence` maps a row's index to its hardware-record text."""
    evidence = evidence or {}
    depends = sorted({n for r in rows for n in r.get("depends_on") or ()})
    entries = []
    for i, r in enumerate(rows):
        o = oc.of(r, evidence.get(i, ""))
        coords = {fold_mod.RELEASE: oc.target_label(r), **{a: r["axes"][a] for a in axes}}
        entries.append((coords, o.signature(), (r, o)))
    present = [t for t in targets if any(c[fold_mod.RELEASE] == t for c, _, _ in entries)]
    if folded:
        groups = fold_mod.fold(entries, axes, present, axis_values)
    else:
        groups = [fold_mod.Group({k: (v,) for k, v in c.items()}, s, [m]) for c, s, m in entries]
    headers = ["release"] + [AXIS_HEADERS.get(a, a) for a in axes] + ["graphs"] + [oc.HEADERS[c] for c in oc.COLUMNS] \
        + [f"depends on {n}" for n in depends] + (["hardware record"] if evidence else []) + ["why"]
    lines = []
    for g in groups:
        row0, o = g.members[0]
        rel = fold_mod.release_text(g.coords[fold_mod.RELEASE], present)
        group_targets = list(g.coords[fold_mod.RELEASE])
        cells = [rel] + [fold_mod.values_text(g.coords[a], axis_values(a, group_targets)) for a in axes]
        cells += [oc.STATUS_WORDS[o.status]] + [o.cell(c) for c in oc.COLUMNS]
        cells += ["yes" if n in o.depends_on else "-" for n in depends]
        if evidence:
            cells.append(o.evidence or "-")
        cells.append(o.why)
        lines.append(Line(cells, o.status, oc.reasons(row0), [m[0] for m in g.members]))
    n_cells = len(rows)
    counts = {s: sum(1 for _, _, (r, o) in entries if o.status == s) for s in oc.STATUS_WORDS}
    notes = [f"{n_cells} cell{'s' if n_cells != 1 else ''}, {len(lines)} line{'s' if len(lines) != 1 else ''} "
             f"after folding: " + ", ".join(f"{counts[s]} {oc.STATUS_WORDS[s]}" for s in oc.STATUS_WORDS if counts[s])]
    return Table(title, headers, lines, notes, status_column=1 + len(axes))
