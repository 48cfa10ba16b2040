"""Run real `vllm serve` entry code on recorded cases, with nothing bound, spawned or built.

Runs INSIDE a release venv (its python), next to the vllm-oracle folder (its CUDA emulation
and output shaping are reused):

    VENV/bin/python tools/serve_stage_harness.py --oracle ORACLE_DIR --batch in.jsonl -o out.jsonl

Each input line: {"id", "model": absolute model dir, "args": words after the model, "env"}.
For each case the release's own `vllm serve` sub-parser parses `serve MODEL ARGS...`, then
`ServeSubcommand.validate` and `ServeSubcommand.cmd` run as `vllm serve` runs them. What
would bind a socket, start a process or build the engine is replaced: socket creation,
ulimit, log decoration and the prometheus directory become no-ops; engine construction
(AsyncLLM.from_vllm_config, launch_core_engines, CoreEngineProcManager, MultiprocExecutor,
the API-server managers, the multi-port supervisor, the gRPC server) stops the run. The
first exception raised before that point is the answer ("Type: message"); a run that
reaches engine construction is accepted, and the VllmConfig that vLLM built on the way is
reported in the oracle's output shape. Output lines are the oracle's (vllm_resolve.py).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import signal
import sys
import time
import traceback

sys.dont_write_bytecode = True


class Reached(BaseException):
    """The serve path got as far as building the engine: the command is accepted."""

    def __init__(self, vllm_config=None):
        super().__init__("reached engine construction")
        self.vllm_config = vllm_config


def _reached(*args, **kwargs):
    cfg = kwargs.get("vllm_config")
    if cfg is None:
        cfg = next((a for a in args if type(a).__name__ == "VllmConfig"), None)
    raise Reached(cfg)


class _Stop:
    """Stands in for an engine/process class or function (a class, so that the annotations
    vLLM evaluates at import time, `A | B`, still work)."""

    def __new__(cls, *args, **kwargs):
        _reached(*args, **kwargs)


class _FakeSock:
    def close(self):
        pass

    def fileno(self):
        return -1


def _noop(*args, **kwargs):
    return None


def _fake_socket(*args, **kwargs):
    return _FakeSock()


STOP = ("launch_core_engines", "CoreEngineProcManager", "MultiprocExecutor", "run_dp_supervisor",
        "APIServerProcessManager", "RustFrontendProcessManager", "bind_engine_zmq_listeners",
        "serve_grpc", "serve_http")
QUIET = {"create_server_socket": _fake_socket, "create_server_unix_socket": _fake_socket,
         "set_ulimit": _noop, "decorate_logs": _noop, "set_process_title": _noop,
         "setup_multiprocess_prometheus": _noop}
OPTIONAL_MODULES = ("vllm.entrypoints.openai.api_server", "vllm.entrypoints.launchers.api_server.entry",
                    "vllm.entrypoints.launchers.launcher", "vllm.entrypoints.openai.dp_supervisor",
                    "vllm.entrypoints.launchers.dp_supervisor", "vllm.entrypoints.grpc_server",
                    "vllm.entrypoints.launchers.grpc_server", "vllm.v1.engine.utils", "vllm.v1.utils")


def install_patches() -> None:
    import importlib

    import vllm.entrypoints.cli.serve  # noqa: F401

    for name in OPTIONAL_MODULES:
        with contextlib.suppress(Exception):  # absent in this release, or an optional dependency
            importlib.import_module(name)
    for mod in list(sys.modules.values()):
        if mod is None or not getattr(mod, "__name__", "").startswith("vllm."):
            continue
        for attr, repl in QUIET.items():
            if callable(getattr(mod, attr, None)):
                setattr(mod, attr, repl)
        if not (mod.__name__.startswith("vllm.entrypoints.") or mod.__name__ == "vllm.v1.engine.utils"):
            continue  # the engine's own modules keep their classes (Executor.get_class needs them)
        for attr in STOP:
            if getattr(mod, attr, None) is not None:
                setattr(mod, attr, _Stop)
    from vllm.v1.engine.async_llm import AsyncLLM

    AsyncLLM.from_vllm_config = classmethod(lambda cls, *a, **k: _reached(*a, **k))


def serve_parser():
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    from vllm.entrypoints.cli.serve import ServeSubcommand

    parser = FlexibleArgumentParser(description="vLLM CLI")
    subparsers = parser.add_subparsers(required=False, dest="subparser")
    cmd = ServeSubcommand()
    cmd.subparser_init(subparsers).set_defaults(dispatch_function=cmd.cmd)
    return parser, cmd


def run_case(case: dict, vr) -> dict:
    """One case through `vllm serve`; the oracle's output dict."""
    V = vr._VLLM
    out: dict = {"id": case.get("id"), "vllm_version": V["vllm_version"], "torch_version": V["torch_version"],
                 "platform": V["platform"], "path": "vllm serve"}
    vr._CAPTURE.records.clear()
    t0 = time.perf_counter()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    words = ["serve", case["model"]] + [str(a) for a in case["args"]]
    if not case.get("with_tokenizer"):
        words.append("--skip-tokenizer-init")
    cfg = None
    try:
        parser, cmd = serve_parser()
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                ns = parser.parse_args(words)
        except SystemExit as e:
            raise ValueError(f"argparse rejected {words}: {err.getvalue().strip()}") from e
        try:
            cmd.validate(ns)
            cmd.cmd(ns)
            raise RuntimeError("harness: the serve command returned without building an engine")
        except Reached as r:
            cfg = r.vllm_config
            if cfg is None:  # the multi-port supervisor / gRPC server: build it as the engine would
                from vllm.engine.arg_utils import AsyncEngineArgs
                from vllm.usage.usage_lib import UsageContext

                cfg = AsyncEngineArgs.from_cli_args(ns).create_engine_config(
                    usage_context=UsageContext.OPENAI_API_SERVER)
        out.update(vr.extract(cfg, False))
        out["error"] = None
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        if isinstance(e, SystemExit):
            out["error"] = f"SystemExit: {e}"
        else:
            out["error"] = f"{type(e).__name__}: {e}"
        out["traceback"] = traceback.format_exc()[-3000:]
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
        with contextlib.suppress(Exception):
            asyncio.set_event_loop(asyncio.new_event_loop())
    out["resolve_ms"] = round((time.perf_counter() - t0) * 1000, 3)
    recs = list(vr._CAPTURE.records)
    out["warnings"] = [vr._fmt(r) for r in recs if r.levelno >= 30]
    out["info"] = [vr._fmt(r) for r in recs if 20 <= r.levelno < 30]
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", required=True, help="the vllm-oracle folder")
    ap.add_argument("--batch", required=True)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.oracle))
    import vllm_resolve as vr

    for k, v in vr.BASE_ENV.items():
        os.environ.setdefault(k, v)
    os.environ.setdefault("VLLM_CACHE_ROOT", os.path.join(sys.prefix, "oracle-vllm-cache"))
    with open(a.batch) as f:
        cases = [json.loads(line) for line in f if line.strip()]
    vr._setup_logging(False, "INFO")
    vr.import_vllm({})
    vr.warmup(True)
    install_patches()
    with open(a.output, "w") as f:
        for case in cases:
            vr._reset_process_state()
            saved = vr._apply_env(case.get("env"))
            try:
                res = run_case(case, vr)
            finally:
                vr._restore_env(saved)
            f.write(json.dumps(res) + "\n")
            f.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
