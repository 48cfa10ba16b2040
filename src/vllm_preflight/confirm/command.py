"""`vllm-preflight confirm LOG...`: hold the prediction against what a node logged.

Exit codes: 0 every start read agrees with the prediction; 1 a start disagrees; 2 no engine start
found (or none could be compared), an unreadable input, a usage error. Inputs are files or `-`
(stdin: `kubectl logs POD | vllm-preflight confirm -`); a FIFO or device is not opened (pipe it
into `-` instead), as with `check`'s inputs.
"""
from __future__ import annotations

import os
import stat
import sys

import click

EXIT_AGREE, EXIT_DISAGREE, EXIT_NOTHING = 0, 1, 2
MAX_LOG_BYTES = 8 << 30  # a log past this is read up to it, and said


class LogProblem(Exception):
    pass


def read_log(path: str) -> tuple[list, list[str]]:
    """The starts of one log, and what could not be read in it (each naming path and line)."""
    from vllm_preflight.confirm.scan import MAX_LINE, Scanner, blocks_of
    from vllm_preflight.confirm.starts import group

    scanner = Scanner()
    notes: list[str] = []
    shown = "<stdin>" if path == "-" else path  # as the findings name it
    if path == "-":
        stream = sys.stdin.buffer
        close = False
    else:
        try:
            st = os.stat(path)
        except OSError as e:
            raise LogProblem(f"{path}: cannot read: {e.strerror or e}") from None
        if stat.S_ISDIR(st.st_mode):
            raise LogProblem(f"{path}: a folder, not a log file")
        if not stat.S_ISREG(st.st_mode):
            raise LogProblem(f"{path}: not a regular file (a pipe or device is not opened; pipe it into "
                             f"`vllm-preflight confirm -` instead)")
        try:
            stream = open(path, "rb")  # noqa: SIM115 - closed below
        except OSError as e:
            raise LogProblem(f"{path}: cannot read: {e.strerror or e}") from None
        close = True
    try:
        limited = _Limited(stream, MAX_LOG_BYTES)
        events = list(scanner.events(blocks_of(limited)))
        if limited.cut:
            notes.append(f"{shown}: longer than {MAX_LOG_BYTES >> 30} GiB; read up to there")
    except OSError as e:
        raise LogProblem(f"{shown}: cannot read: {e.strerror or e}") from None
    finally:
        if close:
            stream.close()
    for n in scanner.long_lines[:5]:
        notes.append(f"{shown}:{n}: a line longer than {MAX_LINE >> 20} MiB; not read")
    if len(scanner.long_lines) > 5:
        notes.append(f"{shown}: {len(scanner.long_lines) - 5} more lines longer than the limit; not read")
    starts, _ = group(events)
    return starts, notes


class _Limited:
    def __init__(self, stream, limit: int):
        self.stream, self.left, self.cut = stream, limit, False

    def read(self, n: int) -> bytes:
        if self.left <= 0:
            self.cut = bool(self.stream.read(1))
            return b""
        data = self.stream.read(min(n, self.left))
        self.left -= len(data)
        return data


def _pairs(values: tuple[str, ...]) -> list[tuple[str, str]]:
    out = []
    for v in values:
        if "=" not in v:
            raise click.UsageError(f"--env takes KEY=VALUE, got {v!r}")
        k, _, val = v.partition("=")
        if not k.strip():
            raise click.UsageError(f"--env {v}: the name is empty")
        out.append((k, val))
    return out


@click.command()
@click.option("--format", "fmt", default="text", show_default=True, type=click.Choice(["text", "json", "concise"]),
              help="text: per start, = / ≠ per setting and why; json: the per-field comparison; concise: "
                   "`path:line:col: severity confirm message` lines.")
@click.option("--gpu", default=None, metavar="GPU", help="The node's GPU when the log does not name it (default H200).")
@click.option("--env", "env", multiple=True, metavar="K=V",
              help="An environment variable the node's server had (a log does not show them).")
@click.option("--vllm-version", "vllm_version", metavar="V", default=None,
              help="Check against this release instead of the one the log names.")
@click.option("--record", "record_dir", metavar="DIR", default=None,
              help="Write what each start proves as a verify record into DIR (for `matrix --records DIR`).")
@click.option("--offline", is_flag=True,
              help="Read the logged model's files from local folders and the Hugging Face cache only; never the "
                   "Hub (HF_HUB_OFFLINE=1 does the same).")
@click.option("--verbose", "-v", is_flag=True, help="Every compared setting, and what was not compared.")
@click.argument("logs", nargs=-1, required=True)
def confirm(fmt, gpu, env, vllm_version, record_dir, offline, verbose, logs) -> None:
    """Read vLLM start logs (files, `-` for stdin) and hold each engine start against the prediction."""
    from vllm_preflight import model_files
    from vllm_preflight.cli import hub_notice, say, usage_error
    from vllm_preflight.confirm import render
    from vllm_preflight.confirm.compare import compare
    from vllm_preflight.errors import UsageProblem

    for name, value in (("--gpu", gpu), ("--vllm-version", vllm_version), ("--record", record_dir)):
        if value is not None and not value.strip():  # `--record ""` would silently record nothing
            raise usage_error(UsageProblem(f"{name} is empty; give a value or leave the option out"))
    try:
        if gpu:
            from vllm_preflight.gpus import get_gpu

            gpu = get_gpu(gpu).name
        if vllm_version:  # a typo is refused before any log is read, as `check` refuses it
            from vllm_preflight.api import target_name

            target_name(vllm_version, "release")
    except UsageProblem as e:
        raise usage_error(e) from None
    env_pairs = _pairs(env)
    model_files.begin_run(True if offline else None)  # the logged model's config.json, as `check` reads it
    comparisons = []
    errors: list[str] = []
    for path in logs:
        try:
            starts, notes = read_log(path)
        except LogProblem as e:
            errors.append(str(e))
            say(str(e))
            continue
        for n in notes:
            errors.append(n)
            say(n)
        if not starts:
            msg = f"{'<stdin>' if path == '-' else path}: no vLLM engine start found (no `Initializing a V1 LLM engine (vX) with config:` line)"
            errors.append(msg)
            say(msg)
        for st in starts:
            try:
                comparisons.append(compare(st, "<stdin>" if path == "-" else path, gpu=gpu, env=env_pairs,
                                           vllm_version=vllm_version))
            except UsageProblem as e:
                raise usage_error(e) from None
    hub_notice()
    if fmt == "json":
        click.echo(render.to_json(comparisons, errors))
    elif fmt == "concise":
        text = render.concise(comparisons)
        if text:
            click.echo(text)
    elif comparisons:
        click.echo(render.text(comparisons, verbose))
    if record_dir:
        from vllm_preflight.confirm.record import write

        try:
            for p in write(record_dir, comparisons):
                say(f"wrote {p}")
        except OSError as e:
            raise usage_error(UsageProblem(f"--record {record_dir}: {e.strerror or e}")) from None
    compared = [c for c in comparisons if c.compared]
    if any(not c.agrees for c in comparisons):
        sys.exit(EXIT_DISAGREE)
    if not compared:
        if comparisons:
            say("no engine start could be compared (see the lines above)")
        sys.exit(EXIT_NOTHING)
    sys.exit(EXIT_AGREE)
