"""The pipeline in one call: load inputs, pick the target, resolve each deployment.

Used by the CLI and by other commands (verify, matrix) that need resolved settings.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from vllm_preflight.errors import InputError, InputFailure, UsageProblem
from vllm_preflight.model import Deployment, Resolution
from vllm_preflight.releases import NEWEST, PR29558, PR29558_BASE, SUPPORTED


@dataclass
class Report:
    """The results, input errors and skipped files of one check."""

    results: list[Resolution] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # files read that hold no vLLM server
    seconds: dict[int, float] = field(default_factory=dict)  # id(result) -> seconds its check took (JUnit)


def begin_reads() -> None:
    """Forget the files read so far: this run's inputs are counted from here (load.source.READ)."""
    from vllm_preflight.load.source import READ

    READ.clear()


def mark_read(path: str) -> None:
    """Count `path` (the project configuration) as an input of this run."""
    from vllm_preflight.load import source

    source.mark_read(path)


def was_read(path: str) -> bool:
    """Whether `path` is a file this run read as an input: never an --output-file."""
    from vllm_preflight.load.source import was_read as read

    return read(path)


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
                     model_assume: dict[str, str] | None = None, validate=None,
                     side_by_side: bool = True, report_rows: bool = True) -> Resolution:
    """Resolve one loaded deployment: pick its release, render and validate its words (findings
    at their lines), resolve, and say what depends on values the input leaves open.
    `validate` replaces `validate_bound` with an equal function (the matrix's memoised one).
    `side_by_side=False` leaves out the PR #29558 block (`extra["pr29558"]`), which only the
    text and JSON reports show: a second check on another release, for nothing the others print.
    `report_rows=False` leaves out `extra["plan"]` and `extra["summary"]` (a matrix table reads neither)."""
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

    # --env is in the deployment's own environment now (with_environment): the memo keys it there
    env_key, facts_key = (), tuple(sorted(facts.items()))

    def run(dep: Deployment) -> Resolution:  # a changed deployment (a fix, an open value): shared, read only
        return shared_resolution(dep, name, hw, env_key, facts_key)

    result = resolve(bound.deployment, name, gpu=hw, model_assume=facts)  # this one is ours
    result.assumptions[:0] = version_assumptions
    depends_on, depend_findings = depends(bound, result, run)
    from vllm_preflight.model_kind import model_kind_dependence

    kind_on, kind_findings = model_kind_dependence(result, lambda: shared_resolution(
        bound.deployment, name, hw, env_key, tuple(sorted({**facts, "is_moe": "true"}.items()))))
    depends_on, depend_findings = depends_on + kind_on, depend_findings + kind_findings

    depend_findings += _model_files_findings(result)  # VP130: the model's files could not be read
    result.extra["location"] = d.location.to_json() if d.location else None
    from vllm_preflight.identity import role_of, server_name

    role = role_of(d)
    result.extra["name"] = server_name(d, role)  # the one name every format and command shows
    result.extra["role"] = role.to_json()
    result.extra["depends_on"] = depends_on
    written = written_settings(bound, dict(bound.deployment.env))
    hazards = hazard_findings(result, written, run, findings_of=shared_findings)
    hazards += _unlisted_sizes(result)
    # text of a file the input named (--config, source) is never quoted: its places instead
    scrub = Scrubber(private_words(bound))
    scrub_result(result, scrub)
    result.extra["findings"] = [f.to_json() for f in unique(scrub_findings(findings + depend_findings + hazards,
                                                                           scrub))]
    if report_rows:
        result.extra["plan"] = [r.to_json() for r in plan_rows(result, written)]
        result.extra["summary"] = summarize(result).to_json()
    if side_by_side and target != PR29558 and {"VP301", "VP302"} & {f.rule for f in hazards}:
        result.extra["pr29558"] = _pr_design(given, gpu=gpu, env=env, model_assume=model_assume, validate=validate)
    return result


# Resolutions of changed deployments (each suggested fix resolved to check it, each value an input
# leaves open), memoised per release and normalised input: one resolution however many rules, servers
# or matrix cells ask for it. They are shared, so their readers never change them. The hazard findings
# of each are memoised with it (a fix is judged by the findings of its resolution).
SHARED_MAX = 4096
_shared: dict[tuple, Resolution] = {}
_shared_findings: dict[int, tuple[Resolution, list]] = {}
_shared_run: list = [None]  # the model_files run the memo belongs to


def resolution_key(d: Deployment, name: str, gpu, env: tuple, facts: tuple) -> tuple:
    """What a resolution depends on: the release, the GPU, --env, pinned model facts and the
    deployment's own words, environment, folder, node facts and assumptions -- not which file or
    line it was written in (a shared resolution's `source` and `deployment` are its first asker's).
    The server's role too: the hazard findings memoised with it read the role (VP302 is info on a
    prefill pool), so a prefill and a decode pool with the same words never share them."""
    from vllm_preflight.identity import role_of

    return (name, gpu, env, facts, tuple(d.argv), tuple(d.env), d.base_dir, tuple(d.node_facts),
            tuple(d.assumptions), role_of(d).role)


def shared_resolution(d: Deployment, name: str, gpu, env: tuple = (), facts: tuple = ()) -> Resolution:
    """`resolve(d, name, ...)`, memoised (see above) within one model_files run (a new run may
    read other model files); the result must not be changed."""
    from vllm_preflight import model_files
    from vllm_preflight.resolve import resolve

    if _shared_run[0] is not model_files._RUN:
        _shared.clear()
        _shared_findings.clear()
        _shared_run[0] = model_files._RUN
    try:
        key = resolution_key(d, name, gpu, env, facts)
        hit = _shared.get(key)
    except TypeError:  # an unhashable value somewhere: resolved afresh
        return resolve(d, name, gpu=gpu, extra_env=list(env), model_assume=dict(facts))
    if hit is None:
        if len(_shared) >= SHARED_MAX:
            _shared.clear()
            _shared_findings.clear()
        hit = _shared[key] = resolve(d, name, gpu=gpu, extra_env=list(env), model_assume=dict(facts))
    return hit


def shared_findings(result: Resolution) -> list:
    """The hazard findings of a resolution (memoised for shared ones; never changed by readers)."""
    from vllm_preflight.hazards import hazard_findings

    got = _shared_findings.get(id(result))
    if got is not None and got[0] is result:
        return got[1]
    found = hazard_findings(result)
    _shared_findings[id(result)] = (result, found)  # holding the result keeps its id its own
    return found


def _pr_design(d: Deployment, *, gpu=None, env=(), model_assume=None, validate=None) -> dict:
    """What the PR #29558 design gives the same deployment, for the report's side-by-side block.
    Shared between results of the same deployment and settings (a matrix asks it once per release),
    and between deployments read from equal texts in other files (load.same_text): the block is
    computed once and only its findings' file names are those of each file."""
    from vllm_preflight import model_files
    from vllm_preflight.load.same_text import Unkeyable, content_key

    if _pr_run[0] is not model_files._RUN or len(_pr_keys) >= SHARED_MAX:
        _pr_blocks.clear()
        _pr_keys.clear()
        _pr_run[0] = model_files._RUN
    how = (gpu, tuple(env), tuple(sorted((model_assume or {}).items())), validate)
    memo = _pr_keys.get(id(d))
    if memo is not None and memo[0] is d:  # a deployment checked again (other releases, a benchmark)
        text_key, files = memo[1], memo[2]
    else:
        try:
            text_key, files = content_key(d)
        except Unkeyable:  # a value the walk cannot key (a YAML origin): shared by this deployment alone
            text_key, files = ("deployment", id(d), d), [d.source]
        _pr_keys[id(d)] = (d, text_key, files)
    try:
        key = (text_key, *how)
        hit = _pr_blocks.get(key)
    except TypeError:  # an unhashable input: computed afresh
        return _pr_design_fresh(d, gpu=gpu, env=env, model_assume=model_assume, validate=validate)
    if hit is None:
        block = _pr_design_fresh(d, gpu=gpu, env=env, model_assume=model_assume, validate=validate)
        if len(_pr_blocks) >= SHARED_MAX:
            _pr_blocks.clear()
        _pr_blocks[key] = (block, files, _names_only_in_locations(block, files))
        return block
    block, first_files, shareable = hit
    if first_files == files:
        return block
    if not shareable:
        return _pr_design_fresh(d, gpu=gpu, env=env, model_assume=model_assume, validate=validate)
    rename = dict(zip(first_files, files))
    return {**block, "findings": [f if not f.get("location") else
                                  {**f, "location": {**f["location"], "file": rename[f["location"]["file"]]}}
                                  for f in block["findings"]]}


_pr_blocks: dict[tuple, tuple[dict, list[str], bool]] = {}
_pr_keys: dict[int, tuple] = {}  # id(deployment) -> (the deployment, its text key, its files)
_pr_run: list = [None]  # the model_files run the blocks belong to


def _names_only_in_locations(block: dict, files: list[str]) -> bool:
    """Whether the block names its input's files only in its findings' locations (which can be
    renamed for another file of the same text), never in a message."""
    import json
    import os

    if any(f.get("location") and f["location"].get("file") not in files for f in block["findings"]):
        return False
    text = json.dumps({**block, "findings": [{**f, "location": None} for f in block["findings"]]})
    return not any(name and (name in text or os.path.basename(name) in text) for name in files)


def _pr_design_fresh(d: Deployment, **how) -> dict:
    other = check_deployment(d, target=PR29558, **how)
    cc = (other.resolved or {}).get("compilation_config") or {}
    return {"vllm_version": other.vllm_version, "cudagraph_mode": cc.get("cudagraph_mode"),
            "splitting_ops": cc.get("splitting_ops"), "vllm_error": other.vllm_error.to_json() if other.vllm_error else None,
            # what the design would find: what-ifs, never this deployment's findings (no exit code counts them)
            "findings": [dict(f, what_if=True) for f in other.extra["findings"] if f["rule"].startswith("VP3")],
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
    # any of the model's assumptions: a loader may state first where the model came from (KServe's
    # storage URI), before the resolver says where its facts came from
    return any(a.fact == "model" and "table of well-known" in str(a.source) for a in result.assumptions)


def check_inputs(paths: list[str], *, command: list[str] | None = None,
                 vllm_version: str | None = None, target: str = "release", gpu: str | None = None,
                 env: Sequence[tuple[str, str]] = (), assume: Sequence[tuple[str, str]] = (),
                 input_format: str | None = None, require_servers: bool = True,
                 allow_paths: Sequence[str] = (), max_servers: int | None = None,
                 offline: bool | None = None, role: str | None = None, side_by_side: bool = True) -> Report:
    """`gpu` None means: the deployment file's GPU, else H200. `offline` True reads model files
    from local folders and the Hugging Face cache only (None: unless HF_HUB_OFFLINE=1, small model
    files of hub models are fetched from the Hub). A bad argument is a TypeError
    (wrong type) or UsageProblem (unusable value) before anything is read; a bug met on one
    input is that input's `errors` entry (`internal`), and every other input is still checked.
    `allow_paths`: folders whose files an input may name besides its own tree (load.confine);
    `max_servers`: servers one file may hold (default load.limits.MAX_SERVERS_PER_FILE);
    `role`: every server's role in a prefill/decode split (prefill, decode, both), over what the
    deployment says (identity.role_of);
    `side_by_side`: each result's PR #29558 block (check_deployment), for reports that show it."""
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
    if role is not None:
        from dataclasses import replace

        from vllm_preflight.identity import ROLES

        if role not in ROLES:
            raise UsageProblem(f"--role takes one of {', '.join(ROLES)}, not {role!r}")
        deployments = [replace(d, role=role, role_source="--role") for d in deployments]
    from vllm_preflight import model_files

    model_files.start(deployments, offline)  # `offline` None: HF_HUB_OFFLINE decides; hub models fetched at once
    import time

    for d in deployments:
        try:
            started = time.perf_counter()
            report.results.append(check_deployment(d, vllm_version=vllm_version, target=target, gpu=gpu,
                                                   env=list(env), model_assume=model_assume,
                                                   side_by_side=side_by_side))
            report.seconds[id(report.results[-1])] = time.perf_counter() - started
        except InputFailure as e:  # e.g. its model's config.json cannot be used: name the input too
            # d.source of a server may carry its place (`a.sh:3`); the location adds it once
            where = d.location.file if d.location is not None else d.source
            report.errors.extend(InputError(where, err.render(), d.location)
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
