"""`execute(settings) -> exit code`: resolve, plan, run the tier, write the record.

The one place that maps what happened to an exit code: 0 pass (or nothing captured), 1 a check
failed, 2 the config cannot be verified (unreadable, vLLM refuses it), 3 the tier's hardware or
package is missing. Usage errors (a bad --vllm-version) surface as UsageProblem for the CLI.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

from vllm_preflight.verify import environment, record
from vllm_preflight.verify.outcome import (EXIT_CONFIG, EXIT_FAILED, EXIT_PASS, EXIT_UNAVAILABLE, ConfigProblem,
                                           Unavailable, VerifyError, exit_code_for)
from vllm_preflight.verify.plan import VerifyPlan, plan_from_resolved
from vllm_preflight.verify.render import Reporter
from vllm_preflight.verify.tiers import TIER_MODULES

STATUS_FOR_EXIT = {EXIT_PASS: "pass", EXIT_FAILED: "fail", EXIT_CONFIG: "config-error", EXIT_UNAVAILABLE: "unavailable"}


@dataclass(frozen=True)
class VerifySettings:
    config: str
    vllm_version: str | None = None
    target: str = "release"
    tier: str = "cpu"
    fmt: str = "text"
    output: str | None = None
    gpu: str = "H200"
    env: tuple[tuple[str, str], ...] = ()
    assume: tuple[tuple[str, str], ...] = ()
    world_size: int | None = None
    quiet: bool = False


def resolve_one(s: VerifySettings):
    """The config's single Resolution, or ConfigProblem with vLLM's (or the loader's) reason."""
    from vllm_preflight.api import check_inputs

    report = check_inputs([s.config], vllm_version=s.vllm_version, target=s.target, gpu=s.gpu,
                          env=list(s.env), assume=list(s.assume))
    if report.errors:
        raise ConfigProblem(report.errors[0].render())
    if not report.results:
        raise ConfigProblem(f"{s.config}: no vLLM server command found")
    if len(report.results) > 1:
        raise ConfigProblem(f"{s.config} holds {len(report.results)} deployments; verify takes one at a time")
    res = report.results[0]
    if res.vllm_error is not None:
        raise ConfigProblem(f"vLLM {res.vllm_version} would refuse to start: "
                            f"{res.vllm_error.type}: {res.vllm_error.message}")
    if res.resolved is None:
        raise ConfigProblem(f"{s.config}: the resolver returned no settings")
    return res


def nothing_captured_reason(plan: VerifyPlan, events) -> str:
    why = f"cudagraph_mode is {plan.cudagraph_mode}" if plan.cudagraph_mode == "NONE" else "; ".join(plan.notes)
    for e in events or []:
        if "cudagraph_mode" in str(getattr(e, "field", "")) and getattr(e, "after", None) in ("NONE", 0):
            why += f" ({e.reason})" if e.reason else f" (rule {e.rule})"
            break
    return "nothing captured: " + why + "; no CUDA graph to verify"


def passed_reason(checks) -> str:
    count = {s: sum(1 for c in checks if c.status == s) for s in ("pass", "expected-fail-observed", "warn")}
    text = f"{count['pass']} checks passed, {count['expected-fail-observed']} controls caught"
    return text + (f", {count['warn']} warnings" if count["warn"] else "")


def failure_reason(checks) -> str:
    failed = [c for c in checks if c.failed]
    ids = ", ".join(f"{c.id}" + (f" [{c.graph}]" if c.graph else "") for c in failed)
    first = failed[0]
    return f"{len(failed)} check(s) failed ({ids}): {first.id}: {first.detail}"


def execute(s: VerifySettings) -> int:
    reporter = Reporter(s.fmt, quiet=s.quiet)
    env = environment.describe(import_deep_ep=s.tier != "cpu")
    source, version, resolved, plan, events = s.config, s.vllm_version, None, None, None
    checks, timings, ranks, extra, missing = [], [], [], {}, None
    try:
        res = resolve_one(s)
        version, resolved, events = res.vllm_version, res.resolved, res.events
        reporter.header(source, s.target, version, s.tier)
        reporter.environment(env)
        plan = plan_from_resolved(resolved, version)
        reporter.plan(plan)
        if plan.nothing_captured:
            code, status, reason = EXIT_PASS, "nothing-captured", nothing_captured_reason(plan, events)
        else:
            tier = importlib.import_module(TIER_MODULES[s.tier])
            options = {"world_size": s.world_size} if s.world_size else {}
            missing = tier.requirements(options)
            if missing:
                raise Unavailable(f"tier {s.tier} cannot run here: missing " + "; ".join(missing), missing)
            run = tier.run(plan, reporter, options)
            checks, timings, ranks, extra = run.checks, run.timings, run.ranks, run.plan_extra
            env["device"], env["cuda"] = run.device, run.cuda
            code = exit_code_for(checks)
            status = STATUS_FOR_EXIT[code]
            reason = failure_reason(checks) if code else passed_reason(checks)
    except VerifyError as e:
        code, status, reason = e.exit_code, STATUS_FOR_EXIT[e.exit_code], e.message
        missing = getattr(e, "missing", None)
    plan_json = None
    if plan is not None:
        plan_json = {**plan.to_json(), **extra}
    rec = record.build(source=source, target=s.target, vllm_version=version, resolved=resolved, environment=env,
                       tier=s.tier, plan=plan_json, checks=checks, timings=timings, ranks=ranks, status=status,
                       exit_code=code, reason=reason, missing=missing)
    record.validate(rec)
    if s.output:
        with open(s.output, "w") as f:
            f.write(record.dumps(rec) + "\n")
    reporter.summary(rec)
    if s.fmt == "json":
        import click

        click.echo(record.dumps(rec))
    return code
