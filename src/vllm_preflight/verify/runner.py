"""`execute(settings) -> exit code`: resolve, plan, run the tier, write the record.

The one place that maps what happened to an exit code: 0 pass (or nothing captured), 1 a check
failed, 2 the config cannot be verified (unreadable, vLLM refuses it), 3 the tier's hardware or
package is missing, 4 an internal error (a bug in verify), 130 / 143 interrupted by SIGINT /
SIGTERM. Usage errors (a bad --vllm-version, an unwritable --output, an unknown --select) surface
as UsageProblem for the CLI before anything runs.
"""
from __future__ import annotations

import contextlib
import difflib
import importlib
import os
import signal
from dataclasses import dataclass
from typing import Any

from vllm_preflight.capture.plan import PlanProblem, VerifyPlan, plan_from_resolved
from vllm_preflight.errors import UsageProblem
from vllm_preflight.verify import consistency, environment, node_vllm, record
from vllm_preflight.verify.outcome import (
    EXIT_CONFIG,
    EXIT_FAILED,
    EXIT_INTERNAL,
    EXIT_PASS,
    EXIT_UNAVAILABLE,
    ConfigProblem,
    Interrupted,
    Unavailable,
    VerifyError,
    exit_code_for,
)
from vllm_preflight.verify.render import Reporter
from vllm_preflight.verify.tiers import TIER_MODULES

STATUS_FOR_EXIT = {EXIT_PASS: "pass", EXIT_FAILED: "fail", EXIT_CONFIG: "config-error", EXIT_UNAVAILABLE: "unavailable",
                   EXIT_INTERNAL: "internal-error", 130: "interrupted", 143: "interrupted"}
INSTALL_HINT = "pip install 'vllm-preflight[verify]'"


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
    command: tuple[str, ...] = ()
    record_dir: str | None = None
    select: str | None = None
    node_vllm: str = "auto"   # "off": never run the node's own vLLM (R1, S1, G4)
    time_budget: float | None = None


def _label(source: str, config: str) -> str:
    """A deployment's name within its file: the loader's source without the file part."""
    return source[len(config) + 1:] if source.startswith(config + ":") else source


def select_result(results, s: VerifySettings):
    """The one deployment to verify: the only one, or the one --select names."""
    labels = [_label(r.source, s.config) for r in results]
    listing = "; ".join(f"[{i}] {name}" for i, name in enumerate(labels))
    if s.select is None:
        if len(results) == 1:
            return results[0]
        raise ConfigProblem(f"{s.config} holds {len(results)} deployments ({listing}); "
                            "pick one with --select NAME|INDEX")
    if s.select.isdigit():
        i = int(s.select)
        if i < len(results):
            return results[i]
        raise UsageProblem(f"--select {i}: {s.config} holds {len(results)} deployment(s): {listing}")
    exact = [r for r, name in zip(results, labels) if name == s.select]
    partial = [r for r, name in zip(results, labels) if s.select in name]
    if len(exact) == 1 or (not exact and len(partial) == 1):
        return (exact or partial)[0]
    if len(partial) > 1:
        raise UsageProblem(f"--select {s.select!r} matches {len(partial)} deployments of {s.config}: {listing}")
    close = difflib.get_close_matches(s.select, labels, n=1, cutoff=0.5)
    raise UsageProblem(f"--select {s.select!r}: no such deployment in {s.config}"
                       + (f"; did you mean {close[0]!r}?" if close else "") + f" ({listing})")


def check_writable(s: VerifySettings) -> None:
    """--output and --record must be writable before anything runs (not after a long run)."""
    if s.output:
        path = os.path.abspath(s.output)
        if os.path.isdir(path):
            raise UsageProblem(f"--output {s.output}: is a folder, not a file")
        existed = os.path.exists(path)
        try:
            with open(path, "a"):
                pass
        except OSError as e:
            raise UsageProblem(f"--output {s.output}: cannot write there ({e.strerror})") from None
        if not existed:
            os.unlink(path)
    if s.record_dir:
        try:
            os.makedirs(s.record_dir, exist_ok=True)
        except OSError as e:
            raise UsageProblem(f"--record {s.record_dir}: cannot create the folder ({e.strerror})") from None
        if not os.access(s.record_dir, os.W_OK | os.X_OK):
            raise UsageProblem(f"--record {s.record_dir}: the folder is not writable")


class SignalLatch:
    """The first SIGINT / SIGTERM of a run. Its handler raises Interrupted once; a later signal
    is only counted, so that it cannot cut short the cleanup the first one started."""

    def __init__(self):
        self.signum: int | None = None

    def handle(self, signum, frame):
        if self.signum is not None:
            return
        self.signum = signum
        raise Interrupted(signum)


@contextlib.contextmanager
def signals_interrupt(latch: SignalLatch | None = None):
    """SIGINT and SIGTERM end the run through an exception, so that every `finally` on the way
    out (child process groups, temporary folders) runs before verify exits 130 / 143."""
    latch = latch or SignalLatch()
    previous = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, latch.handle)
    except ValueError:  # not the main thread: leave signals alone
        pass
    try:
        yield latch
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


# torch writes compiled kernels and autotuning results under these; without them, into
# $TMPDIR/torchinductor_<user> for ever. verify points them into its own folder for the run.
CACHE_VARIABLES = {"TORCHINDUCTOR_CACHE_DIR": "inductor", "TRITON_CACHE_DIR": "triton"}


@contextlib.contextmanager
def run_folder():
    """The run's temporary folder, with torch's compile caches inside it; removed, and the
    environment restored, however the run ends."""
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="pf-verify-run-")
    saved = {k: os.environ.get(k) for k in CACHE_VARIABLES}
    try:
        for key, sub in CACHE_VARIABLES.items():
            os.environ[key] = os.path.join(folder, sub)
        yield folder
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(folder, ignore_errors=True)


def resolve_one(s: VerifySettings):
    """The config's single Resolution, or ConfigProblem with vLLM's (or the loader's) reason."""
    from vllm_preflight.api import check_inputs

    report = check_inputs([] if s.command else [s.config], command=list(s.command) or None,
                          vllm_version=s.vllm_version, target=s.target, gpu=s.gpu,
                          env=list(s.env), assume=list(s.assume))
    if report.errors:
        raise ConfigProblem(report.errors[0].render())
    if not report.results:
        raise ConfigProblem(f"{s.config}: no vLLM server command found")
    res = select_result(report.results, s)
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


def config_stage_check(s: VerifySettings, res, node, reporter):
    """R1 (node_vllm.py): the node's vLLM resolves the deployment on this machine's GPU and the
    port's prediction for that release must equal it. Runs whenever vLLM is importable."""
    if not node.installed:
        check = node_vllm.config_check(node, False, None, None, None)
        reporter.check(check)
        return check
    from dataclasses import replace

    from vllm_preflight.api import check_inputs
    from vllm_preflight.gpus import GPUS

    count, device_name = (0, None) if environment.torch_missing() else environment.cuda_devices()
    gpu_here = count > 0
    # the port predicts for the GPU vLLM will query here (memory decides the default capture sizes)
    gpu = next((g.name for g in GPUS.values() if g.device_name == device_name), s.gpu)

    def predict(release: str):
        """The port's resolution of the same deployment for the node's release (not the target)."""
        again = replace(s, vllm_version=release, target="release")
        report = check_inputs([] if s.command else [s.config], command=list(s.command) or None,
                              vllm_version=release, target="release", gpu=gpu, env=list(s.env),
                              assume=list(s.assume))
        return select_result(report.results, again)

    if gpu_here:
        reporter.step(f"config stage: vLLM {node.version} resolves the deployment (create_engine_config)")
    deadline = node_vllm.CONFIG_DEADLINE_S if s.time_budget is None else max(10.0, min(
        node_vllm.CONFIG_DEADLINE_S, s.time_budget / 2))  # the stage gets half the run's budget at most

    def run_child(spec):
        return node_vllm.run_config_child(spec, deadline)

    check = node_vllm.config_check(node, gpu_here, run_child, predict, res.deployment)
    reporter.check(check)
    return check


def execute(s: VerifySettings) -> int:
    check_writable(s)
    reporter = Reporter(s.fmt, quiet=s.quiet)
    env = environment.describe(import_deep_ep=False)
    source, version, resolved, plan, events = s.config, s.vllm_version, None, None, None
    checks, timings, ranks, extra, missing = [], [], [], {}, None
    latch = SignalLatch()
    try:
        with signals_interrupt(latch), run_folder():
            res = resolve_one(s)
            source = res.source
            version, resolved, events = res.vllm_version, res.resolved, res.events
            reporter.header(source, s.target, version, s.tier)
            if s.tier != "cpu":
                env = environment.describe(import_deep_ep=True)
            reporter.environment(env)
            try:
                plan = plan_from_resolved(resolved, version)
            except PlanProblem as e:  # malformed settings: a config problem (exit 2)
                raise ConfigProblem(str(e)) from None
            reporter.plan(plan)
            plan_check = consistency.plan_covers_modes(plan, resolved)
            reporter.check(plan_check)
            node = node_vllm.detect() if s.node_vllm == "auto" else node_vllm.NodeVllm(False)
            env["vllm"] = node.to_json()
            config_stage = config_stage_check(s, res, node, reporter)
            if plan.nothing_captured and not plan_check.failed:
                story = consistency.agrees_with_check([], res.extra.get("findings"))
                checks = [plan_check, config_stage, story]
                reporter.check(story)
                code = exit_code_for(checks)
                status, reason = (("nothing-captured", nothing_captured_reason(plan, events)) if not code
                                  else ("fail", failure_reason(checks)))
            elif plan.nothing_captured:
                checks = [plan_check, config_stage]
                code, status, reason = EXIT_FAILED, "fail", failure_reason(checks)
            else:
                # torch first: the tier modules import it, and without it the user needs an
                # install hint, not an import error
                missing = environment.torch_missing()
                if missing:
                    raise Unavailable(f"tier {s.tier} cannot run here: missing " + "; ".join(missing)
                                      + f" (install the verify extra: {INSTALL_HINT})", missing)
                tier = importlib.import_module(TIER_MODULES[s.tier])
                options: dict[str, Any] = {"world_size": s.world_size} if s.world_size else {}
                options.update(plan=plan, node=node, time_budget=s.time_budget)
                missing = tier.requirements(options)
                if missing:
                    raise Unavailable(f"tier {s.tier} cannot run here: missing " + "; ".join(missing), missing)
                run = tier.run(plan, reporter, options)
                story = consistency.agrees_with_check(run.checks, res.extra.get("findings"))
                reporter.check(story)
                checks = [plan_check, config_stage] + run.checks + [story]
                timings, ranks, extra = run.timings, run.ranks, run.plan_extra
                env["device"], env["cuda"] = run.device, run.cuda
                code = exit_code_for(checks)
                status = STATUS_FOR_EXIT[code]
                reason = failure_reason(checks) if code else passed_reason(checks)
    except Interrupted as e:
        code, status, reason = e.exit_code, "interrupted", e.message
    except VerifyError as e:
        code, status, reason = e.exit_code, STATUS_FOR_EXIT[e.exit_code], e.message
        missing = getattr(e, "missing", None)
    except UsageProblem:
        if latch.signum is None:
            raise
        code, status, reason = 128 + latch.signum, "interrupted", Interrupted(latch.signum).message
    except KeyboardInterrupt:  # a SIGINT that arrived outside the handler's reach
        interrupted = Interrupted(signal.SIGINT)
        code, status, reason = interrupted.exit_code, "interrupted", interrupted.message
    except Exception as e:  # noqa: BLE001 - a bug becomes a record with exit code EXIT_INTERNAL, not a traceback
        code, status = EXIT_INTERNAL, "internal-error"
        reason = f"internal error in verify: {type(e).__name__}: {e}"
    if latch.signum is not None and status != "interrupted":
        # the signal's exception was caught and wrapped (Dynamo turns what its callbacks raise
        # into its own errors) or swallowed: the run was still interrupted
        interrupted = Interrupted(latch.signum)
        code, status, reason = interrupted.exit_code, "interrupted", interrupted.message
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
    if s.record_dir:
        record.write_into(s.record_dir, rec)
    reporter.summary(rec)
    if s.fmt == "json":
        import click

        click.echo(record.dumps(rec))
    return code
