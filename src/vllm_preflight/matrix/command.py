"""`vllm-preflight matrix`: argument handling only.

Exit codes (as `check`): 0 the matrix was printed (a release vLLM refuses is a row, not an
error); 1 only with `--fail-on`: some cell has an outcome it names (refused, off, hazard);
2 usage error or unreadable input (unknown axis or value, empty slice, a range with no
supported release, an unknown `--vs` side, more cells than --max-cells), or a file in
`--records` that is not a verify record (the matrix is still drawn from the good ones);
3 internal error; 130 / 143 interrupted.
"""
from __future__ import annotations

import sys

import click

from vllm_preflight.cli import (
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_USAGE,
    _CommandAfterDashes,
    _gpu_help,
    _pairs,
    say,
    usage_error,
)

FORMATS = ("text", "markdown", "html", "csv", "json")


@click.command(cls=_CommandAfterDashes)
@click.option("--vllm-version", "versions", metavar="SPEC",
              help="Targets: a release, a range 0.12.0..0.20.2, a list a,b, `releases`, or `all` "
                   "(default: every release 0.11.0-0.33.0 and pr29558).")
@click.option("--axes", "axes_text", metavar="A,B,...",
              help="Vary these settings (all2all, dp, ep, mode, cudagraph_mode, partition, fusion, model); "
                   "default without an input: all2all,dp,ep,cudagraph_mode (on DeepSeek-V3).")
@click.option("--where", "where", multiple=True, metavar="AXIS=V[,V]", help="Keep only these values of an axis.")
@click.option("--vs", "vs", nargs=2, metavar="A B", help="Only what differs between two targets (e.g. 0.12.0 pr29558).")
@click.option("--advise", is_flag=True, help="For rows with graphs off or hazardous: the single changes that "
                                              "keep graphs on without a hazard, each resolved.")
@click.option("--records", "records_dir", metavar="DIR", help="Mark the cells that `verify --record DIR` records cover.")
@click.option("--fail-on", "fail_on", multiple=True, type=click.Choice(["refused", "off", "hazard"]),
              help="Exit 1 when some cell has this outcome (for CI).")
@click.option("--no-fold", is_flag=True, help="One line per cell (no folding).")
@click.option("--gpu", default=None, metavar="GPU", help=_gpu_help())
@click.option("--env", "env", multiple=True, metavar="K=V", help="Environment variable of the deployment.")
@click.option("--assume", "assume", multiple=True, metavar="K=V", help="Pin a fact, e.g. model.is_moe=true.")
@click.option("--input-format", "input_format", default="auto", show_default=True,
              type=click.Choice(["auto", "shell", "markdown", "vllm-config", "kubernetes", "compose", "preflight"]))
@click.option("--jobs", type=int, default=0, metavar="N", help="Processes for large matrices (default: the cores).")
@click.option("--max-cells", "max_cells", type=click.IntRange(min=1), default=None, metavar="N",
              help="Refuse a matrix of more cells than this (default 15,000, or the project "
                   "configuration's matrix-max-cells); past it: exit 2, nothing resolved.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--offline", is_flag=True, help="Read model files from local folders and the Hugging Face cache only.")
@click.option("--color", "color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the text table (auto: a terminal, unless NO_COLOR; FORCE_COLOR forces it).")
@click.argument("inputs", nargs=-1, type=click.Path())
def matrix(versions, axes_text, where, vs, advise, records_dir, fail_on, no_fold, gpu, env, assume, input_format,
           jobs, max_cells, fmt, offline, color, inputs) -> None:
    """One deployment across every release (FILE or `-- vllm serve ...`), or every combination of
    --axes, in one table: refused, cudagraph_mode, compile mode, MoE split, hazards."""
    from vllm_preflight.errors import UsageProblem

    command = click.get_current_context().meta.get("command_words")
    try:
        code = _run(versions, axes_text, list(where), vs, advise, records_dir, set(fail_on), no_fold, gpu,
                    _pairs(env, "--env"), _pairs(assume, "--assume"), input_format, jobs, fmt, list(inputs),
                    command, max_cells, offline=True if offline else None, color=color)
    except UsageProblem as e:
        raise usage_error(e) from None
    sys.exit(code)


def cell_limit(max_cells: int | None) -> int:
    """--max-cells, else the project configuration's matrix-max-cells, else the default."""
    from vllm_preflight.cli import project_config
    from vllm_preflight.matrix.cells import DEFAULT_MAX_CELLS

    return max_cells or project_config().matrix_max_cells or DEFAULT_MAX_CELLS


def _run(versions, axes_text, where, vs, advise, records_dir, fail_on, no_fold, gpu, env, assume, input_format,
         jobs, fmt, inputs, command, max_cells=None, offline: bool | None = None, color: str = "auto") -> int:
    from vllm_preflight.api import load_inputs, split_assume
    from vllm_preflight.errors import InputError, UsageProblem
    from vllm_preflight.gpus import get_gpu
    from vllm_preflight.matrix import axes as axes_mod
    from vllm_preflight.matrix import cells
    from vllm_preflight.matrix import targets as targets_mod
    from vllm_preflight.releases import get_release

    if vs and versions:
        raise UsageProblem("--vs A B names the two targets; drop --vllm-version")
    targets = [targets_mod.one(vs[0]), targets_mod.one(vs[1])] if vs else targets_mod.parse_targets(versions)
    if vs and targets[0] == targets[1]:
        raise UsageProblem(f"--vs needs two different targets, got {vs[0]} twice")
    if gpu:
        get_gpu(gpu)
    model_assume, variables = split_assume(assume)
    has_input = bool(inputs or command)
    axes = axes_mod.parse_axes(axes_text) if (axes_text or not has_input) else ()
    if advise and axes:
        raise UsageProblem("--advise works on one deployment: give FILE or -- vllm serve ..., without --axes")
    if where and not axes:
        raise UsageProblem("--where slices the axes of a combination matrix: add --axes")
    slice_ = axes_mod.parse_where(where, axes, [get_release(t) for t in targets]) if where else None
    limit = cell_limit(max_cells)
    per_deployment = cells.count(targets, axes, slice_)
    if per_deployment == 0:
        raise UsageProblem("the slice is empty: no cell has these --where values on these releases")
    if per_deployment > limit:  # before any input is read
        raise UsageProblem(_too_many(per_deployment, limit))
    evidence = None
    errors: list[InputError] = []
    if records_dir:
        from vllm_preflight.matrix import records

        evidence, errors = records.read(records_dir)
    if has_input:
        deployments, input_errors = load_inputs(inputs, command, variables,
                                                None if input_format == "auto" else input_format)
        errors += input_errors
    else:
        deployments = [axes_mod.base_deployment()]
    for err in errors:
        say(err.render())
    if not deployments:
        if errors:
            return EXIT_USAGE
        raise UsageProblem("no vLLM server found in the input")
    if per_deployment * len(deployments) > limit:
        raise UsageProblem(_too_many(per_deployment * len(deployments), limit, len(deployments)))
    from vllm_preflight import model_files
    from vllm_preflight.cli import hub_notice

    model_files.start(deployments, offline, wait=True)  # each hub model read once, before workers fork
    hub_notice()
    settings = cells.Settings(gpu, tuple(env), tuple(sorted(model_assume.items())), jobs, slim=fmt != "json")
    results = []
    for d in deployments:
        p = cells.plan(d, targets, axes, slice_)
        rows = cells.rows(p, settings)
        for r in rows:  # every row carries its deployment's one name (identity.server_name), as check's
            r["name"] = _name(p)
        results.append((p, rows))
    from vllm_preflight.cli import dashes_hint

    dashes_hint(command, matrix, [f for _, rows in results for r in rows for f in r.get("findings") or []])
    out = _render(results, targets, axes, fmt, vs, advise, evidence, no_fold, settings, errors, color)
    if out is not None:  # the text renderer prints through rich itself
        click.echo(out, nl=False)
    if errors:
        return EXIT_USAGE
    if fail_on:
        from vllm_preflight.matrix import outcome as oc

        if any(oc.of(r).status in fail_on for _, rows in results for r in rows):
            return EXIT_REFUSED
    return EXIT_OK


def _too_many(n: int, limit: int, deployments: int = 1) -> str:
    what = f"{deployments} deployments x {n // deployments:,} cells" if deployments > 1 else "the matrix"
    return (f"{what}: {n:,} cells, more than the limit of {limit:,}; slice it (--where, --vllm-version, "
            f"fewer --axes or inputs) or raise the limit with --max-cells {n} (or matrix-max-cells in "
            f"the project configuration)")


def _title(p, axes, targets) -> str:
    span = ", ".join(targets) if len(targets) <= 3 else f"{targets[0]} … {targets[-1]} ({len(targets)} targets)"
    what = _name(p) if not axes or p.base.source != "vllm serve (matrix cell)" else "combinations"
    return f"{what} · {', '.join(axes) + ' · ' if axes else ''}{span}"


def _name(p) -> str:
    """The deployment's one human name, as `check` gives it (identity.server_name)."""
    from vllm_preflight.identity import server_name

    return server_name(p.base) if p.base.source != "vllm serve (matrix cell)" else p.base.source


def _render(results, targets, axes, fmt, vs, advise, evidence, no_fold, settings, errors=(), color="auto"):
    from vllm_preflight.matrix import advise as advise_mod
    from vllm_preflight.matrix import diff as diff_mod
    from vllm_preflight.matrix import records as records_mod
    from vllm_preflight.matrix import table as table_mod
    from vllm_preflight.matrix.model_ops import model_ops

    all_rows = [r for _, rows in results for r in rows]
    extra: list[str] = []
    vs_json = advice_json = None
    tables = []
    for p, rows in results:
        if vs:
            a_rows = [r for r, c in zip(rows, p.cells) if c.target == targets[0]]
            b_rows = [r for r, c in zip(rows, p.cells) if c.target == targets[1]]
            cmp = diff_mod.compare(a_rows, b_rows, targets[0], targets[1])
            if len(results) > 1:
                extra.append(f"== {_name(p)}")
            ops, kind = (None, "") if p.base.source == "vllm serve (matrix cell)" and axes else \
                model_ops(p.base, dict(settings.model_assume))
            extra += diff_mod.lines(cmp, axes, fold=not no_fold, model_ops=ops, model_kind=kind)
            vs_json = (vs_json or []) + [dict(diff_mod.to_json(cmp), source=p.base.source, name=_name(p))]
            continue
        cover = records_mod.covering(rows, evidence) if evidence is not None else None
        tables.append(table_mod.build(rows, axes, targets, _title(p, axes, targets), cover, folded=not no_fold))
        if advise:
            adv = advise_mod.advise(p, rows, settings)
            if len(results) > 1:
                extra.append(f"== {_name(p)}")
            extra += advise_mod.lines(adv, targets)
            advice_json = (advice_json or []) + [{"source": p.base.source, "name": _name(p),
                                                  "advice": advise_mod.to_json(adv)}]
    if fmt == "json":
        from vllm_preflight.matrix.render import json_out

        return json_out.render(all_rows, vs=vs_json, advice=advice_json,
                               errors=[e.to_json() for e in errors] or None) + "\n"
    if fmt == "csv":
        from vllm_preflight.matrix.render import csv_out

        return csv_out.render(all_rows, axes)
    if fmt == "markdown":
        from vllm_preflight.matrix.render import markdown

        return markdown.render(tables, extra)
    if fmt == "html":
        from vllm_preflight.matrix.render import html

        title = tables[0].title if len(tables) == 1 else f"{targets[0]} vs {targets[1]}" if vs else \
            f"{len(tables)} deployments"
        return html.render(tables, f"vllm-preflight matrix · {title}", _subtitle(targets, axes), extra)
    from vllm_preflight.matrix.render import text
    from vllm_preflight.report.text_report import make_out

    text.render(tables, extra_lines=extra, out=make_out(color=color))
    return None


def _subtitle(targets, axes) -> str:
    return (f"{len(targets)} target{'s' if len(targets) != 1 else ''}"
            + (f" · axes: {', '.join(axes)}" if axes else " · one deployment, every release")
            + " · what vLLM would run, resolved by vllm-preflight (no GPU, no network)")
