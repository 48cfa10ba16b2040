"""Human output with rich: the plan first, each check as it completes, a summary table last.

In `--format json` mode the same progress goes to stderr and stdout carries only the record.
"""
from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

from vllm_preflight.capture.opnames import short
from vllm_preflight.capture.plan import VerifyPlan
from vllm_preflight.safe_text import rich as escape  # input text shown, never obeyed (safe_text)
from vllm_preflight.verify.outcome import CAUGHT, FAIL, INFO, PASS, SKIP, WARN, Check

STYLE = {PASS: "green", FAIL: "bold red", WARN: "yellow", SKIP: "dim", CAUGHT: "cyan", INFO: "blue"}
LABEL = {PASS: "PASS", FAIL: "FAIL", WARN: "WARN", SKIP: "SKIP", CAUGHT: "CAUGHT", INFO: "INFO"}


def _sizes(sizes) -> str:
    sizes = list(sizes)
    if len(sizes) <= 8:
        return " ".join(map(str, sizes))
    return " ".join(map(str, sizes[:5])) + f" ... {sizes[-1]} ({len(sizes)} sizes)"


TIMING_COLUMNS = ("dtype", "size", "eager", "piecewise", "full")


def timing_table(timings: list[dict]) -> list[tuple[str, ...]]:
    """Timing rows pivoted to one line per dtype and size: eager | piecewise | full (median ms,
    the graph's speedup over eager in brackets; "-" where that graph was not timed)."""
    cells: dict[tuple[str, int], dict[str, str]] = {}
    for row in timings:
        cell = cells.setdefault((row["dtype"], row["size"]), {"eager": f"{row['eager_ms']['median']:.3f}"})
        cell[row["graph"]] = f"{row['graph_ms']['median']:.3f} ({row['speedup']:.2f}x)"
    return [(dtype, str(size), c["eager"], c.get("piecewise", "-"), c.get("full", "-"))
            for (dtype, size), c in sorted(cells.items())]


class Reporter:
    def __init__(self, fmt: str = "text", quiet: bool = False):
        stream = sys.stderr if fmt == "json" else sys.stdout
        width = None if stream.isatty() else 110
        # soft_wrap: a check or an error stays one line however long (tables still fit the width)
        self.console = Console(file=stream, width=width, highlight=False, soft_wrap=True, emoji=False)
        self.quiet = quiet

    def _print(self, *args, **kw) -> None:
        if not self.quiet:
            self.console.print(*args, **kw)

    def header(self, source: str, target: str, version: str | None, tier: str) -> None:
        where = f"{source}  (target {target}, vLLM {version or '?'}, tier {tier})"
        self._print("[bold]vllm-preflight verify[/bold] " + escape(where))

    def environment(self, env: dict) -> None:
        ep = env["deep_ep"]
        self._print(escape(f"Python {env['python']}, torch {env['torch'] or 'not installed'}, "
                           f"deep_ep: {ep['detail']}" + (f" ({ep['distribution']} {ep['version']})"
                                                         if ep.get("distribution") else "")))

    def plan(self, plan: VerifyPlan) -> None:
        t = Table(title="Plan", title_justify="left", show_header=False, box=None, padding=(0, 2))
        t.add_column(style="bold")
        t.add_column()
        graphs = []
        if plan.piecewise:
            graphs.append("piecewise graphs between the split ops (split ops run eagerly)")
        if plan.full:
            graphs.append("a FULL graph around the whole forward"
                          + (" for uniform decode batches" if plan.full == "decode" else ""))
        partition = "  (inductor graph partition)" if plan.inductor_partition else ""
        t.add_row("compile mode", plan.compile_mode + partition)
        t.add_row("cudagraph_mode", f"{plan.cudagraph_mode}: " + ("; ".join(graphs) if graphs else "nothing captured"))
        ops = [short(o) for o in plan.splitting_ops]
        t.add_row("splitting_ops", escape(f"{len(ops)} names: " + ", ".join(ops)) if ops else "(none)")
        t.add_row("capture sizes", _sizes(plan.capture_sizes) or "(none)")
        moe = ("DeepEP high-throughput protocol (host-synchronising, data-dependent sizes)" if plan.ht
               else "capturable (static shapes)")
        t.add_row("MoE", f"all2all {plan.all2all_backend or '(none)'}, DP {plan.data_parallel_size}, "
                         f"EP {'on' if plan.expert_parallel else 'off'}: {moe}")
        for note in plan.notes:
            t.add_row("note", escape(note))
        self._print(t)

    def pieces(self, plan: VerifyPlan, extra: dict) -> None:
        self._print(f"Toy: {extra['toy']['layers']} layers, hidden {extra['toy']['hidden']}, "
                    f"{extra['toy']['experts']} experts (top-{extra['toy']['top_k']}); MoE behind the op: "
                    f"{extra['moe_implementation']}")
        unverified = extra.get("unverified_sizes") or []
        self._print(f"Capture sizes verified here: {_sizes(extra['verified_sizes'])}"
                    + (f"; padded batches {_sizes(extra['padded_sizes'])}" if extra["padded_sizes"] else "")
                    + (f"; NOT verified ({len(unverified)} of {len(plan.capture_sizes)}): {_sizes(unverified)}"
                       if unverified else f"; all {len(plan.capture_sizes)} planned sizes verified"))
        if extra.get("dropped_ops"):
            self._print("Dropped split ops (vLLM drops them too): " + escape(", ".join(extra["dropped_ops"])))
        if plan.piecewise:
            t = Table(title=(f"Pieces: {extra['split_call_sites']} split call sites -> {extra['expected_pieces']} "
                             f"pieces (2S+1 less empty); {extra['graphs_per_size']} captured per size"),
                      title_justify="left")
            t.add_column("piece")
            t.add_column("runs")
            t.add_column("ops")
            t.add_column("inputs from eager pieces (address contract)")
            for p in extra["pieces"]:
                t.add_row(p["name"], "captured" if p["captured"] else "eager", escape(", ".join(p["ops"])) or "-",
                          escape(", ".join(p["eager_inputs"])))
            self._print(t)
        if plan.full:
            self._print("FULL graph: the whole forward is one captured unit"
                        + (" (uniform decode batches)" if plan.full == "decode" else ""))

    def step(self, text: str) -> None:
        self._print(f"[dim]... {text}[/dim]")

    def check(self, c: Check) -> None:
        graph = f" [{c.graph}]" if c.graph else ""
        self._print(f"[{STYLE[c.status]}]{LABEL[c.status]:>6}[/] {c.id:<4} " + escape(f"{c.title}{graph}: {c.detail}"))

    def line(self, text: str) -> None:
        self._print(escape(text))

    def summary(self, record: dict) -> None:
        checks = record["checks"]
        if checks:
            t = Table(title="Summary", title_justify="left")
            t.add_column("check")
            t.add_column("graph")
            t.add_column("status")
            t.add_column("what")
            for c in checks:
                t.add_row(c["id"], c.get("graph") or "", f"[{STYLE[c['status']]}]{LABEL[c['status']]}[/]",
                          escape(c["title"]))
            self._print(t)
        if record["timings"]:
            t = Table(title="Timings (median ms per forward; speedup over eager)", title_justify="left")
            for col in TIMING_COLUMNS:
                t.add_column(col)
            for row in timing_table(record["timings"]):
                t.add_row(*row)
            self._print(t)
            for graph, why in ((record.get("plan") or {}).get("not_timed") or {}).items():
                self._print(escape(f"{graph}: not timed ({why})"))
        o = record["outcome"]
        style = {"pass": "bold green", "nothing-captured": "bold green", "fail": "bold red"}.get(
            o["status"], "bold yellow")
        self._print(f"[{style}]{o['status'].upper()}[/] (exit {o['exit_code']}): " + escape(o["reason"]))
