"""Record the start-up lines real vLLM logs for golden cases: the fixtures of `confirm`'s tests.

Runs INSIDE an oracle venv (the vllm-oracle folder's README: VLLM_ORACLE_HOME/venv-VERSION):

    $VLLM_ORACLE_HOME/venv-0.33.0/bin/python tools/record_confirm_logs.py 0.33.0 --oracle DIR [--n 40]

For each chosen golden case of tests/golden/data/VERSION.jsonl (vLLM resolved it without an
error) it has the installed vLLM, on the oracle's emulated H200 node:
  1. parse `vllm serve MODEL ...` with vLLM's own serve parser and log the arguments with vLLM's
     own `log_non_default_args` (found wherever the release keeps it);
  2. build the engine config (`AsyncEngineArgs.from_cli_args(...).create_engine_config(...)`)
     and format the engine core's start line with the format string the release's
     `EngineCore.__init__` logs it with (read from its source), `str(VllmConfig)` included.
The two messages (vLLM's text only, no log header: the tests add headers and decorations) are
written to tests/fixtures/confirm/VERSION.jsonl.gz, one JSON line per case with the golden id;
the fixture-model folder is written as `{models}`.
"""
from __future__ import annotations

import argparse
import gzip
import inspect
import json
import logging
import os
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "fixtures" / "models"


def choose(goldens: list[dict], n: int) -> list[dict]:
    """Up to n cases vLLM resolved, spread over the outcomes: round-robin over the resolved
    cudagraph modes, within each over (mode, environment set or not, model)."""
    ok = [g for g in goldens if not g["oracle"].get("error")]
    by_mode: dict[str, dict[tuple, list[dict]]] = {}
    for g in ok:
        o = g["oracle"]
        sub = (str(o.get("mode") or o.get("level")), bool(g["env"]), g["model"])
        by_mode.setdefault(str(o.get("cudagraph_mode")), {}).setdefault(sub, []).append(g)
    queues = {m: [g for r in range(max(map(len, subs.values())))
                  for _, gs in sorted(subs.items(), key=str) if r < len(gs) for g in [gs[r]]]
              for m, subs in by_mode.items()}
    chosen: list[dict] = []
    r = 0
    while len(chosen) < n and any(len(q) > r for q in queues.values()):
        for m in sorted(queues):
            if len(queues[m]) > r and len(chosen) < n:
                chosen.append(queues[m][r])
        r += 1
    return sorted(chosen, key=lambda g: g["id"])


def _defining_module(name: str) -> str:
    """The vllm.entrypoints module that defines `name` (releases moved it: feature-detected from
    the installed sources, not a list of places)."""
    import vllm.entrypoints as ep

    root = Path(ep.__file__).parent
    hits = sorted(p for p in root.rglob("*.py") if f"def {name}(" in p.read_text(errors="replace")
                  and "launchers" not in p.parts and "run_batch" not in p.name)
    if not hits:
        raise SystemExit(f"this vLLM defines no {name}")
    rel = hits[0].relative_to(root.parent.parent).with_suffix("")
    return ".".join(rel.parts)


def _find_log_non_default_args():
    import importlib

    return importlib.import_module(_defining_module("log_non_default_args")).log_non_default_args


def _serve_parser():
    """The parser `log_non_default_args` compares against: the `make_arg_parser` its own module
    imports (else the one of the entrypoints)."""
    import importlib

    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    logmod = importlib.import_module(_defining_module("log_non_default_args"))
    m = re.search(r"from ([\w.]+) import[^\n]*\bmake_arg_parser\b", inspect.getsource(logmod))
    mod = m.group(1) if m else _defining_module("make_arg_parser")
    parser = importlib.import_module(mod).make_arg_parser(FlexibleArgumentParser())
    if not any(a.dest == "model_tag" for a in parser._actions):
        parser.add_argument("model_tag", nargs="?")
    return parser


class _Keep(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _logged(fn, ns) -> str:
    """The message `fn` logs, taken from its module's own logger (whatever vLLM did to the
    logging configuration meanwhile)."""
    import importlib

    logger = importlib.import_module(fn.__module__).logger
    keep = _Keep()
    logger.addHandler(keep)
    old = logger.level
    logger.setLevel(logging.INFO)
    try:
        fn(ns)
    finally:
        logger.removeHandler(keep)
        logger.setLevel(old)
    return next(m for m in keep.messages if "non-default args" in m)


def _engine_format() -> str:
    """The format string EngineCore.__init__ logs its config with, from the release's source."""
    from vllm.v1.engine import core

    src = inspect.getsource(core)
    m = re.search(r'"(Initializing a V1 LLM engine[^"]*)"', src)
    if m is None:
        m = re.search(r'"(Initializing[^"]*with config[^"]*)"', src)
    if m is None:
        raise SystemExit("no engine start line in vllm.v1.engine.core")
    return m.group(1).encode().decode("unicode_escape")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    sys.path.insert(0, a.oracle)
    import vllm_resolve as vr  # the oracle: CUDA emulation, log capture, env per case

    vr._setup_logging(False, "INFO")
    vr.import_vllm({})
    import vllm
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.usage.usage_lib import UsageContext

    log_args = _find_log_non_default_args()
    fmt = _engine_format()
    goldens = [json.loads(ln) for ln in (ROOT / "tests" / "golden" / "data" / f"{a.version}.jsonl").read_text().splitlines()]
    cases = choose(goldens, a.n)
    out_lines = []
    outcomes: Counter = Counter()
    prefix = str(MODELS)
    for g in cases:
        vr._reset_process_state()
        saved = vr._apply_env(g["env"])
        try:
            words = [w.replace("{models}", prefix) for w in g["argv"][2:]]
            model_dir = Path(words[0])
            if not (model_dir / "vocab.json").exists() and "--skip-tokenizer-init" not in words:
                words.append("--skip-tokenizer-init")
            parser = _serve_parser()
            ns = parser.parse_args(words)
            if getattr(ns, "model_tag", None):
                ns.model = ns.model_tag
            args_msg = _logged(log_args, ns)
            engine_args = AsyncEngineArgs.from_cli_args(ns)
            config = engine_args.create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER)
            engine_msg = fmt % ((vllm.__version__, config) if fmt.count("%s") == 2 else (config,))
            cc = config.compilation_config
            mode = getattr(cc, "mode", None)
            mode = getattr(mode, "name", mode) if mode is not None else getattr(cc, "level", None)
            got = (getattr(cc.cudagraph_mode, "name", str(cc.cudagraph_mode)), mode)
            want = (g["oracle"]["cudagraph_mode"], g["oracle"]["mode"] or g["oracle"]["level"])
            if got != want:
                print(f"{g['id']}: vLLM here resolved {got}, the golden holds {want}", file=sys.stderr)
                outcomes["differs"] += 1
                continue
            out_lines.append({"id": g["id"], "args": args_msg.replace(prefix, "{models}"),
                              "engine": engine_msg.replace(prefix, "{models}")})
            outcomes[str(got[0])] += 1
        except Exception as e:  # noqa: BLE001 - counted and said; the case is left out
            print(f"{g['id']}: {type(e).__name__}: {str(e)[:200]}", file=sys.stderr)
            outcomes["failed"] += 1
        finally:
            vr._restore_env(saved)
    out = Path(a.output or ROOT / "tests" / "fixtures" / "confirm" / f"{a.version}.jsonl.gz")
    out.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(x, sort_keys=True) + "\n" for x in out_lines).encode()
    # no file name or date inside: the same cases give the same bytes
    with open(out, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", filename="", mtime=0) as z:
        z.write(data)
    print(f"{out}: {len(out_lines)} cases of vLLM {vllm.__version__}; {dict(outcomes)}")
    logging.shutdown()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "INFO")
    sys.exit(main())
