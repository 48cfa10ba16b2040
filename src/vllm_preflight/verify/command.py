"""The `verify` click command: options to settings, then `runner.execute`. No torch here."""
from __future__ import annotations

import sys

import click

TIERS = ("cpu", "gpu", "multi-gpu")


class _Choice(click.Choice):
    """click.Choice that suggests the closest choice for a typo."""

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as e:
            import difflib

            close = difflib.get_close_matches(str(value), [str(c) for c in self.choices], n=1, cutoff=0.5)
            if not close:
                raise
            self.fail(f"{e.message} Did you mean {close[0]!r}?", param, ctx)


def _pairs(values: tuple[str, ...], option: str) -> tuple[tuple[str, str], ...]:
    from vllm_preflight.cli import _pairs as pairs

    return tuple(pairs(values, option))


def _command_class():
    from vllm_preflight.cli import _CommandAfterDashes

    return _CommandAfterDashes


@click.command(cls=_command_class())
@click.option("--vllm-version", "vllm_version", metavar="V",
              help="vLLM release to resolve for (default: the newest supported).")
@click.option("--target", type=_Choice(["release", "pr29558"]), default="release", show_default=True,
              help="`pr29558`: the unreleased PR #29558 design (MoE ops split out of piecewise CUDA graphs "
                   "for DeepEP high-throughput with DP>1).")
@click.option("--tier", type=_Choice(TIERS), default="cpu", show_default=True,
              help="cpu: emulated graph replay and gloo ranks; gpu: real CUDA graphs on one GPU; "
                   "multi-gpu: one process per GPU with NCCL and real deep_ep.")
@click.option("--format", "fmt", type=_Choice(["text", "json"]), default="text", show_default=True,
              help="json: the record on stdout (progress goes to stderr).")
@click.option("--output", "output", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write the JSON record to FILE (checked for writability before anything runs).")
@click.option("--record", "record_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write this run's record into DIR as one JSON file per run (read by `matrix --records DIR`).")
@click.option("--select", "select", metavar="NAME|INDEX",
              help="Which deployment of a file that holds several (INDEX counts from 0, as listed).")
@click.option("--gpu", default="H200", show_default=True, metavar="GPU", help="GPU the deployment runs on.")
@click.option("--env", "env", multiple=True, metavar="K=V", help="Environment variable of the deployment.")
@click.option("--assume", "assume", multiple=True, metavar="K=V", help="Pin a fact, e.g. model.is_moe=true.")
@click.option("--world-size", type=click.Choice(["2", "4", "8"]),
              help="Ranks for the multi-process checks (cpu: gloo ranks, default 2; multi-gpu: GPUs, "
                   "default the most of 2, 4, 8 present). DeepEP's kernels exist for these counts only.")
@click.option("--node-vllm", "node_vllm", type=_Choice(["auto", "off"]), default="auto", show_default=True,
              help="auto: where vLLM is importable, resolve the deployment with its own create_engine_config "
                   "(R1, on a GPU) and split the toy with its own split_graph (S1) and CUDA-graph wrapper "
                   "(G4, tier gpu); off: verify's own implementation only.")
@click.option("--time-budget", "time_budget", type=click.FloatRange(min=1), metavar="SECONDS",
              help="Tiers gpu and multi-gpu: cut optional steps (timings, vLLM's wrapper) to end within SECONDS; "
                   "what was cut is reported.")
@click.argument("config", type=click.Path(), required=False)
def verify(vllm_version, target, tier, fmt, output, record_dir, select, gpu, env, assume, world_size, node_vllm,
           time_budget, config) -> None:
    """Prove on this machine that the CUDA graphs CONFIG's resolved settings imply compute what
    eager mode computes, or show where they cannot. CONFIG is a file, or give the server
    command after `--`: `verify -- vllm serve MODEL ...`.

    Exit codes: 0 pass (or nothing is captured), 1 a check failed or a negative control was not
    caught, 2 usage or config error (including a config vLLM itself refuses), 3 the tier's
    hardware or package is missing here, 4 internal error in verify, 130 interrupted (Ctrl-C;
    143 for SIGTERM).
    """
    from vllm_preflight.errors import UsageProblem
    from vllm_preflight.verify.runner import VerifySettings, execute

    command = tuple(click.get_current_context().meta.get("command_words") or ())
    if not config and not command:
        raise click.UsageError("nothing to verify: give CONFIG or -- vllm serve MODEL ...")
    if config and command:
        raise click.UsageError("give CONFIG or a command after --, not both")
    settings = VerifySettings(config=config or "<command line>", command=command, vllm_version=vllm_version,
                              target=target, tier=tier, fmt=fmt, output=output, record_dir=record_dir,
                              select=select, gpu=gpu, env=_pairs(env, "--env"), assume=_pairs(assume, "--assume"),
                              world_size=int(world_size) if world_size else None, node_vllm=node_vllm,
                              time_budget=time_budget)
    try:
        code = execute(settings)
    except UsageProblem as e:
        raise click.UsageError(str(e)) from None
    sys.exit(code)
