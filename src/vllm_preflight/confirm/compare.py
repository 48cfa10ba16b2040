"""One start held against the prediction: per setting `=` or `≠`, and the rules behind it.

The start's arguments are rebuilt into `vllm serve` words and resolved by `check`'s own pipeline
(`api.check_deployment`) for the logged release and GPU; each compared setting of the logged
`compilation_config` is set beside the prediction, with the chain of rules that produced the
predicted value (the plan rows `check` shows). The capture lines are held against the runtime
stage. A difference is worded as what it is: a wrong prediction (with the `check` command that
reproduces it) or a fact of the node the tool assumed otherwise (attention backend, model).
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from vllm_preflight.confirm import reconstruct
from vllm_preflight.confirm.starts import Start, config_fields, fields_text

CAPTURE_MODES = {
    frozenset({"PIECEWISE@mixed", "FULL@decode"}): "FULL_AND_PIECEWISE",
    frozenset({"FULL@decode"}): "FULL_DECODE_ONLY",
    frozenset({"FULL@mixed"}): "FULL",
    frozenset({"PIECEWISE@mixed"}): "PIECEWISE",
}


@dataclass
class Row:
    setting: str
    logged: Any
    predicted: Any
    agree: bool
    rules: list[str] = field(default_factory=list)
    why: list[str] = field(default_factory=list)  # the rule chain, as `check`'s Why
    written: str | None = None  # what the arguments wrote, where they did


@dataclass
class Comparison:
    source: str
    start: Start
    release: str | None = None
    logged_release: str = ""
    assumptions: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)  # taken from the log
    argv: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    runtime: Row | None = None
    problems: list[str] = field(default_factory=list)  # what could not be read
    disagreements: list[str] = field(default_factory=list)  # worded findings
    reproduce: str | None = None
    gpu: str | None = None
    vllm_error: str | None = None
    resolved: dict | None = None
    not_compared: list[str] = field(default_factory=list)
    arguments_unknown: bool = False  # no verdict: the start's arguments could not be read

    @property
    def agrees(self) -> bool:
        return not self.disagreements

    @property
    def compared(self) -> bool:
        """Whether the logged compilation_config was read and held against the prediction."""
        return not self.arguments_unknown and any(r.setting not in reconstruct.TOP_FIELDS for r in self.rows)

    @property
    def where(self) -> str:
        return f"{self.source}:{self.start.line}"


def release_for(logged: str) -> tuple[str | None, str | None]:
    """The supported release a logged version is checked as, and the assumption it takes."""
    from vllm_preflight.releases import SUPPORTED
    from vllm_preflight.releases.versions import kind_of, parse_version, release_of

    if logged in SUPPORTED:
        return logged, None
    v = parse_version(logged)
    if v is None:
        return None, f"the log names vLLM {logged!r}, which is no version"
    if v.dev is not None or (v.pre is not None and release_of(logged) not in SUPPORTED):
        # a development build of main precedes the next release: its code is that release's
        later = [r for r in SUPPORTED if _v(r) >= v]
        if later:
            return later[0], (f"vLLM {logged} is a {kind_of(logged)}: checked as {later[0]}, the release it "
                              f"precedes (its code may differ from that release)")
        return SUPPORTED[-1], (f"vLLM {logged} is newer than every release vllm-preflight models: checked as "
                               f"{SUPPORTED[-1]}, the newest")
    base = release_of(logged)
    if base in SUPPORTED:
        return base, f"vLLM {logged} ({kind_of(logged) or 'a build'}) checked as {base}"
    newer = [r for r in SUPPORTED if _v(r) >= v]
    if not newer:
        return SUPPORTED[-1], f"vLLM {logged} is newer than every release vllm-preflight models: checked as {SUPPORTED[-1]}"
    if _v(SUPPORTED[0]) > v:
        return None, f"vLLM {logged} is older than the releases vllm-preflight models ({SUPPORTED[0]} on)"
    return newer[0], f"vLLM {logged} is not modelled: checked as {newer[0]}, the next modelled release"


def _v(release: str):
    from vllm_preflight.releases.versions import Version

    return Version(release)


def gpu_of(logged: str | None) -> str | None:
    """The GPU table's name for a logged device name (`NVIDIA H100 80GB HBM3` -> H100)."""
    if not logged:
        return None
    from vllm_preflight.gpus import GPUS

    norm = logged.upper().replace(" ", "").replace("-", "")
    best = None
    for g in GPUS.values():
        full = g.device_name.upper().replace("NVIDIA", "").replace(" ", "").replace("-", "")
        short = g.name.upper()
        if (norm.startswith((full, short)) or norm == short) and (best is None or len(g.name) > len(best)):
            best = g.name
    return best


def capture_mode(start: Start) -> str | None:
    """What the capture lines say the runner captured; None when the log does not show."""
    seen = set()
    for _, desc in start.captures:
        d = desc.lower()
        kind = "FULL" if "full" in d else "PIECEWISE" if "piecewise" in d else None
        stage = "decode" if d.startswith("decode") or ", " not in d and "decode" in d and "mixed" not in d else "mixed"
        if kind:
            seen.add(f"{kind}@{stage}")
    if seen:
        return CAPTURE_MODES.get(frozenset(seen), "+".join(sorted(seen)))
    if start.capture_done:
        return "NONE"
    return None


def compare(start: Start, source: str, *, gpu: str | None = None, env: list[tuple[str, str]] | None = None,
            vllm_version: str | None = None) -> Comparison:
    from vllm_preflight.api import check_deployment
    from vllm_preflight.errors import UsageProblem
    from vllm_preflight.gpus import DEFAULT_GPU
    from vllm_preflight.model import Deployment

    c = Comparison(source, start, logged_release=start.version)
    c.problems += [f"line {n}: {why}" for n, why in start.problems]
    from vllm_preflight.releases import NEWEST

    release: str | None
    note: str | None
    if start.version == "?" and not vllm_version:
        release, note = NEWEST, (f"the log names no vLLM version before the failure: checked as {NEWEST}, the newest "
                                 f"(--vllm-version sets it)")
    else:
        release, note = release_for(vllm_version or start.version)
    if note:
        c.assumptions.append(note)
    if release is None:
        c.problems.append(note or "unknown release")
        return c
    c.release = release
    c.gpu = gpu or gpu_of(start.gpu)
    if gpu:
        c.facts.append(f"GPU {gpu} (--gpu)")
    elif c.gpu:
        c.facts.append(f"GPU {c.gpu} (the log: {start.gpu})")
    else:
        c.gpu = DEFAULT_GPU
        c.assumptions.append(f"the log names no GPU: resolved for {DEFAULT_GPU} (--gpu sets it)")
    if start.arch:
        c.facts.append(f"model architecture {start.arch} (the log)")
    if start.backends:
        c.facts.append("attention backend " + ", ".join(start.backends) + " (the log)")
    if start.flashinfer_missing:
        c.facts.append("FlashInfer is not installed on the node (the log)")
    logged: dict = {}
    fields: dict = {}
    if start.engine_started:
        wanted = ("compilation_config",) + reconstruct.TOP_FIELDS
        fields, field_problems = config_fields(start.config_text, wanted)
        for name, problem in field_problems:
            c.problems.append(f"line {start.line}: {name}: {problem}")
        from vllm_preflight.confirm.literal import Call

        cc = fields.get("compilation_config")
        if "compilation_config" not in fields and not any(n == "compilation_config" for n, _ in field_problems):
            c.problems.append(f"line {start.line}: the engine config line holds no compilation_config")
        elif cc is not None and not isinstance(cc, (dict, str, Call)):
            c.problems.append(f"line {start.line}: compilation_config is no dict (a {type(cc).__name__}); not compared")
            cc = None
        elif isinstance(cc, Call) and cc.name != "CompilationConfig":
            c.problems.append(f"line {start.line}: compilation_config is written as {cc.name}(...), not a config "
                              f"repr the reader knows; not compared")
            cc = None
        logged = reconstruct.logged_values(cc, fields)
    quant = fields_text(start.config_text).get("quantization", "").strip()
    if quant and start.engine_started:
        c.facts.append(f"quantization {quant} (the log)")
    args: dict | None = None
    if start.args_text is None:
        c.problems.append(f"line {start.line}: no `non-default args` line before this start: the arguments are "
                          f"unknown, so no setting is held against a prediction")
    else:
        args, why = reconstruct.parse_args_text(start.args_text)
        if why:
            c.problems.append(f"line {start.args_line}: {why}")
    if args is None:
        c.arguments_unknown = True
        model = fields_text(start.config_text).get("model", "").strip().strip("'\"")
        args = {"model": model} if model else {}
    rebuilt = reconstruct.rebuild(args, release)
    c.argv, c.left_out = rebuilt.argv, rebuilt.left_out
    dep = Deployment(argv=tuple(rebuilt.argv), env=tuple(env or ()), source=c.where)
    try:
        res = check_deployment(dep, vllm_version=release, gpu=c.gpu)
    except UsageProblem as e:
        c.problems.append(str(e))
        return c
    c.reproduce = _reproduce(release, c.gpu, env or [], rebuilt.argv)
    c.assumptions += [f"model facts: {a.source}" for a in res.assumptions if a.fact == "model"]
    if res.vllm_error is not None and c.arguments_unknown:
        return c
    if not start.engine_started:
        _failed_start(c, start, res, release)
        return c
    if res.vllm_error is not None:
        c.vllm_error = f"{res.vllm_error.type}: {res.vllm_error.message}".splitlines()[0][:300]
        c.disagreements.append(f"vllm-preflight predicts vLLM {release} refuses these arguments ({c.vllm_error}), "
                               f"but the node started: a wrong prediction. Reproduce: {c.reproduce}")
        return c
    resolved: dict = res.resolved or {}
    c.resolved = resolved
    predicted = reconstruct.predicted_values(resolved)
    plan = {r["setting"]: r for r in res.extra.get("plan") or []}
    reasons: dict[str, str] = {}
    for ev in res.events:
        reasons.setdefault(ev.rule, ev.reason)
    for key, value in logged.items():
        if key not in predicted:
            c.not_compared.append(key)
            continue
        want = predicted[key]
        same = _same(key, value, want)
        row = Row(key, value, want, same)
        p = plan.get(key)
        if p:
            row.rules = [ch["rule"] for ch in p["changes"]]
            row.why = [f"{ch['rule']}: {reasons.get(ch['rule'], '')}".rstrip(": ") for ch in p["changes"]]
            if p.get("written"):
                row.written = f"{p['written']['value']}"
            elif p.get("default_from"):
                row.why.insert(0, p["default_from"])
        c.rows.append(row)
    if c.arguments_unknown:
        c.not_compared.append("every setting (the arguments are unknown)")
        return c
    _runtime(c, start, resolved)
    gpu_assumed = not gpu and not start.gpu
    for row in c.rows:
        if not row.agree:
            caveat = (f" (unless the node's GPU is not the {c.gpu} assumed, or its environment set VLLM_* variables "
                      f"the log does not show: --gpu, --env)" if gpu_assumed else "")
            c.disagreements.append(
                f"{row.setting}: the node logged {_short(row.logged)}, vllm-preflight predicted {_short(row.predicted)}"
                f" for vLLM {release}: a wrong prediction{caveat}. Reproduce: {c.reproduce}")
    return c


def _failed_start(c: Comparison, start: Start, res, release: str) -> None:
    """The server logged its arguments and failed before an engine line: held against whether
    vllm-preflight predicts vLLM refuses these arguments."""
    where, text = start.exception or start.crashed or (start.line, "")
    logged = f"failed at line {where}: {text}"
    if res.vllm_error is None:
        c.rows.append(Row("start", logged, "starts", False))
        c.disagreements.append(
            f"the server failed before its engine started (line {where}: {text}), but vllm-preflight predicts vLLM "
            f"{release} starts with these arguments: either a refusal it does not model (a wrong prediction; "
            f"reproduce: {c.reproduce}) or a failure outside the configuration (memory, model files, network) "
            f"that the log alone cannot tell apart")
        return
    c.vllm_error = f"{res.vllm_error.type}: {res.vllm_error.message}".splitlines()[0][:300]
    row = Row("start", logged, f"refused: {c.vllm_error}", True, ["refusal"],
              [f"vllm-preflight predicts vLLM {release} refuses these arguments"])
    c.rows.append(row)
    if res.vllm_error.type not in text:
        c.not_compared.append(f"the node's error text (the prediction is {res.vllm_error.type})")


def _runtime(c: Comparison, start: Start, resolved: dict) -> None:
    rt = resolved.get("runtime") or {}
    want = rt.get("cudagraph_mode")
    if want is None:
        return
    got = capture_mode(start)
    if start.crashed is not None:
        c.problems.append(f"line {start.crashed[0]}: the start failed before its CUDA graphs were captured "
                          f"({start.crashed[1]}); the runtime stage is not compared")
        return
    if got is None:
        c.not_compared.append("runtime cudagraph_mode (the log shows no capture)")
        return
    backends = [a.get("backend") for a in rt.get("attention") or [] if a.get("backend")]
    why = [f"model runner {rt.get('model_runner') or '?'}; attention " + (", ".join(backends) or "?")
           + f" supports {rt.get('support') or '?'}"]
    why += [f"{e.get('rule')}: {e.get('reason')}" for e in rt.get("events") or []]
    c.runtime = Row("runtime cudagraph_mode", got, want, got == want, [e.get("rule") for e in rt.get("events") or []],
                    why)
    if got == want:
        return
    alternative = next((a for a in rt.get("depends_on") or [] if a.get("cudagraph_mode") == got), None)
    logged_backends = [b.upper().replace(" ", "_") for b in start.backends]
    if alternative is not None:
        assumed = alternative.get("assumed", "the tool's assumption")
        c.disagreements.append(
            f"runtime cudagraph_mode: the node captured {got}, vllm-preflight predicted {want} assuming "
            f"{alternative['fact']} = {assumed}; with {alternative['fact']} = {alternative['alternative']} vLLM "
            f"captures {got}, as the node did: a node fact the tool assumed differently. Reproduce: {c.reproduce}")
    elif logged_backends and backends and not any(_backend_match(b, lb) for b in backends for lb in logged_backends):
        c.disagreements.append(
            f"runtime cudagraph_mode: the node captured {got}, vllm-preflight predicted {want} because it assumed "
            f"attention backend {', '.join(backends)}; the node used {', '.join(start.backends)}: a node fact the "
            f"tool assumed differently (set VLLM_ATTENTION_BACKEND / --attention-backend as on the node, or report "
            f"it). Reproduce: {c.reproduce}")
    else:
        c.disagreements.append(f"runtime cudagraph_mode: the node captured {got} (capture lines), vllm-preflight "
                               f"predicted {want}: a wrong prediction. Reproduce: {c.reproduce}")


def _backend_match(ours: str, logged: str) -> bool:
    a, b = (x.upper().replace("ATTENTION", "ATTN").replace("_", "").replace(" ", "") for x in (ours, logged))
    return a == b or a.startswith(b) or b.startswith(a)


def _same(key: str, logged: Any, predicted: Any) -> bool:
    if key == "cudagraph_capture_sizes" and isinstance(logged, list) and isinstance(predicted, list):
        return sorted(logged) == sorted(predicted)
    if isinstance(logged, list) and isinstance(predicted, tuple):
        predicted = list(predicted)
    return logged == predicted


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _reproduce(release: str, gpu: str | None, env: list[tuple[str, str]], argv: list[str]) -> str:
    words = ["vllm-preflight", "check", "--vllm-version", release]
    if gpu:
        words += ["--gpu", gpu]
    for k, v in env:
        words += ["--env", f"{k}={v}"]
    return " ".join(shlex.quote(w) for w in words + ["--"] + argv)
