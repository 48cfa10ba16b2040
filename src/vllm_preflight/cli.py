"""The `vllm-preflight` command line: argument handling only.

Exit codes (documented in the README; `check`'s in vllm_preflight.outcome):
  0  check: no finding at or above --fail-on
  1  check: a finding at or above --fail-on, a vLLM refusal always (verify: a check failed)
  2  usage error, unreadable input, or no vLLM server in what was given
  3  internal error (verify: the tier's hardware or package is missing; 4 internal)
  130 / 143  interrupted by Ctrl-C (SIGINT) / SIGTERM, every command

`run` is the one place that turns what ends a command into its exit code and its last line on
stderr; every message written there passes through safe_text (`say`, `usage_error`).
"""
from __future__ import annotations

import errno
import os
import stat
import sys
from typing import ClassVar

import click

from vllm_preflight import __version__

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def say(message: str) -> None:
    """One line on stderr, `vllm-preflight: ...`, with the input's text in it made visible."""
    from vllm_preflight.safe_text import visible

    click.echo(f"vllm-preflight: {visible(message)}", err=True)


def usage_error(problem: Exception) -> click.UsageError:
    """A UsageProblem as click's usage error (exit 2), its text made visible."""
    from vllm_preflight.safe_text import visible

    return click.UsageError(visible(str(problem)))


class _Group(click.Group):
    """Commands of later stages are imported only when they are invoked (keeps `check` fast)."""

    lazy: ClassVar[dict[str, tuple[str, str]]] = {
        "verify": ("vllm_preflight.verify.command", "verify"),
        "schema": ("vllm_preflight.schema.command", "schema"),
        "rules": ("vllm_preflight.rule_docs", "rules"),
        "explain": ("vllm_preflight.rule_docs", "explain"),
        "matrix": ("vllm_preflight.matrix.command", "matrix"),
        "confirm": ("vllm_preflight.confirm.command", "confirm"),
    }

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx, name):
        if name in self.lazy:
            module, attr = self.lazy[name]
            try:
                import importlib

                return getattr(importlib.import_module(module), attr)
            except ImportError:
                return None
        return super().get_command(ctx, name)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="vllm-preflight")
def cli() -> None:
    """Tell what vLLM will actually run for a deployment, before a GPU is booked."""


def _pairs(values: tuple[str, ...], option: str) -> list[tuple[str, str]]:
    out = []
    for v in values:
        if "=" not in v:
            raise click.UsageError(f"{option} takes KEY=VALUE, got {v!r}")
        k, _, val = v.partition("=")
        out.append((k, val))
    return out


class _CommandAfterDashes(click.Command):
    """Keeps the words after the first `--` as one server command, untouched by click."""

    def parse_args(self, ctx, args):
        if "--" in args:
            cut = args.index("--")
            ctx.meta["command_words"] = args[cut + 1:]
            args = args[:cut]
        return super().parse_args(ctx, args)


def _gpu_help() -> str:
    from vllm_preflight.gpus import DEFAULT_GPU, GPUS

    names = ", ".join(f"{n} (default)" if n == DEFAULT_GPU else n for n in GPUS)
    return f"GPU the deployment runs on: {names}; a deployment file's `gpu` wins over the default."


def _rules(values: tuple[str, ...]) -> list[str]:
    """Rule codes or prefixes given as repeated options and/or comma lists (`VP301,VP1`)."""
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


VERBOSE_HELP = ("Also list every default vLLM filled in, the files skipped as holding no vLLM server, and the "
                "parts of files left out (a Markdown block that is no command, a YAML document that is not read).")


@cli.command(cls=_CommandAfterDashes)
@click.option("--vllm-version", "vllm_version", metavar="V",
              help="vLLM release to resolve for (default: the newest supported, 0.33.0).")
@click.option("--target", type=click.Choice(["release", "pr29558"]), default="release", show_default=True,
              help="`pr29558`: the unreleased PR #29558 design (MoE ops split out of piecewise "
                   "CUDA graphs for DeepEP high-throughput with DP>1), on its base vLLM 0.12.0.")
@click.option("--gpu", default=None, metavar="GPU", help=_gpu_help())
@click.option("--gpu-cc", "gpu_cc", default=None, metavar="X.Y",
              help="CUDA compute capability of the GPU (e.g. 9.0, 10.0, 10.3, 12.0); replaces that of "
                   "--gpu for the runtime stage's attention-backend choice.")
@click.option("--env", "env", multiple=True, metavar="K=V",
              help="Environment variable of the deployment (wins over leading K=V words).")
@click.option("--assume", "assume", multiple=True, metavar="K=V",
              help="Pin a fact, e.g. model.is_moe=true (model facts) or a shell variable.")
@click.option("--input-format", "input_format", default="auto", show_default=True,
              type=click.Choice(["auto", "shell", "markdown", "vllm-config", "kubernetes", "compose", "preflight"]),
              help="Read every FILE as this format instead of detecting it from the content.")
@click.option("--format", "fmt", default="text", show_default=True,
              type=click.Choice(["text", "concise", "json", "sarif", "github", "junit"]),
              help="text: the readable report; concise: `path:line:col: severity RULE message` lines; "
                   "json: the JSON contract; sarif: SARIF 2.1.0 (code scanning); github: workflow "
                   "annotations; junit: JUnit XML.")
@click.option("--fail-on", "fail_on", default="error", show_default=True,
              type=click.Choice(["error", "warning", "info", "never"]),
              help="Exit 1 when a finding of this severity or above remains (a vLLM refusal is an error).")
@click.option("--select", "select", multiple=True, metavar="RULES",
              help="Report only these rules: codes or prefixes, comma-separated or repeated (VP3, VP301,VP1); "
                   "replaces the configuration's `select`. VP300 (vLLM refuses) is always reported.")
@click.option("--extend-select", "extend_select", multiple=True, metavar="RULES",
              help="Report these rules besides the selected ones (codes or prefixes).")
@click.option("--ignore", "ignore", multiple=True, metavar="RULES",
              help="Do not report these rules (codes or prefixes); added to the configuration's `ignore`.")
@click.option("--output-file", "-o", "output_file", multiple=True, metavar="[FORMAT:]PATH",
              help="Write the report to PATH instead of standard output (messages stay on stderr); "
                   "FORMAT:PATH writes that format there besides the --format report on standard output "
                   "(e.g. --format github -o sarif:results.sarif: one run, both). Repeatable.")
@click.option("--statistics", is_flag=True,
              help="After the report, the number of findings per rule (on stderr with --output-file "
                   "or a machine format).")
@click.option("--color", "color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the text report: auto (on a terminal, unless NO_COLOR is set; FORCE_COLOR forces "
                   "it), always, never.")
@click.option("--offline", is_flag=True,
              help="Read model files from local folders and the Hugging Face cache only; never the Hub "
                   "(HF_HUB_OFFLINE=1 does the same).")
@click.option("--verbose", "-v", is_flag=True, help=VERBOSE_HELP)
@click.option("--allow-path", "allow_paths", multiple=True, metavar="DIR",
              help="A folder whose files an input may name (`--config`, `source`, `from:`) besides its own "
                   "folder tree; repeatable (also `allow-path` in the project config).")
@click.option("--role", "role", default=None, type=click.Choice(["prefill", "decode", "both"]),
              help="Every server's role in a prefill/decode split, over what the deployment says (labels, "
                   "names, kv_role): graphs off is information on a prefill-only server.")
@click.option("--skip-non-deployments", is_flag=True,
              help="A named FILE or folder holding no vLLM server is skipped, not an error, and finding "
                   "none at all exits 0 (the pre-commit hook passes every YAML and shell file).")
# no click path checks: an unreadable input is that input's error, after the others are checked
@click.argument("inputs", nargs=-1, type=click.Path(readable=False))
def check(vllm_version, target, gpu, gpu_cc, env, assume, input_format, fmt, fail_on, select, extend_select,
          ignore, output_file, statistics, color, offline, verbose, allow_paths, skip_non_deployments,
          inputs, role=None) -> None:
    """Resolve deployments: FILEs and folders (shell scripts, Markdown guides, vLLM --config YAML,
    Kubernetes manifests, Compose files, *.preflight.yaml; every vLLM server in them), or
    `-- vllm serve MODEL ...` (vllm-preflight's own options go before `--`).

    Every option also has a key in the project configuration ([tool.vllm-preflight] in
    pyproject.toml, or .vllm-preflight.yaml): its long name, e.g. fail-on = "warning"."""
    from vllm_preflight import ignores, outcome, project
    from vllm_preflight.api import begin_reads, check_inputs, mark_read
    from vllm_preflight.errors import UsageProblem

    begin_reads()  # the files this run reads (an in-process caller may run check again)
    ctx = click.get_current_context()
    try:
        proj = project_settings()  # a broken config file is a usage error before any work
        if proj.path:  # the project configuration is an input too: never an --output-file
            mark_read(proj.path)
        given = {name: value for name, value in ctx.params.items()
                 if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT}
        opts = {**proj.options, **given}
        for name in ("env", "assume"):  # the command line's come after the file's (later wins)
            opts[name] = (*proj.options.get(name, ()), *given.get(name, ()))
        vllm_version, target, gpu, gpu_cc = (opts.get(k, ctx.params[k]) for k in
                                             ("vllm_version", "target", "gpu", "gpu_cc"))
        input_format, fmt, fail_on, color, role = (opts.get(k, ctx.params[k]) for k in
                                                   ("input_format", "fmt", "fail_on", "color", "role"))
        output_file, statistics, offline, verbose, skip_non_deployments = (
            opts.get(k, ctx.params[k]) for k in ("output_file", "statistics", "offline", "verbose",
                                                 "skip_non_deployments"))
        require = not skip_non_deployments
        outputs = _outputs(output_file if isinstance(output_file, (list, tuple)) else (output_file,))
        _not_an_input(outputs, inputs)
        for name, given_rules in (("--select", select), ("--extend-select", extend_select)):
            if given_rules and not _rules(given_rules):  # `--select ""`: a typo, never "every rule" or "none"
                raise UsageProblem(f"{name} names no rule; give codes or prefixes, e.g. {name} VP3 (ALL: every rule)")
        keep = project.selected(proj, _rules(select), _rules(extend_select))
        config = project.effective(proj, _rules(ignore))
        command = ctx.meta.get("command_words")
        if gpu_cc:  # `NAME@X.Y`: gpus.get_gpu replaces the capability
            from vllm_preflight.gpus import parse_cc

            parse_cc(gpu_cc)
            gpu = f"{gpu or ''}@{gpu_cc}"
        report = check_inputs(list(inputs), command=command, vllm_version=vllm_version,
                              target=target, gpu=gpu, env=_pairs(opts["env"], "--env"),
                              assume=_pairs(opts["assume"], "--assume"), input_format=input_format,
                              require_servers=require, allow_paths=[*allow_paths, *config.allow_paths],
                              max_servers=config.max_servers, offline=True if offline else None,
                              role=role, side_by_side=bool({fmt, *(each for each, _ in outputs)}
                                                           & {"text", "json"}))  # the reports showing PR #29558's block
    except UsageProblem as e:
        raise usage_error(e) from None
    for err in report.errors:
        say(err.render())
    hub_notice()
    for r in report.results:
        outcome.ensure_refusal(r)
    ignores.apply(report, config)
    project.deselect(report, keep)
    project.apply_severity(report, proj)
    for path in report.skipped:  # a link a walk did not follow is always said; the rest with -v
        if verbose or getattr(path, "always", False):
            say(f"skipped {path}: {getattr(path, 'reason', 'holds no vLLM server')}")
    if require and not report.results and not report.errors:
        say("no vLLM server found in what was given; nothing was checked")
    _dashes_hint(command, report)
    to_stdout = True
    for _, path in outputs:  # every PATH checked before the first is written
        _refuse_input(path)
    for each, path in outputs:
        to_stdout = to_stdout and each is not None
        _write_file(path, lambda stream, each=each: _render(each or fmt, report, fail_on, verbose, require,
                                                            "always" if color == "always" else "never", stream))
    if to_stdout:
        _emit(lambda: _render(fmt, report, fail_on, verbose, require, color))
    if statistics:
        _statistics(report, to_stderr=not to_stdout or fmt != "text")
    sys.exit(outcome.exit_code(report, fail_on, require_servers=require))


def project_settings():
    """The project configuration with every key (project.find), none when the working folder was
    deleted: the search would start in run()'s stand-in and climb to folders the user never named."""
    from vllm_preflight import project

    return project.Project() if _STAND_IN else project.find()


def _dashes_hint(command, report) -> None:
    """`check -- vllm serve ... --format json`: the tool's options after `--` are the server's."""
    dashes_hint(command, check, [f for r in report.results for f in r.extra.get("findings") or []])


def dashes_hint(command, tool: click.Command, findings) -> None:
    """Say so when a word after `--` is one of `tool`'s own options that vLLM rejected (VP201)."""
    if not command:
        return
    ours = {o for p in tool.params for o in p.opts if o.startswith("--") and o != "--help"}
    unknown = {str(f.get("message", "")).split("`")[1] for f in findings
               if f.get("rule") == "VP201" and str(f.get("message", "")).count("`") >= 2}
    misplaced = [w.split("=", 1)[0] for w in command if w.split("=", 1)[0] in ours & unknown]
    if misplaced:
        names = list(dict.fromkeys(misplaced))
        say(f"hint: {', '.join(names)} after `--` {'is' if len(names) == 1 else 'are'} read as part of the vLLM command; "
            f"vllm-preflight's own options go before `--` ({tool.name} --format json -- vllm serve ...)")


FORMATS = ("text", "concise", "json", "sarif", "github", "junit")


def _outputs(values) -> list[tuple[str | None, str]]:
    """--output-file values as (format or None for --format's, path); `sarif:out.sarif` names its
    format (only a known format name before the first `:` does: `./sarif:x` is a path)."""
    from vllm_preflight.errors import UsageProblem

    out: list[tuple[str | None, str]] = []
    for v in values:
        head, sep, rest = str(v).partition(":")
        if sep and head.lower() in FORMATS:  # `SARIF:x` is the format too, never a file named so
            if not rest:
                raise UsageProblem(f"--output-file {v}: give a path after `{head}:`")
            out.append((head.lower(), rest))
        elif v:
            out.append((None, str(v)))
    if sum(1 for f, _ in out if f is None) > 1:
        raise UsageProblem("--output-file: the --format report goes to one PATH; name the others' "
                           "format (sarif:PATH)")
    seen: dict[str, str] = {}
    for _, path in out:  # two reports into one file: the second would silently replace the first
        key = os.path.realpath(path)
        if key in seen:
            raise UsageProblem(f"--output-file {path}: named twice (also as {seen[key]}); give each report its own PATH")
        seen[key] = path
    return out


def _not_an_input(outputs, inputs) -> None:
    """An --output-file that is one of the named input files is refused before any work: the
    report never replaces what it reports on."""
    from vllm_preflight.errors import UsageProblem

    named = []
    for each in inputs:
        try:
            named.append(os.stat(each))
        except (OSError, ValueError):
            continue
    for _, path in outputs:  # a PATH that cannot be written is said before the work, not after it
        folder = os.path.dirname(path) or "."
        if os.path.isdir(path) or not os.path.isdir(folder):
            why = ("is a directory" if os.path.isdir(path) else f"{folder} is a file, not a folder"
                   if os.path.exists(folder) else f"its folder {folder} does not exist")
            raise UsageProblem(f"--output-file {path}: cannot write: {why}")
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(st.st_mode) and any(st.st_dev == n.st_dev and st.st_ino == n.st_ino for n in named):
            raise UsageProblem(f"--output-file {path}: is an input file; not overwritten (name another PATH)")


def _statistics(report, to_stderr: bool) -> None:
    from vllm_preflight import project
    from vllm_preflight.findings import RULES

    rows = project.statistics(report)
    lines = [f"{n:>5}  {rule}  {severity:<7}  {getattr(RULES.get(rule), 'name', '')}".rstrip()
             for rule, severity, n in rows] or ["    0  findings"]
    for line in lines:
        click.echo(line, err=to_stderr)


def _refuse_input(path: str) -> None:
    from vllm_preflight.api import was_read
    from vllm_preflight.errors import UsageProblem

    if was_read(path):  # a file a folder walk, --config or source read: never overwritten
        raise usage_error(UsageProblem(f"--output-file {path}: is a file this check read as input; "
                                       "not overwritten (name another PATH)"))


def _write_file(path: str, write) -> None:
    from vllm_preflight.errors import UsageProblem

    _refuse_input(path)
    try:
        # O_NONBLOCK: a FIFO nobody reads fails at once (ENXIO) instead of blocking the open forever
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as e:
        why = "a pipe nobody reads" if e.errno == errno.ENXIO else e.strerror or e
        raise usage_error(UsageProblem(f"--output-file {path}: cannot write: {why}")) from None
    try:
        os.set_blocking(fd, True)  # a reader that is there gets every byte
        with open(fd, "w", encoding="utf-8", newline="\n") as stream:
            write(stream)
    except OSError as e:
        raise usage_error(UsageProblem(f"--output-file {path}: cannot write: {e.strerror or e}")) from None


def hub_notice() -> None:
    """Say on stderr which model files came from the network (never silently)."""
    from vllm_preflight import model_files

    got = model_files.fetched()
    if got:
        from vllm_preflight.model_files.hub import endpoint

        say(f"read model files from {endpoint()}: {', '.join(got)} (--offline: cache only)")


def _render(fmt: str, report, fail_on: str, verbose: bool, require: bool, color: str = "auto",
            stream=None) -> None:
    """Write the report to `stream` (standard output); machine formats import neither rich nor
    the text report."""
    if fmt == "text":
        from vllm_preflight.report.text_report import make_out, render_text

        render_text(report, verbose=verbose, out=make_out(color=color, stream=stream))
        return
    if fmt == "json":
        from vllm_preflight.report.json_report import render_json

        text = render_json(report, fail_on, require_servers=require)
    elif fmt == "concise":
        from vllm_preflight.report.concise import render_concise

        text = render_concise(report, fail_on)
    elif fmt == "sarif":
        from vllm_preflight.report.sarif import render_sarif

        text = render_sarif(report)
    elif fmt == "github":
        from vllm_preflight.report.github import render_github

        text = render_github(report)
    else:
        from vllm_preflight.report.junit import render_junit

        text = render_junit(report, fail_on)
    if text:
        click.echo(text, file=stream)


def _emit(write) -> None:
    """Run `write`; a reader that closed the pipe early (`check ... | head -1`) is not an error."""
    try:
        write()
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()


def _silence_stdout() -> None:
    # Python flushes stdout again at exit, which would fail on the closed pipe once more
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


# ------------------------------------------------------------------ the process's edges
_STAND_IN: str | None = None  # the empty folder run() works in when the current one was deleted


def project_config():
    """The ignores' part of the project configuration (project_settings), as `matrix` reads it."""
    return project_settings().ignores


def _tolerant_output() -> None:
    """Output the terminal's encoding cannot show (PYTHONIOENCODING=ascii, a C locale) is written
    as backslash escapes instead of ending the run: a report is never lost to its encoding."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            pass


def _working_folder() -> None:
    """A working folder deleted under the tool (`rm -rf` of the folder a shell still sits in):
    work from a new empty folder, where a relative path names nothing, as in the deleted one,
    and absolute paths still read."""
    global _STAND_IN
    try:
        os.getcwd()
        return
    except OSError:
        pass
    import atexit
    import tempfile

    _STAND_IN = tempfile.mkdtemp(prefix="vllm-preflight-")
    os.chdir(_STAND_IN)
    atexit.register(_remove_stand_in, _STAND_IN)
    say("the current folder no longer exists: relative paths name nothing, and no project "
        "configuration is read")


def _remove_stand_in(path: str) -> None:
    try:
        os.chdir("/")
        os.rmdir(path)
    except OSError:
        pass


def run(argv: list[str] | None = None) -> int:
    """The command line from start to end: its exit code. Usage errors (click's own included,
    whose messages may quote the input) are shown through safe_text, exit 2; Ctrl-C exits 130 and
    SIGTERM 143 in every command, whatever it was doing; a bug is one line and exit 3."""
    from vllm_preflight.interrupts import EXIT_SIGINT, Interrupted, raising

    _tolerant_output()
    try:
        with raising():
            _working_folder()
            try:
                code = cli.main(args=argv, prog_name="vllm-preflight", standalone_mode=False)
            except SystemExit as e:
                code = e.code
            except click.ClickException as e:
                from vllm_preflight.safe_text import visible

                e.message = visible(e.message)  # type: ignore[misc]  # Final in the stubs only
                e.show()
                return e.exit_code
            except click.Abort:  # a KeyboardInterrupt click caught first
                say("interrupted by SIGINT")
                return EXIT_SIGINT
        return code if isinstance(code, int) else EXIT_OK if code is None else EXIT_USAGE
    except (Interrupted, KeyboardInterrupt) as e:
        _quietly(say, str(e) if isinstance(e, Interrupted) else "interrupted by SIGINT")
        return e.exit_code if isinstance(e, Interrupted) else EXIT_SIGINT
    except Exception as e:  # noqa: BLE001 - the one place that turns bugs into exit 3
        _quietly(say, f"internal error: {type(e).__name__}: {e}")
        return EXIT_INTERNAL


def _quietly(write, *args) -> None:
    """A last line on stderr; a stderr that is gone (closed pipe) is no reason for a traceback."""
    try:
        write(*args)
    except (OSError, ValueError):
        pass


def main() -> None:
    from vllm_preflight.interrupts import Interrupted

    try:
        code = run()
    except Interrupted as e:  # a second signal while the first was being reported
        code = e.exit_code
    sys.exit(code)


if __name__ == "__main__":
    main()
