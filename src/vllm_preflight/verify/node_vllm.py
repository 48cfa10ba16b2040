"""The node's own vLLM, where it is importable: the `config` stage (R1).

R1 resolves the deployment with the installed vLLM's own argument parser, `EngineArgs` and
`create_engine_config`, in a child process on this machine's real GPU (nothing emulated; vLLM
resolves for the platform it runs on, so without a GPU R1 says it cannot run), and compares
every config-time setting the port resolves (`compilation_config`, `parallel_config`,
`optimization_level`; the runtime stage needs a started model runner and is not compared) with
the port's prediction for that vLLM's release. A dev, post, local or vendor build
(`0.13.1.dev5+gabc`, `0.13.0+cu128`) is compared with the release `check` maps it to (the
release of its first three numbers, else the nearest supported one) and says so.

The child (`python -m vllm_preflight.verify.child config SPEC`) imports vLLM, feature-detects
where this release keeps its parser pieces, and prints one tagged JSON line.
"""
from __future__ import annotations

import importlib
import importlib.metadata as md
import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from vllm_preflight.verify.outcome import FAIL, PASS, SKIP, WARN, Check

TAG = "PF_NODE_VLLM "
CONFIG_DEADLINE_S = 240  # importing vLLM cold can take a minute on a node
ABSENT = "<absent>"
ENUM = "<enum>"  # an enum read back from vLLM: {ENUM: name, "value": value}
MODE_NAMES = ("NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE")
COMPARED_SECTIONS = ("compilation_config", "parallel_config", "optimization_level")
# what vLLM raises when it cannot read the model (not a refusal of the config): R1 cannot run
_ENVIRONMENT_ERRORS = ("OSError", "FileNotFoundError", "ConnectionError", "HTTPError", "RepositoryNotFoundError",
                       "LocalEntryNotFoundError", "GatedRepoError", "HFValidationError", "TimeoutError",
                       "RevisionNotFoundError", "EntryNotFoundError", "OfflineModeIsEnabled")


@dataclass(frozen=True)
class NodeVllm:
    installed: bool
    version: str | None = None
    release: str | None = None   # the supported release it is compared as
    mapping: str = ""            # how `version` became `release`, when they differ

    def to_json(self) -> dict:
        return {"installed": self.installed, "version": self.version, "release": self.release,
                "mapping": self.mapping}


def release_for(version: str) -> tuple[str, str]:
    """The supported release an installed vLLM version is checked as, mapped as `check` maps a
    version it meets (an image tag, --vllm-version): the release of its first three numbers, else
    the nearest supported release."""
    from vllm_preflight.api import _nearest_supported
    from vllm_preflight.releases import SUPPORTED
    from vllm_preflight.releases.versions import kind_of, release_of

    if version in SUPPORTED:
        return version, ""
    mapped = release_of(version)
    if mapped in SUPPORTED:
        return mapped, f"vLLM {version} ({kind_of(version) or 'another spelling'}) compared as {mapped}, its release"
    nearest = _nearest_supported(version)
    return nearest, f"vLLM {version} is not a modelled release; compared as {nearest}, the nearest supported one"


def detect() -> NodeVllm:
    """Whether vLLM is importable here and which release it is, without importing it."""
    if importlib.util.find_spec("vllm") is None:
        return NodeVllm(False)
    try:
        version = md.version("vllm")
    except md.PackageNotFoundError:
        return NodeVllm(True, None, None, "vllm is importable but has no installed distribution metadata")
    release, mapping = release_for(version)
    return NodeVllm(True, version, release, mapping)


def server_args(argv: tuple[str, ...]) -> tuple[str, list[str]]:
    """The server command's words as vLLM's OpenAI server parser takes them: `vllm serve MODEL`
    becomes `--model MODEL` (what the serve subcommand does with its positional model)."""
    words = list(argv)
    if len(words) >= 2 and os.path.basename(words[0]) == "vllm" and words[1] == "serve":
        tail = words[2:]
        if tail and not tail[0].startswith("-"):
            tail = ["--model", tail[0]] + tail[1:]
        return "serve", tail
    if len(words) >= 3 and words[1] == "-m":
        return "api_server", words[3:]
    return "api_server", words


def fields_of(resolved: dict) -> dict:
    """The shape of what to read back from the real config: every config-time setting the port
    resolved (sections and keys, nested dicts as nested shapes)."""
    def shape(value):
        return {k: shape(v) for k, v in value.items()} if isinstance(value, dict) else None

    return {k: shape(resolved[k]) for k in COMPARED_SECTIONS if k in resolved}


def differences(port, real, path: str = "") -> list[tuple[str, object, object]]:
    """(setting, port, vLLM) for every setting whose values differ; a setting this release does
    not have is equal to the port's None."""
    if isinstance(port, dict):
        out = []
        real_dict = real if isinstance(real, dict) else {}
        for key, value in port.items():
            out += differences(value, real_dict.get(key, ABSENT), f"{path}.{key}" if path else key)
        return out
    if isinstance(real, dict) and ENUM in real:  # compared as the port writes it
        real = real["value"] if isinstance(port, int) and not isinstance(port, bool) else real[ENUM]
    if real == ABSENT and port is None:
        return []
    if isinstance(port, (list, tuple)) and isinstance(real, (list, tuple)):
        return [] if list(port) == list(real) else [(path, list(port), list(real))]
    return [] if port == real else [(path, port, real)]


def _leaves(value) -> int:
    return sum(_leaves(v) for v in value.values()) if isinstance(value, dict) else 1


def _short(value) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def config_check(node: NodeVllm, gpu_here: bool, run_child, predict, deployment) -> Check:
    """R1 proves the port resolves this deployment as the node's own vLLM does: its parser,
    EngineArgs and create_engine_config on this machine's GPU, every config-time setting compared
    with the port's prediction for that release. It fails on the first disagreement, or when vLLM
    refuses what the port accepts. Control: the mutation tests give the fake vLLM one different
    setting and require R1 to fail naming it."""
    title = "the node's vLLM resolves what the port predicts (create_engine_config)"
    if not node.installed:
        return Check("R1", title, SKIP, "vLLM is not importable here; the port's resolution stands unproven on this node")
    if not node.release:
        return Check("R1", title, SKIP, node.mapping or "the installed vLLM's version is unknown")
    if not gpu_here:
        return Check("R1", title, SKIP,
                     f"cannot run here: vLLM {node.version} resolves for the platform it runs on, and this machine "
                     "has no CUDA GPU (verify emulates nothing for this stage); run verify on the GPU node")
    prediction = predict(node.release)
    if prediction.vllm_error is not None or prediction.resolved is None:
        want = None
    else:
        want = {k: prediction.resolved[k] for k in COMPARED_SECTIONS if k in prediction.resolved}
    entry, args = server_args(deployment.argv)
    spec = {"entry": entry, "args": args, "env": dict(deployment.env),
            "fields": fields_of(prediction.resolved or {})}
    got = run_child(spec)
    metrics: dict[str, Any] = {"vllm": node.to_json(), "compared_as": node.release}
    mapping = f" ({node.mapping})" if node.mapping else ""
    if got.get("unavailable"):
        return Check("R1", title, SKIP, f"vLLM {node.version} could not be run: {got['unavailable']}", metrics)
    error = got.get("error")
    if error:
        kind = error.split(":", 1)[0]
        if kind in _ENVIRONMENT_ERRORS:
            return Check("R1", title, SKIP, f"vLLM {node.version} could not read the model here: {error}", metrics)
        if prediction.vllm_error is not None:
            same = prediction.vllm_error.type == kind
            return Check("R1", title, PASS if same else WARN,
                         f"vLLM {node.version}{mapping} refuses the config ({error}); the port predicted "
                         f"{prediction.vllm_error.type}: {prediction.vllm_error.message}", metrics)
        return Check("R1", title, FAIL, f"vLLM {node.version}{mapping} refuses the config the port accepts: {error}",
                     metrics)
    if want is None:
        return Check("R1", title, FAIL, f"the port predicts vLLM {node.release} refuses the config "
                     f"({prediction.vllm_error.type if prediction.vllm_error else 'no settings'}), but vLLM "
                     f"{node.version} resolved it", metrics)
    diffs = differences(want, got.get("resolved") or {})
    compared = _leaves(want)
    metrics.update({"settings": compared, "differences": len(diffs)})
    if diffs:
        listed = "; ".join(f"{p}: port {_short(a)}, vLLM {_short(b)}" for p, a, b in diffs[:5])
        return Check("R1", title, FAIL, f"vLLM {node.version}{mapping} resolves {len(diffs)} setting(s) differently "
                     f"from the port: {listed}", metrics)
    return Check("R1", title, PASS, f"vLLM {node.version}{mapping}: all {compared} config-time settings equal the "
                 "port's prediction", metrics)


def run_config_child(spec: dict, deadline_s: float = CONFIG_DEADLINE_S) -> dict:
    """The config stage in a child under the watchdog; its tagged JSON line, or why none came."""
    import tempfile

    from vllm_preflight.verify import watchdog

    with tempfile.TemporaryDirectory(prefix="pf-verify-vllm-") as tmp:
        path = os.path.join(tmp, "spec.json")
        with open(path, "w") as f:
            json.dump(spec, f)
        env = dict(os.environ, PYTHONUNBUFFERED="1", VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1")
        child = watchdog.run([sys.executable, "-m", "vllm_preflight.verify.child", "config", path], deadline_s, env=env)
    for line in reversed(child.output.splitlines()):
        if line.startswith(TAG):
            try:
                return json.loads(line[len(TAG):])
            except json.JSONDecodeError:
                break
    why = (f"no answer within {deadline_s:.0f}s" if child.timed_out
           else f"the child exited {child.returncode}: " + child.tail(3).replace("\n", " | "))
    return {"unavailable": why}


# ---- the child: runs inside the node's vLLM environment ----------------------------------

def _first(candidates: list[tuple[str, str]]):
    for module, name in candidates:
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
    return None


def _parser():
    """vLLM's OpenAI server parser (engine and frontend flags), wherever this release keeps it;
    else the engine-argument parser alone."""
    flexible = _first([("vllm.utils.argparse_utils", "FlexibleArgumentParser"),
                       ("vllm.utils", "FlexibleArgumentParser")])
    if flexible is None:
        raise ImportError("vLLM's FlexibleArgumentParser not found")
    make = _first([("vllm.entrypoints.openai.cli_args", "make_arg_parser"),
                   ("vllm.entrypoints.common.cli_args", "make_arg_parser")])
    if make is not None:
        return make(flexible(description="vllm-preflight config stage")), True
    from vllm.engine.arg_utils import AsyncEngineArgs

    return AsyncEngineArgs.add_cli_args(flexible()), False


def _plain(value):
    import enum

    if isinstance(value, enum.Enum):  # both: the port writes some enums by name, some by value
        return {ENUM: value.name, "value": _plain(value.value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def extract(obj, shape) -> dict:
    """Read `shape`'s settings from vLLM's config objects (enums by name)."""
    out: dict = {}
    for key, sub in shape.items():
        value = getattr(obj, key, ABSENT) if not isinstance(obj, dict) else obj.get(key, ABSENT)
        if key == "mode" and value is ABSENT:  # before CompilationConfig.mode there was `level`
            level = getattr(obj, "level", ABSENT)
            value = MODE_NAMES[level] if isinstance(level, int) and 0 <= level < len(MODE_NAMES) else level
        if type(value) is int and key == "mode" and 0 <= value < len(MODE_NAMES):
            value = MODE_NAMES[value]
        if isinstance(sub, dict) and value is not ABSENT:
            out[key] = extract(value, sub)
        else:
            out[key] = ABSENT if value is ABSENT else _plain(value)
    return out


def resolve_here(spec: dict) -> dict:
    """vLLM's own resolution of the spec: parser -> AsyncEngineArgs -> create_engine_config."""
    os.environ.update(spec.get("env") or {})
    import vllm
    from vllm.engine.arg_utils import AsyncEngineArgs

    usage = _first([("vllm.usage.usage_lib", "UsageContext")])
    parser, full = _parser()
    if full:
        args = parser.parse_args(spec["args"])
        dropped: list[str] = []
    else:  # frontend-only flags are not engine arguments: parsed, reported, not used
        args, dropped = parser.parse_known_args(spec["args"])
    engine_args = AsyncEngineArgs.from_cli_args(args)
    kwargs = {"usage_context": usage.OPENAI_API_SERVER} if usage is not None else {}
    config = engine_args.create_engine_config(**kwargs)
    resolved = {}
    for key, shape in spec["fields"].items():
        value = getattr(config, key, ABSENT)
        resolved[key] = extract(value, shape) if isinstance(shape, dict) and value is not ABSENT else _plain(value)
    return {"vllm_version": getattr(vllm, "__version__", None), "resolved": resolved, "error": None,
            "frontend_flags_dropped": dropped}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    with open(args[0]) as f:
        spec = json.load(f)
    try:
        answer = resolve_here(spec)
    except SystemExit as e:  # argparse refused the words
        answer = {"error": f"ArgumentError: vLLM's parser exited {e.code}"}
    except Exception as e:  # noqa: BLE001 - what vLLM raises is the answer
        text = str(e).strip().splitlines()
        answer = {"error": f"{type(e).__name__}: {text[0] if text else ''}"}
    print(TAG + json.dumps(answer, default=str), flush=True)
    return 0
