"""A readable summary per deployment: the settings vLLM would run, and why they changed.

The full written-vs-resolved diff is a later issue; this shows the outcome, the changes
with their rule ids and vLLM's messages, and the assumptions made.
"""
from __future__ import annotations

from vllm_preflight.resolve.explain import headline

_FIELDS = ("mode", "cudagraph_mode", "splitting_ops", "use_inductor_graph_partition",
           "max_cudagraph_capture_size")


def _short(value, limit: int = 6) -> str:
    if isinstance(value, list):
        if len(value) > limit:
            return "[" + ", ".join(map(str, value[:limit])) + f", … +{len(value) - limit}]"
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def _change(before, after) -> str:
    """A list change reads as what was added and removed; other values as before → after."""
    if isinstance(before, list) and isinstance(after, list) and before:
        added = [x for x in after if x not in before] + (
            [x for x in after if after.count(x) > before.count(x) and x in before][:1])
        removed = [x for x in before if x not in after]
        parts = []
        if added:
            parts.append("+ " + ", ".join(map(str, added)))
        if removed:
            parts.append("- " + ", ".join(map(str, removed)))
        return "; ".join(parts) or f"{_short(before)} → {_short(after)}"
    return f"{_short(before)} → {_short(after)}"


def render_text(report, console=None) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console(highlight=False, soft_wrap=False)
    for res in report.results:
        label = res.vllm_version if res.target == "release" else f"pr29558 (design of PR #29558 on vLLM {res.vllm_version})"
        console.rule(f"[bold]{escape(res.source)}[/] · vLLM {escape(label)}")
        loc = res.extra.get("location")
        if loc and loc.get("line"):
            console.print(f"[dim]server command at {escape(loc['file'])}:{loc['line']}:{loc.get('column') or 1}[/]")
        if res.vllm_error is not None:
            console.print(f"[bold red]vLLM would refuse to start[/]: {escape(res.vllm_error.type)}: "
                          f"{escape(res.vllm_error.message.splitlines()[0] if res.vllm_error.message else '')}")
        else:
            console.print(escape(headline(res)))
            cc = res.resolved["compilation_config"]
            par = res.resolved["parallel_config"]
            table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
            table.add_column("setting")
            table.add_column("resolved")
            for f in _FIELDS:
                table.add_row(f, escape(_short(cc[f])))
            table.add_row("capture sizes", escape(_short(cc["cudagraph_capture_sizes"])))
            fused = [k for k, v in cc["pass_config"].items() if v is True]
            table.add_row("pass_config on", escape(", ".join(fused) or "-"))
            table.add_row("custom_ops", escape(_short(cc["custom_ops"])))
            table.add_row("all2all / dp / tp / ep", escape(
                f"{par['all2all_backend']} / {par['data_parallel_size']} / {par['tensor_parallel_size']} / "
                f"{par['enable_expert_parallel']}"))
            if res.resolved.get("optimization_level") is not None:
                table.add_row("optimization level", f"O{res.resolved['optimization_level']}")
            console.print(table)
        changes = [e for e in res.events if e.level in ("info", "warning") and e.field != "log"]
        if changes:
            console.print("[bold]Why[/]")
            for e in changes:
                console.print(f"  • {escape(e.field)}: {escape(_change(e.before, e.after))}"
                              f"  [dim]({escape(e.rule)})[/]")
                console.print(f"    {escape(e.reason)}", style="dim")
        logs = [e for e in res.events if e.field == "log" and e.level == "warning"]
        if logs:
            console.print("[bold]vLLM also warns[/]")
            for e in logs:
                console.print(f"  • {escape(e.reason)}", style="dim")
        for f in res.extra.get("findings") or []:
            where = f.get("location") or {}
            place = f"{where.get('file')}:{where.get('line')}:{where.get('column')}" if where.get("line") else ""
            color = {"error": "red", "warning": "yellow"}.get(f.get("severity"), "cyan")
            console.print(f"[{color}]{escape(f.get('severity', ''))}[/] {escape(f.get('rule', ''))} "
                          f"{escape(place)} {escape(f.get('message', ''))}")
        for name in res.extra.get("depends_on") or []:
            console.print(f"[yellow]depends on[/] {escape(str(name))}: the outcome changes with its value "
                          "(pin it with --assume NAME=VALUE)")
        for a in res.assumptions:
            console.print(f"[yellow]assumed[/] {escape(a.fact)} = {escape(str(a.value))} ({escape(a.source)})")
