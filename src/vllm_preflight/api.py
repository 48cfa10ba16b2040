"""The pipeline in one call: load inputs, pick the target, resolve each deployment.

Used by the CLI and by other commands (verify, matrix) that need resolved settings.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from vllm_preflight.errors import InputError, InputFailure, UsageProblem
from vllm_preflight.model import Deployment, Resolution
from vllm_preflight.releases import NEWEST, PR29558, PR29558_BASE, SUPPORTED


@dataclass
class Report:
    results: list[Resolution] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)


def target_name(vllm_version: str | None, target: str) -> str:
    """The release key to resolve with; a usage error names the supported range."""
    if target == PR29558:
        if vllm_version not in (None, PR29558_BASE):
            raise UsageProblem(f"--target pr29558 runs on vLLM {PR29558_BASE} (the PR's base); "
                               f"drop --vllm-version {vllm_version}")
        return PR29558
    version = vllm_version or NEWEST
    if version.startswith("v"):
        version = version[1:]
    if version not in SUPPORTED:
        raise UsageProblem(f"unsupported --vllm-version {vllm_version!r}: supported releases are "
                           f"{SUPPORTED[0]} to {SUPPORTED[-1]} ({', '.join(SUPPORTED)})")
    return version


def split_assume(assume: list[tuple[str, str]]) -> tuple[dict[str, str], dict[str, str]]:
    """`model.FACT=V` pins a model fact; any other NAME=V pins a variable in the input."""
    model, variables = {}, {}
    for k, v in assume:
        if k.startswith("model."):
            model[k[len("model."):]] = v
        else:
            variables[k] = v
    return model, variables


def load_inputs(paths: list[str], command: list[str] | None, variables: dict[str, str]
                ) -> tuple[list[Deployment], list[InputError]]:
    from vllm_preflight.load import deployment_from_words, load_path

    deployments: list[Deployment] = []
    errors: list[InputError] = []
    for p in paths:
        try:
            deployments.extend(load_path(p))
        except InputFailure as e:
            errors.append(e.error)
    if command:
        deployments.append(deployment_from_words(command))
    return deployments, errors


def check_inputs(paths: list[str], *, command: list[str] | None = None,
                 vllm_version: str | None = None, target: str = "release", gpu: str = "H200",
                 env: list[tuple[str, str]] = (), assume: list[tuple[str, str]] = ()) -> Report:
    from vllm_preflight.gpus import get_gpu
    from vllm_preflight.resolve import resolve

    name = target_name(vllm_version, target)
    hw = get_gpu(gpu)
    model_assume, variables = split_assume(list(assume))
    if not paths and not command:
        raise UsageProblem("nothing to check: give FILE... or -- vllm serve MODEL ...")
    deployments, errors = load_inputs(paths, command, variables)
    report = Report(errors=errors)
    for d in deployments:
        report.results.append(resolve(d, name, gpu=hw, extra_env=list(env), model_assume=model_assume))
    return report
