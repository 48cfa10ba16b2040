"""Driving the resolver over a matrix: which cells, and one `check` result per cell.

Every cell is resolved by `api.check_deployment` itself (so a row is exactly a `check`
result); what a matrix shares between cells is made cheap around it: the input is loaded and
parsed once, the schema findings are memoised per option value (`validation`, exact), the
release tables load once per process, the base is bound once per release, `check`'s PR #29558
side-by-side is shared between releases (api), and large matrices are split over the machine's
cores (fork: the children inherit the loaded tables and send back slim rows when no JSON is
asked for). `rows(..., fast=False)` is the plain path the tests compare against.
"""
from __future__ import annotations

import contextlib
import itertools
import math
import os
from dataclasses import dataclass, field

from vllm_preflight.matrix import axes as axes_mod
from vllm_preflight.model import Deployment
from vllm_preflight.releases import PR29558, get_release

PARALLEL_MIN_CELLS = 400  # below this, a second process (fork, slim rows back) saves less than it costs
# cells of one matrix, all inputs together: the default matrix of every release (all2all x dp x ep x
# cudagraph_mode, 12,276 cells) fits; 28,080 took minutes and a gigabyte. --max-cells or the project
# configuration's `matrix-max-cells` raise it.
DEFAULT_MAX_CELLS = 15_000


@dataclass(frozen=True)
class Settings:
    gpu: str | None = None
    env: tuple = ()
    model_assume: tuple = ()  # (fact, value) pairs
    jobs: int = 0  # 0: the machine's cores (one process below PARALLEL_MIN_CELLS cells)
    slim: bool = False  # children send back only what tables, --vs and --records read (see `slim`)


@dataclass(frozen=True)
class Cell:
    target: str
    combo: tuple = ()  # ((axis, value), ...) in axis order; () for a single deployment


@dataclass
class Plan:
    base: Deployment
    cells: list[Cell] = field(default_factory=list)
    axes: tuple = ()
    bound: dict = field(default_factory=dict, repr=False, compare=False)  # target -> base as that release reads it


def plan(base: Deployment, targets: list[str], axes: tuple[str, ...] = (),
         where: dict[str, set[str]] | None = None) -> Plan:
    """The cells: one per target, or per target and combination of the axes' values."""
    out = Plan(base, axes=tuple(axes))
    for t in targets:
        if not axes:
            out.cells.append(Cell(t))
            continue
        for combo in itertools.product(*_values(t, axes, where)):
            out.cells.append(Cell(t, tuple(zip(axes, combo))))
    return out


def count(targets: list[str], axes: tuple[str, ...] = (), where: dict[str, set[str]] | None = None) -> int:
    """How many cells `plan` makes for one deployment, without making them."""
    if not axes:
        return len(targets)
    return sum(math.prod(len(v) for v in _values(t, axes, where)) for t in targets)


def _values(target: str, axes: tuple[str, ...], where: dict[str, set[str]] | None) -> list[tuple]:
    """Each axis's values on one target, as --where slices them."""
    release = get_release(target)
    lists = []
    for name in axes:
        values = axes_mod.AXES[name].values(release)
        if where and name in where:
            values = tuple(v for v in values if v in where[name])
        lists.append(values)
    return lists


def deployment_for(p: Plan, cell: Cell) -> Deployment:
    if not cell.combo:
        return p.base
    from vllm_preflight.load.bind import bind

    release = get_release(cell.target)
    # the base as written for this release (its variables at their stated values), then the axes
    base = p.bound.get(cell.target)
    if base is None:
        base = p.bound[cell.target] = bind(p.base, release).deployment
    return axes_mod.cell_deployment(base, release, dict(cell.combo))


def check_cell(p: Plan, cell: Cell, settings: Settings, fast: bool = True) -> dict:
    """One cell as a `check` JSON result, plus its `axes`."""
    from vllm_preflight.api import check_deployment
    from vllm_preflight.matrix.validation import validate

    pr = cell.target == PR29558
    full = not (settings.slim and fast)  # a table reads only SLIM_KEYS: no PR #29558 block, plan or summary
    res = check_deployment(deployment_for(p, cell), vllm_version=None if pr else cell.target,
                           target=PR29558 if pr else "release", gpu=settings.gpu, env=list(settings.env),
                           model_assume=dict(settings.model_assume), validate=validate if fast else None,
                           side_by_side=full, report_rows=full)
    row = res.to_json()
    row["axes"] = dict(cell.combo)
    return row if full else slim(row)


# ------------------------------------------------------------------ processes
_WORK: tuple | None = None  # (plan, settings) for forked children


# What the table, --vs and --records read of a row; the rest (plan, summary, vLLM's log lines...)
# is only for JSON, and sending it back from a child costs more than computing the cell.
SLIM_KEYS = ("source", "target", "vllm_version", "resolved", "vllm_error", "findings", "depends_on", "axes")
SLIM_EVENT_KEYS = ("field", "before", "after", "rule")


def slim(row: dict) -> dict:
    out = {k: row[k] for k in SLIM_KEYS if k in row}
    out["events"] = [{k: e.get(k) for k in SLIM_EVENT_KEYS} for e in row.get("events") or []]
    return out


def _child(cells: list[Cell]) -> list[dict]:
    if _WORK is None:  # set by the parent before it forks
        raise RuntimeError("matrix worker started without its plan")
    p, settings = _WORK
    return [check_cell(p, c, settings) for c in cells]  # slim rows when settings.slim


def _jobs(settings: Settings, n_cells: int) -> int:
    if n_cells < PARALLEL_MIN_CELLS:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(settings.jobs or cores, cores, n_cells // (PARALLEL_MIN_CELLS // 2)))


def _in_children(chunks: list[list[Cell]]) -> list[list[dict]]:
    """`_child(chunk)` of each chunk in a forked child of its own, the results sent back through a
    pipe. Not multiprocessing.Pool: a SIGTERM to the whole process group (a CI runner cancelling a
    job) could kill a worker holding the pool's queue lock, or reach a new worker before its
    handlers were set, and Pool.terminate() then waited for ever. Here the parent waits in
    select (a signal ends the wait: exit 130/143), and on any way out kills its children with
    SIGKILL, which no child can miss, and reaps them."""
    import pickle
    import selectors
    import signal

    children: dict[int, tuple[int, int]] = {}  # read end -> (index, pid)
    try:
        for i, chunk in enumerate(chunks):
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns into the parent's code
                code = 1
                try:
                    os.close(r)
                    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    try:
                        answer: tuple = ("ok", _child(chunk))
                    except Exception as e:  # noqa: BLE001 - the parent raises it
                        answer = ("error", e)
                    with os.fdopen(w, "wb") as out:
                        pickle.dump(answer, out, protocol=pickle.HIGHEST_PROTOCOL)
                    code = 0
                finally:
                    os._exit(code)
            os.close(w)
            children[r] = (i, pid)
        got: dict[int, bytearray] = {r: bytearray() for r in children}
        with selectors.DefaultSelector() as sel:
            for r in children:
                sel.register(r, selectors.EVENT_READ)
            open_ends = len(children)
            while open_ends:
                for key, _ in sel.select():
                    piece = os.read(key.fd, 1 << 20)
                    if piece:
                        got[key.fd] += piece
                    else:
                        sel.unregister(key.fd)
                        open_ends -= 1
        parts: list[list[dict]] = [[] for _ in chunks]
        for r, (i, _pid) in children.items():
            if not got[r]:
                raise RuntimeError("a matrix worker ended without its rows")
            kind, value = pickle.loads(bytes(got[r]))
            if kind == "error":
                raise value
            parts[i] = value
        return parts
    finally:
        for r, (_i, pid) in children.items():
            with contextlib.suppress(OSError):
                os.close(r)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)


def rows(p: Plan, settings: Settings = Settings(), fast: bool = True) -> list[dict]:
    """Every cell's row, in the plan's order."""
    jobs = _jobs(settings, len(p.cells)) if fast else 1
    if jobs <= 1:
        return [check_cell(p, c, settings, fast) for c in p.cells]
    if not hasattr(os, "fork"):  # no fork on this platform: one process
        return [check_cell(p, c, settings, fast) for c in p.cells]
    global _WORK
    _WORK = (p, settings)
    # interleaved chunks: neighbouring cells cost alike, so each child gets a fair share
    chunks = [p.cells[i::jobs] for i in range(jobs)]
    try:
        parts = _in_children(chunks)
    finally:
        _WORK = None
    out: list[dict | None] = [None] * len(p.cells)
    for i, part in enumerate(parts):
        out[i::jobs] = part
    return out  # type: ignore[return-value]
