"""The argv the tool finds is the argv bash would execute.

The bundled shell scripts run under real bash with stub `vllm`/`python3` (record their argv
and environment, start nothing), `numactl` and `nsys` (drop their own options and exec the
rest, as the real ones do) on PATH. For each run, the server words and environment bash
produced must be one of the deployments the tool loaded from the same file with the same
variable values. (`docker-run.sh` is left out: emulating `docker run` and an image's
entrypoint is not a stub's job.)
"""
from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from support import EXAMPLES, INPUTS, ROOT
from vllm_preflight.load import load_paths

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")

RECORD = r"""#!/bin/sh
# record this invocation: argv then environment, NUL-separated, one file per run (named by the
# process id: runs in the background at the same time do not overwrite each other)
{ printf '%s\0' "$(basename "$0")" "$@"; printf '\1\0'; env -0; } > "$STUB_LOG/$$"
"""
# the real tools take these options with a separate value; the stubs skip them the same way
NUMACTL = r"""#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in
    -N|-m|-C|-p|-i|--cpunodebind|--membind|--physcpubind|--preferred|--interleave|--localalloc) shift 2 ;;
    -*) shift ;;
    *) exec "$@" ;;
  esac
done
"""
NSYS = r"""#!/bin/sh
shift  # the subcommand (profile, launch)
while [ $# -gt 0 ]; do
  case "$1" in
    -o|-t|-s|-w|-d|-y|-e|-f|--output|--trace|--sample|--duration|--delay) shift 2 ;;
    -*) shift ;;
    *) exec "$@" ;;
  esac
done
"""
NOOP = "#!/bin/sh\nexit 0\n"


@pytest.fixture
def stubs(tmp_path) -> Path:
    d = tmp_path / "bin"
    d.mkdir()
    for name, text in {"vllm": RECORD, "python3": RECORD, "python": RECORD, "numactl": NUMACTL,
                       "nsys": NSYS, "curl": NOOP}.items():
        p = d / name
        p.write_text(text)
        p.chmod(0o755)
    return d


def run_bash(script: Path, stubs: Path, variables: dict[str, str], args: list[str] = ()
             ) -> list[tuple[tuple[str, ...], dict]]:
    log = stubs.parent / f"log-{len(list(stubs.parent.glob('log-*')))}"
    log.mkdir()
    env = {"PATH": f"{stubs}:/usr/bin:/bin", "HOME": str(stubs.parent), "STUB_LOG": str(log), **variables}
    subprocess.run([BASH, str(script), *args], check=False, env=env, cwd=stubs.parent, capture_output=True, timeout=30)
    if "&" in script.read_text():  # servers started in the background may still be writing their record
        seen, stable = -1, 0
        while stable < 3:
            time.sleep(0.1)
            now = len(list(log.iterdir()))
            stable, seen = (stable + 1, seen) if now == seen else (0, now)
    runs = []
    for f in sorted(log.iterdir(), key=lambda p: int(p.name)):
        argv_part, _, env_part = f.read_bytes().partition(b"\x01\x00")
        argv = tuple(w.decode() for w in argv_part.split(b"\x00")[:-1])
        environ = dict(kv.decode().split("=", 1) for kv in env_part.split(b"\x00") if b"=" in kv)
        runs.append((argv, environ))
    return runs


def server_words(argv: tuple[str, ...]) -> tuple[str, ...]:
    """What vLLM's parser reads: after `vllm serve`, or after `-m MODULE` (interpreter flags dropped)."""
    if argv[:2] == ("vllm", "serve"):
        return ("vllm serve",) + argv[2:]
    if "-m" in argv:
        i = argv.index("-m")
        return (argv[i + 1],) + argv[i + 2:]
    return argv


CASES = [
    (EXAMPLES / "deepep-ht-dp8.sh", {}),
    (EXAMPLES / "deepep-ht-dp8-piecewise.sh", {}),
    (EXAMPLES / "verify-deepep-ht-mode-none-full.sh", {}),
    (EXAMPLES / "verify-deepep-ll-dp8.sh", {}),
    (INPUTS / "shell" / "comment-after-continuation.sh", {}),
    (INPUTS / "shell" / "wrappers-and-vars.sh", {"DP": "4", "A2A_BACKEND": "deepep_low_latency", "USER_FLAGS": "-O3"}),
    (INPUTS / "shell" / "multinode-dp-ep.sh", {"NODE_RANK": "0", "MASTER_ADDR": "10.0.0.1"}),
    (INPUTS / "shell" / "multinode-dp-ep.sh", {"NODE_RANK": "1", "MASTER_ADDR": "10.0.0.1", "NNODES": "4"}),
]


@pytest.mark.parametrize("script,variables", CASES,
                         ids=[f"{p.name}-{'-'.join(v.values()) or 'plain'}" for p, v in CASES])
def test_tool_argv_is_what_bash_executes(script, variables, stubs):
    runs = run_bash(script, stubs, variables)
    assert len(runs) == 1, runs  # each script starts one server under these values
    bash_argv, bash_env = runs[0]
    deployments, errors = load_paths([os.path.relpath(script, ROOT)], variables=variables)
    assert not errors
    tool = {server_words(d.argv): dict(d.env) for d in deployments}
    assert server_words(bash_argv) in tool, (bash_argv, list(tool))
    for name, value in tool[server_words(bash_argv)].items():
        assert bash_env.get(name) == value, (name, value, bash_env.get(name))


def test_the_stubs_see_a_difference(stubs, tmp_path):
    """The harness itself: a word the tool would drop is seen by bash (so agreement means something)."""
    script = tmp_path / "s.sh"
    script.write_text(textwrap.dedent("""\
        X="--max-num-seqs 8"
        numactl --interleave=all nsys profile -o out vllm serve m $X
    """))
    [(argv, _)] = run_bash(script, stubs, {})
    assert argv == ("vllm", "serve", "m", "--max-num-seqs", "8")
