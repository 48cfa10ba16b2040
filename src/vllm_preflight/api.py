"""The pipeline in one call: load inputs, pick the target, resolve each deployment.

Used by the CLI and by other commands (verify, matrix) that need resolved settings.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from vllm_preflight.errors import InputError, InputFailure, UsageProblem
from vllm_preflight.model import Deployment, Resolution
from vllm_preflight.releases import NEWEST, PR29558, PR29558_BASE, SUPPORTED


@dataclass
class Report:
    results: list[Resolution] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # files read that hold no vLLM server


def target_name(vllm_version: str | None, target: str) -> str:
    """The release key to resolve with; a usage error names the supported range."""
    if target == PR29558:
        if vllm_version not in (None, PR29558_BASE):
            raise UsageProblem(f"--target pr29558 runs on vLLM {PR29558_BASE} (the PR's base); "
                               f"drop --vllm-version {vllm_version}")
        return PR29558
    version = vllm_version or NEWEST
    if version not in SUPPORTED:
        from vllm_preflight.releases.versions import release_of

        version = release_of(version) or version  # `v0.13.0.post1`, `0.13`: the release it belongs to
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


def load_inputs(paths: list[str], command: list[str] | None, variables: dict[str, str],
                input_format: str | None = None, *, skipped: list[str] | None = None,
                require_servers: bool = True, allow_paths: Sequence[str] = (),
                max_servers: int | None = None) -> tuple[list[Deployment], list[InputError]]:
    """Every deployment in the files and folders (and the `--` command), and the inputs that
    could not be read. `variables` pin shell/Kubernetes variables (`--assume NAME=VALUE`).
    A file an input names is read only inside the input's folder tree or `allow_paths`
    (load.confine); what the `--` command names is the user's own and is read."""
    from vllm_preflight.load import confine, deployment_from_words, load_paths

    deployments, errors = load_paths(list(paths), input_format=input_format, variables=variables,
                                     skipped=skipped, require_servers=require_servers,
                                     allow_paths=allow_paths, max_servers=max_servers)
    if command:
        try:
            with confine.user_words():
                deployments.append(deployment_from_words(command))
        except InputFailure as e:  # past a limit (load.limits), or its --config unreadable
            errors.extend(getattr(e, "errors", [e.error]))
    return deployments, errors


def _nearest_supported(version: str) -> str:
    """The supported release closest to an unsupported one (same minor first, else by order)."""
    from vllm_preflight.releases import version_key

    try:
        key = version_key(version)[:3]
    except ValueError:  # not a PEP 440 version at all
        return NEWEST
    same_minor = [v for v in SUPPORTED if version_key(v)[:2] == key[:2]]
    if same_minor:
        below = [v for v in same_minor if version_key(v) <= key]
        return max(below, key=version_key) if below else min(same_minor, key=version_key)
    if key < version_key(SUPPORTED[0]):
        return SUPPORTED[0]
    below = [v for v in SUPPORTED if version_key(v) <= key]
    return max(below, key=version_key) if below else NEWEST


def _older_than_supported(version: str) -> bool:
    from vllm_preflight.releases import version_key

    try:
        return version_key(version)[:3] < version_key(SUPPORTED[0])
    except ValueError:
        return False


def _release_of(version: str) -> str | None:
    from vllm_preflight.releases.versions import release_of

    return release_of(version)


def _mapped(what: str, version: str, name: str, where) -> list:
    """VP160 when a version string is not itself the release it was checked as."""
    from vllm_preflight.findings import Finding
    from vllm_preflight.releases.versions import kind_of

    if version.removeprefix("v") == name:
        return []
    kind = kind_of(version) or f"PEP 440's spelling of {name}"
    return [Finding("VP160", f"{what} names vLLM {version} ({kind}); checked as vLLM {name}, "
                             f"the release it belongs to", where)]


def choose_release(d: Deployment, vllm_version: str | None, target: str):
    """(release key, assumptions, findings): --vllm-version, else the deployment's image tag
    (nearest supported release if the tag names one the tool does not model), else the newest."""
    from vllm_preflight.findings import Finding
    from vllm_preflight.model import Assumption

    hint = d.vllm_version.removeprefix("v") if d.vllm_version else None
    what = getattr(d, "version_source", None) or "the deployment"
    where = getattr(d, "version_location", None) or d.location
    if target == PR29558:
        findings = [Finding("VP104", f"{what} names vLLM {hint}; checked the PR #29558 design on its base, "
                                     f"vLLM {PR29558_BASE}", where)] if hint else []
        return PR29558, [], findings
    if vllm_version:
        name = target_name(vllm_version, target)
        findings = [Finding("VP104", f"checked vLLM {name} (--vllm-version); {what} names vLLM {hint}", where)] \
            if hint and _release_of(hint) != name else []
        return name, [], _mapped("--vllm-version", vllm_version, name, where) + findings
    if hint:
        if hint in SUPPORTED:
            return hint, [Assumption("vllm_version", hint, what)], []
        mapped = _release_of(hint)
        if mapped is not None and mapped in SUPPORTED:
            return mapped, [Assumption("vllm_version", mapped, f"{what} (vLLM {hint})")], \
                _mapped(what, hint, mapped, where)
        name = _nearest_supported(hint)
        if _older_than_supported(hint):
            why = (f"{what} names vLLM {hint}: no supported release matches (vllm-preflight models "
                   f"{SUPPORTED[0]} to {SUPPORTED[-1]}); checked as {name}, the oldest, which vLLM {hint} may not match")
        else:
            why = (f"{what} names vLLM {hint}, which vllm-preflight does not model "
                   f"(it models {SUPPORTED[0]} to {SUPPORTED[-1]}); resolved as {name}, the nearest supported release")
        return name, [Assumption("vllm_version", name, why)], [Finding("VP105", why, where)]
    return NEWEST, [Assumption("vllm_version", NEWEST, "no --vllm-version and no vLLM version in an image tag: "
                                                       "the newest supported release")], []


def check_deployment(d: Deployment, *, vllm_version: str | None = None, target: str = "release",
                     gpu: str | None = None, env: Sequence[tuple[str, str]] = (),
                     model_assume: dict[str, str] | None = None, validate=None) -> Resolution:
    """Resolve one loaded deployment: pick its release, render and validate its words (findings
    at their lines), resolve, and say what depends on values the input leaves open.
    `validate` replaces `validate_bound` with an equal function (the matrix's memoised one)."""
    from vllm_preflight.findings import unique
    from vllm_preflight.gpus import DEFAULT_GPU, get_gpu
    from vllm_preflight.hazards import hazard_findings
    from vllm_preflight.load.bind import bind, depends
    from vllm_preflight.load.loaded import with_environment
    from vllm_preflight.plan import plan_rows, summarize
    from vllm_preflight.private_text import Scrubber, private_words, scrub_findings, scrub_result
    from vllm_preflight.releases import get_release
    from vllm_preflight.resolve import resolve
    from vllm_preflight.schema.validate import validate_bound
    from vllm_preflight.written import written_settings

    given = d  # the caller's object: the PR-design cache below is keyed by it
    d = with_environment(d, env)  # --env is the deployment's environment, as a K=V word is
    name, version_assumptions, findings = choose_release(d, vllm_version, target)
    release = get_release(name)
    hw = get_gpu(gpu or getattr(d, "gpu", None) or DEFAULT_GPU)
    facts = dict(getattr(d, "model_facts", ()) or ())
    facts.update(model_assume or {})
    bound = bind(d, release)
    findings = list(getattr(d, "findings", ())) + findings + bound.findings + (validate or validate_bound)(bound, release)

    def run(dep: Deployment) -> Resolution:
        return resolve(dep, name, gpu=hw, model_assume=facts)

    result = run(bound.deployment)
    result.assumptions[:0] = version_assumptions
    depends_on, depend_findings = depends(bound, result, run)
    from vllm_preflight.model_kind import model_kind_dependence

    kind_on, kind_findings = model_kind_dependence(result, lambda: resolve(
        bound.deployment, name, gpu=hw, model_assume={**facts, "is_moe": "true"}))
    depends_on, depend_findings = depends_on + kind_on, depend_findings + kind_findings

    depend_findings += _model_files_findings(result)  # VP130: the model's files could not be read
    result.extra["location"] = d.location.to_json() if d.location else None
    name_of_server = getattr(d, "name", None)  # a LoadedDeployment's reader's name
    if name_of_server:
        result.extra["name"] = name_of_server
    result.extra["depends_on"] = depends_on
    written = written_settings(bound, dict(bound.deployment.env))
    hazards = hazard_findings(result, written, run)
    hazards += _unlisted_sizes(result)
    # text of a file the input named (--config, source) is never quoted: its places instead
    scrub = Scrubber(private_words(bound))
    scrub_result(result, scrub)
    result.extra["findings"] = [f.to_json() for f in unique(scrub_findings(findings + depend_findings + hazards,
                                                                           scrub))]
    result.extra["plan"] = [r.to_json() for r in plan_rows(result, written)]
    result.extra["summary"] = summarize(result).to_json()
    if target != PR29558 and {"VP301", "VP302"} & {f.rule for f in hazards}:
        result.extra["pr29558"] = _pr_design(given, gpu=gpu, env=env, model_assume=model_assume, validate=validate)
    return result


def _pr_design(d: Deployment, *, gpu=None, env=(), model_assume=None, validate=None) -> dict:
    """What the PR #29558 design gives the same deployment, for the report's side-by-side block.
    Shared between results of the same deployment and settings (a matrix asks it once per release)."""
    try:
        return _pr_design_shared(d, gpu, tuple(env), tuple(sorted((model_assume or {}).items())), validate)
    except TypeError:  # an unhashable input: computed afresh
        return _pr_design_fresh(d, gpu=gpu, env=env, model_assume=model_assume, validate=validate)


@lru_cache(maxsize=256)
def _pr_design_shared(d: Deployment, gpu, env: tuple, assume: tuple, validate) -> dict:
    return _pr_design_fresh(d, gpu=gpu, env=list(env), model_assume=dict(assume), validate=validate)


def _pr_design_fresh(d: Deployment, **how) -> dict:
    other = check_deployment(d, target=PR29558, **how)
    cc = (other.resolved or {}).get("compilation_config") or {}
    return {"vllm_version": other.vllm_version, "cudagraph_mode": cc.get("cudagraph_mode"),
            "splitting_ops": cc.get("splitting_ops"), "vllm_error": other.vllm_error.to_json() if other.vllm_error else None,
            "findings": [f for f in other.extra["findings"] if f["rule"].startswith("VP3")],
            "summary": other.extra["summary"]}


def _unlisted_sizes(result: Resolution) -> list:
    """VP120 where the resolver left an absurdly long capture-size list null (resolve.capture_sizes)."""
    from vllm_preflight.findings import Finding

    return [Finding("VP120", e.reason, result.deployment.location if result.deployment else None)
            for e in result.events if e.rule == "capture_sizes.not_listed"][:1]


def _model_files_findings(result: Resolution) -> list:
    """VP130 for a hub model whose files could not be read (the resolver's `model.files` assumption)."""
    from vllm_preflight.findings import Finding
    from vllm_preflight.modelfacts import FILES_FACT

    where = result.deployment.location if result.deployment is not None else None
    from_table = _from_table(result)
    # the table holds the model's own config.json keys: only a guess is worth a warning
    fallback = ("the built-in table's facts" if from_table
                else "a stated guess (see the model.is_moe assumption and depends_on)")
    return [Finding("VP130", f"model files not read: {a.source}; resolved with {fallback}", where,
                    severity="info" if from_table else "")
            for a in result.assumptions if a.fact == FILES_FACT][:1]


def _from_table(result: Resolution) -> bool:
    model = next((a for a in result.assumptions if a.fact == "model"), None)
    return model is not None and "table of well-known" in str(model.source)


def check_inputs(paths: list[str], *, command: list[str] | None = None,
                 vllm_version: str | None = None, target: str = "release", gpu: str | None = None,
                 env: Sequence[tuple[str, str]] = (), assume: Sequence[tuple[str, str]] = (),
                 input_format: str | None = None, require_servers: bool = True,
                 allow_paths: Sequence[str] = (), max_servers: int | None = None,
                 offline: bool | None = None) -> Report:
    """`gpu` None means: the deployment file's GPU, else H200. `offline` True reads model files
    from local folders and the Hugging Face cache only (None: unless HF_HUB_OFFLINE=1, small model
    files of hub models are fetched from the Hub). A bad argument is a TypeError
    (wrong type) or UsageProblem (unusable value) before anything is read; a bug met on one
    input is that input's `errors` entry (`internal`), and every other input is still checked.
    `allow_paths`: folders whose files an input may name besides its own tree (load.confine);
    `max_servers`: servers one file may hold (default load.limits.MAX_SERVERS_PER_FILE)."""
    from vllm_preflight.arguments import check_arguments, check_limits
    from vllm_preflight.gpus import get_gpu

    check_arguments(paths, command=command, vllm_version=vllm_version, target=target, gpu=gpu,
                    env=env, assume=assume)
    allow_paths = check_limits(allow_paths, max_servers)
    if isinstance(env, dict):
        env = list(env.items())
    if isinstance(assume, dict):
        assume = list(assume.items())
    target_name(vllm_version, target)  # a bad --vllm-version is a usage error before anything is read
    if gpu:
        get_gpu(gpu)
    model_assume, variables = split_assume(list(assume))
    if not paths and not command:
        raise UsageProblem("nothing to check: give FILE... or -- vllm serve MODEL ...")
    skipped: list[str] = []
    deployments, errors = load_inputs(paths, command, variables, input_format, skipped=skipped,
                                      require_servers=require_servers, allow_paths=list(allow_paths),
                                      max_servers=max_servers)
    report = Report(errors=errors, skipped=skipped)
    from vllm_preflight import model_files

    model_files.start(deployments, offline)  # `offline` None: HF_HUB_OFFLINE decides; hub models fetched at once
    for d in deployments:
        try:
            report.results.append(check_deployment(d, vllm_version=vllm_version, target=target, gpu=gpu,
                                                   env=list(env), model_assume=model_assume))
        except InputFailure as e:  # e.g. its model's config.json cannot be used: name the input too
            report.errors.extend(InputError(d.source, err.render(), d.location)
                                 for err in getattr(e, "errors", [e.error]))
        except UsageProblem:
            raise
        except Exception as e:  # noqa: BLE001 - a bug on one deployment must not cost the others
            report.errors.append(InputError.from_bug(d.source, e, d.location))
    _cross_server_findings(report.results)
    return report


def _cross_server_findings(results: list[Resolution]) -> None:
    """VP305: servers of one deployment that must agree (ranks of one engine, P/D pairs)."""
    from vllm_preflight.hazards.servers import disagreements
    from vllm_preflight.plan import summarize

    for i, found in disagreements(results).items():
        results[i].extra["findings"] = results[i].extra.get("findings", []) + [f.to_json() for f in found]
        results[i].extra["summary"] = summarize(results[i]).to_json()
