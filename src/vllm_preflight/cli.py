"""The `vllm-preflight` command line: argument handling only.

Exit codes (documented in the README; `check`'s in vllm_preflight.outcome):
  0  check: no finding at or above --fail-on
  1  check: a finding at or above --fail-on, a vLLM refusal always (verify: a check failed)
  2  usage error, unreadable input, or no vLLM server in what was given
  3  internal error (verify: the tier's hardware or package is missing; 4 internal, 130/143 interrupted)
"""
from __future__ import annotations

import sys
from typing import ClassVar

import click

from vllm_preflight import __version__

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class _Group(click.Group):
    """Commands of later stages are imported only when they are invoked (keeps `check` fast)."""

    lazy: ClassVar[dict[str, tuple[str, str]]] = {
        "verify": ("vllm_preflight.verify.command", "verify"),
        "schema": ("vllm_preflight.schema.command", "schema"),
        "rules": ("vllm_preflight.rule_docs", "rules"),
        "explain": ("vllm_preflight.rule_docs", "explain"),
        "matrix": ("vllm_preflight.matrix.command", "matrix"),
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


@cli.command(cls=_CommandAfterDashes)
@click.option("--vllm-version", "vllm_version", metavar="V",
              help="vLLM release to resolve for (default: the newest supported, 0.33.0).")
@click.option("--target", type=click.Choice(["release", "pr29558"]), default="release", show_default=True,
              help="`pr29558`: the unreleased PR #29558 design (MoE ops split out of piecewise "
                   "CUDA graphs for DeepEP high-throughput with DP>1), on its base vLLM 0.12.0.")
@click.option("--gpu", default=None, metavar="GPU",
              help="GPU the deployment runs on: H100, H200, H20, B200, GB200, B300, GB300, A100, L40S, "
                   "RTX4090, RTX5090, RTXPRO6000, GB10 (default: a deployment file's `gpu`, else H200).")
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
@click.option("--verbose", "-v", is_flag=True, help="Also list the files skipped as holding no vLLM server, and "
              "the parts of files left out (a Markdown block that is no command, a YAML document that is not read).")
@click.option("--skip-non-deployments", is_flag=True,
              help="A named FILE or folder holding no vLLM server is skipped, not an error, and finding "
                   "none at all exits 0 (the pre-commit hook passes every YAML and shell file).")
# no click path checks: an unreadable input is that input's error, after the others are checked
@click.argument("inputs", nargs=-1, type=click.Path(readable=False))
def check(vllm_version, target, gpu, gpu_cc, env, assume, input_format, fmt, fail_on, verbose,
          skip_non_deployments, inputs) -> None:
    """Resolve deployments: FILEs and folders (shell scripts, Markdown guides, vLLM --config YAML,
    Kubernetes manifests, Compose files, *.preflight.yaml; every vLLM server in them), or
    `-- vllm serve MODEL ...`."""
    from vllm_preflight import ignores, outcome
    from vllm_preflight.api import check_inputs
    from vllm_preflight.errors import UsageProblem
    from vllm_preflight.safe_text import visible

    require = not skip_non_deployments
    try:
        config = ignores.find_config()  # a broken config file is a usage error before any work
        command = click.get_current_context().meta.get("command_words")
        if gpu_cc:  # `NAME@X.Y`: gpus.get_gpu replaces the capability
            from vllm_preflight.gpus import parse_cc

            parse_cc(gpu_cc)
            gpu = f"{gpu or ''}@{gpu_cc}"
        report = check_inputs(list(inputs), command=command, vllm_version=vllm_version,
                              target=target, gpu=gpu, env=_pairs(env, "--env"),
                              assume=_pairs(assume, "--assume"), input_format=input_format,
                              require_servers=require)
    except UsageProblem as e:
        raise click.UsageError(visible(str(e))) from None
    for err in report.errors:
        click.echo(f"vllm-preflight: {visible(err.render())}", err=True)
    for r in report.results:
        outcome.ensure_refusal(r)
    ignores.apply(report, config)
    if verbose:
        for path in report.skipped:
            reason = getattr(path, "reason", "holds no vLLM server")  # load.loaded.Skipped: a part of a file
            click.echo(f"vllm-preflight: skipped {visible(path)}: {visible(reason)}", err=True)
    if require and not report.results and not report.errors:
        click.echo("vllm-preflight: no vLLM server found in what was given; nothing was checked", err=True)
    _emit(lambda: _render(fmt, report, fail_on, verbose, require))
    sys.exit(outcome.exit_code(report, fail_on, require_servers=require))


def _render(fmt: str, report, fail_on: str, verbose: bool, require: bool) -> None:
    """Write the report; machine formats import neither rich nor the text report."""
    if fmt == "text":
        from vllm_preflight.report.text_report import render_text

        render_text(report, verbose=verbose)
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
        click.echo(text)


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


def main() -> None:
    try:
        cli(standalone_mode=True)
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001 - the one place that turns bugs into exit 3
        from vllm_preflight.safe_text import visible

        click.echo(visible(f"vllm-preflight: internal error: {type(e).__name__}: {e}"), err=True)
        sys.exit(EXIT_INTERNAL)


if __name__ == "__main__":
    main()
