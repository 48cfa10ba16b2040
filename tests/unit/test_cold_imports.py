"""What a cold `check --format json` of one shell file loads (issue 26: do only what the output shows).

A shell file needs no YAML parser, a valid command no schema validator library and no release's
full schema, JSON output no rich, and `check` nothing of verify/ nor torch. Each is seconds over a
thousand runs in CI, and each crept back before.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import atexit, runpy, sys
from vllm_preflight.schema import generate
built = []
_orig = generate.release_schema
generate.release_schema = lambda name: built.append(name) or _orig(name)
def report():
    names = sorted(m for m in sys.modules if m.split('.')[0] in ('yaml', 'jsonschema_rs', 'rich', 'torch',
                   'jsonschema', 'huggingface_hub') or m.startswith(('vllm_preflight.verify',
                   'vllm_preflight.load.manifests', 'vllm_preflight.load.kubernetes', 'vllm_preflight.load.compose')))
    sys.stderr.write('\\nPROBE ' + json.dumps({'modules': names, 'schemas': built}) + '\\n')
import json
atexit.register(report)
sys.argv = ['vllm-preflight', 'check', '--format', 'json', '--fail-on', 'never', sys.argv[1]]
runpy.run_module('vllm_preflight', run_name='__main__')
"""


def _probe(path: str) -> dict:
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", _PROBE, path], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=120, check=False)
    assert out.returncode == 0 and '"results"' in out.stdout, out.stderr[-2000:]
    line = next(ln for ln in reversed(out.stderr.splitlines()) if ln.startswith("PROBE "))
    return json.loads(line[len("PROBE "):])


def test_a_shell_file_loads_no_yaml_no_validator_no_rich_no_verify():
    got = _probe("examples/deepep-ht-dp8.sh")
    assert got == {"modules": [], "schemas": []}


def test_a_yaml_file_loads_yaml_and_still_no_validator_for_a_valid_command():
    got = _probe("examples/kserve-dp-ep.yaml")
    assert "yaml" in got["modules"]
    assert not [m for m in got["modules"] if m.startswith(("jsonschema", "rich", "torch", "vllm_preflight.verify"))]
