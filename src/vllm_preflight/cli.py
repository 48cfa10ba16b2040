"""The `vllm-preflight` command line: argument handling only.

Exit codes (documented in the README):
  0  every input resolved and vLLM would start
  1  vLLM would refuse at least one input (or, for verify, a check failed)
  2  usage error or unreadable input
  3  internal error (for verify: the tier's hardware or package is missing)
"""
from __future__ import annotations

import sys

import click

from vllm_preflight import __version__

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class _Group(click.Group):
    """Commands of later stages are imported only when they are invoked (keeps `check` fast)."""

    lazy = {
        "verify": ("vllm_preflight.verify.command", "verify"),
        "schema": ("vllm_preflight.schema.command", "schema"),
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
              help="GPU the deployment runs on: H100, H200, B200, GB200, A100 "
                   "(default: a deployment file's `gpu`, else H200).")
@click.option("--env", "env", multiple=True, metavar="K=V",
              help="Environment variable of the deployment (wins over leading K=V words).")
@click.option("--assume", "assume", multiple=True, metavar="K=V",
              help="Pin a fact, e.g. model.is_moe=true (model facts) or a shell variable.")
@click.option("--input-format", "input_format", default="auto", show_default=True,
              type=click.Choice(["auto", "shell", "markdown", "vllm-config", "kubernetes", "preflight"]),
              help="Read every FILE as this format instead of detecting it from the content.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.argument("inputs", nargs=-1, type=click.Path())
def check(vllm_version, target, gpu, env, assume, input_format, fmt, inputs) -> None:
    """Resolve deployments: FILEs and folders (shell scripts, vLLM --config YAML, Kubernetes
    manifests, *.preflight.yaml; every vLLM server in them), or `-- vllm serve MODEL ...`."""
    from vllm_preflight.api import check_inputs
    from vllm_preflight.errors import UsageProblem

    try:
        command = click.get_current_context().meta.get("command_words")
        report = check_inputs(list(inputs), command=command, vllm_version=vllm_version,
                              target=target, gpu=gpu, env=_pairs(env, "--env"),
                              assume=_pairs(assume, "--assume"), input_format=input_format)
    except UsageProblem as e:
        raise click.UsageError(str(e)) from None
    for err in report.errors:
        click.echo(f"vllm-preflight: {err.render()}", err=True)
    if fmt == "json":
        from vllm_preflight.report.json_report import render_json

        click.echo(render_json(report))
    else:
        from vllm_preflight.report.text_report import render_text

        render_text(report)
    if report.errors:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_OK if all(r.starts for r in report.results) else EXIT_REFUSED)


def main() -> None:
    try:
        cli(standalone_mode=True)
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001 - the one place that turns bugs into exit 3
        click.echo(f"vllm-preflight: internal error: {type(e).__name__}: {e}", err=True)
        sys.exit(EXIT_INTERNAL)


if __name__ == "__main__":
    main()
