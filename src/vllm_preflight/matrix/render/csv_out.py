"""CSV: one line per cell, unfolded (a spreadsheet filters better than it unfolds). Every cell
goes through safe_text.csv_cell: one that starts like a formula is prefixed with `'`."""
from __future__ import annotations

import csv
import io

from vllm_preflight.matrix import outcome as oc
from vllm_preflight.safe_text import csv_cell


def render(rows: list[dict], axes: tuple[str, ...]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["target", "vllm_version", *axes, "graphs", *oc.COLUMNS, "depends_on", "source", "name"])
    for r in rows:
        o = oc.of(r)
        w.writerow([csv_cell("" if v is None else v) for v in (
            r.get("target"), r.get("vllm_version"), *(r["axes"].get(a, "") for a in axes),
            oc.STATUS_WORDS[o.status], *(o.cell(c) for c in oc.COLUMNS), " ".join(o.depends_on), r.get("source"),
            r.get("name") or r.get("source"))])
    return buf.getvalue()
