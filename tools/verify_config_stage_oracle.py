"""Dev-only: run verify's config stage (R1) against a real vLLM release on a machine without a GPU.

The vLLM oracle's CUDA emulation (its `cuda_emulation.py`, which fakes only the hardware
queries) is installed in the child before vLLM is imported; then the child is exactly verify's
(`vllm_preflight.verify.child config SPEC`), and the comparison exactly R1's
(`node_vllm.config_check`). Never needed by CI; the README records what it gave.

    python tools/verify_config_stage_oracle.py --python VENV/bin/python --emulation ORACLE_DIR \\
        [--release 0.12.0] [--json] DEPLOYMENT [DEPLOYMENT ...]

Exit: 0 every R1 passed, 1 one did not, 2 usage.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from vllm_preflight.api import check_inputs
from vllm_preflight.verify import node_vllm

BOOT = ("import sys; sys.path.insert(0, {emulation!r}); import cuda_emulation; cuda_emulation.install(); "
        "from vllm_preflight.verify.child import main; sys.exit(main(['config', {spec!r}]))")


def run_child(python: str, emulation: str, spec: dict, deadline_s: float = 600) -> dict:
    with tempfile.TemporaryDirectory(prefix="pf-r1-") as tmp:
        path = os.path.join(tmp, "spec.json")
        with open(path, "w") as f:
            json.dump(spec, f)
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), VLLM_CACHE_ROOT=os.path.join(tmp, "cache"),
                   VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                   VLLM_CONFIGURE_LOGGING="0")
        proc = subprocess.run([python, "-c", BOOT.format(emulation=emulation, spec=path)], capture_output=True,
                              text=True, env=env, timeout=deadline_s, check=False)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(node_vllm.TAG):
            return json.loads(line[len(node_vllm.TAG):])
    return {"unavailable": f"exit {proc.returncode}: " + " | ".join(proc.stderr.strip().splitlines()[-3:])}


def version_of(python: str) -> str:
    out = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('vllm'))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="the Python of a venv with vLLM installed")
    ap.add_argument("--emulation", required=True, help="the folder holding the oracle's cuda_emulation.py")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("deployments", nargs="+")
    args = ap.parse_args(argv)
    version = version_of(args.python)
    release, mapping = node_vllm.release_for(version)
    node = node_vllm.NodeVllm(True, version, release, mapping)
    failed = 0
    for path in args.deployments:
        results = check_inputs([path], vllm_version=release, gpu="H200").results
        if not results:
            print(f"{path}: no server")
            return 2
        res = results[0]
        check = node_vllm.config_check(node, True, lambda spec: run_child(args.python, args.emulation, spec),
                                       lambda _release, res=res: res, res.deployment)
        failed += check.failed
        if args.json:
            print(json.dumps({"deployment": path, **check.to_json()}))
        else:
            print(f"{path}: R1 {check.status.upper()}: {check.detail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
