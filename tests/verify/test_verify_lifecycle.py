"""verify's lifecycle: Ctrl-C exits 130 (SIGTERM 143); a signal during the multi-process stage
leaves no rank running and no temporary tree behind; the ranks listen on loopback only.
The hang tests use short deadlines and fail rather than hang."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from vllm_preflight.verify.outcome import Interrupted

sys.path.insert(0, os.path.dirname(__file__))
from test_verify_watchdog import _running as _alive  # alive and not a zombie

PARENT = textwrap.dedent("""
    import sys
    from vllm_preflight.verify import runner
    from vllm_preflight.verify.outcome import Interrupted
    from vllm_preflight.verify import watchdog
    job = {"backend": "gloo", "moe": "collective", "graphs": "emulated", "ids": ["A5a", "A5b"],
           "toy": {}, "moe_dtype": "float32", "sizes": [1], "splitting_ops": [], "release": "",
           "protocol_steps": 1, "replay_steps": 1, "collective_timeout_s": 120, "hang_rank": "all"}
    try:
        with runner.signals_interrupt():
            watchdog.run_rank_job(job, 2, 90)
    except Interrupted as e:
        sys.exit(e.exit_code)
    sys.exit(5)
""")


def _pids_with(text: str) -> list[int]:
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{name}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmd and state != "Z":
            pids.append(int(name))
    return pids


def _listening(pid: int) -> list[str]:
    """Local addresses of the TCP sockets `pid` listens on (hex, as /proc/net/tcp* writes them)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                parts = line.split()
                if parts[3] == "0A" and parts[9] in inodes:
                    found.append(parts[1].rsplit(":", 1)[0])
    return found


LOOPBACK = {"0100007F", "00000000000000000000000001000000"}


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130)])
def test_a_signal_during_the_rank_stage_stops_the_ranks_and_removes_the_tree(tmp_path, sig, code, torch_threads):
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONUNBUFFERED="1")
    parent = subprocess.Popen([sys.executable, "-c", PARENT], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        ranks: list[int] = []
        while time.monotonic() < deadline:
            ranks = _pids_with(str(tmp_path) + "/pf-verify-")
            logs = [p for d in tmp_path.glob("pf-verify-*") for p in d.glob("rank*.log")]
            if len(ranks) == 2 and logs and all("hang drill" in p.read_text() for p in logs) and len(logs) == 2:
                break
            time.sleep(0.2)
        assert len(ranks) == 2, "the ranks never reached the hang drill"
        for pid in ranks:
            # file store, loopback: a rank listens on 127.0.0.1 only, if it listens at all
            assert all(addr in LOOPBACK for addr in _listening(pid)), _listening(pid)
        parent.send_signal(sig)
        out, _ = parent.communicate(timeout=30)
    finally:
        if parent.poll() is None:
            parent.kill()
    assert parent.returncode == code, out
    time.sleep(0.3)
    assert _pids_with(str(tmp_path)) == []
    assert list(tmp_path.iterdir()) == []  # no pf-verify-*, no torchelastic_* tree


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_ranks_die_with_a_sigkilled_parent_and_take_their_folder_along(tmp_path):
    """A SIGKILLed verify runs no cleanup: its ranks watch a lifeline pipe (armed before they
    import torch), see it close, remove their temporary folder and exit."""
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONUNBUFFERED="1")
    parent = subprocess.Popen([sys.executable, "-c", PARENT], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        ranks: list[int] = []
        while time.monotonic() < deadline and len(ranks) < 2:
            ranks = _pids_with("vllm_preflight.verify.child rank")
            ranks = [p for p in ranks if _parent_of(p) == parent.pid]
            time.sleep(0.05)
        assert len(ranks) == 2, "the ranks never started"
        time.sleep(0.5)  # the ranks are importing torch now: the lifeline is armed before that
        parent.kill()
        parent.wait(timeout=10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(p) for p in ranks):
            time.sleep(0.1)
        assert not any(_alive(p) for p in ranks)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and list(tmp_path.glob("pf-verify-*")):
            time.sleep(0.1)
        assert list(tmp_path.glob("pf-verify-*")) == []
    finally:
        if parent.poll() is None:
            parent.kill()


def _parent_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1


IMPORT_HOOK = textwrap.dedent("""
    import importlib.abc, os, signal, sys
    class Hook(importlib.abc.MetaPathFinder):
        fired = False
        def find_spec(self, name, path, target=None):
            if name == "torch" and not Hook.fired:  # the signal lands inside `import torch`
                Hook.fired = True
                os.kill(os.getpid(), SIG)
            return None
    sys.meta_path.insert(0, Hook())
""")

DYNAMO_TIMER = textwrap.dedent("""
    import os, signal, threading
    from vllm_preflight.verify import trace
    real = trace.trace
    def traced(*a, **k):  # the signal lands while Dynamo traces (the first trace takes seconds)
        threading.Timer(0.2, os.kill, (os.getpid(), SIG)).start()
        return real(*a, **k)
    trace.trace = traced
""")


@pytest.mark.parametrize("where, sig, code", [("import", signal.SIGINT, 130), ("import", signal.SIGTERM, 143),
                                              ("dynamo", signal.SIGINT, 130)])
def test_a_signal_inside_torchs_import_or_dynamos_tracing_exits_130_or_143(tmp_path, where, sig, code):
    """Whatever torch or Dynamo does with the exception a signal raises (an `except Exception`
    around the import, Dynamo wrapping what its callbacks raise), verify exits 128+signal."""
    if where == "dynamo":
        pytest.importorskip("torch")
    hook = IMPORT_HOOK if where == "import" else DYNAMO_TIMER
    script = (f"SIG = {int(sig)}\n" + hook + "\nimport sys\nfrom vllm_preflight.cli import main\n"
              "sys.argv = ['vllm-preflight', 'verify', 'examples/deepep-ht-dp8-piecewise.sh', '--target', "
              f"'pr29558', '--output', {str(tmp_path / 'rec.json')!r}]\nmain()\n")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, TMPDIR=str(tmp_path)))
    assert res.returncode == code, res.stdout[-2000:] + res.stderr[-2000:]
    rec = json.loads((tmp_path / "rec.json").read_text())
    assert rec["outcome"]["status"] == "interrupted" and rec["outcome"]["exit_code"] == code
    assert [p.name for p in tmp_path.iterdir()] == ["rec.json"]  # the run folder (compile caches) is gone


def test_interrupt_exit_codes():
    assert Interrupted(signal.SIGINT).exit_code == 130 and Interrupted(signal.SIGTERM).exit_code == 143


def test_ctrl_c_in_verify_is_exit_130_with_a_record(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from vllm_preflight.cli import cli
    from vllm_preflight.verify import runner

    def interrupted(resolved, version):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "plan_from_resolved", interrupted)
    out = tmp_path / "rec.json"
    res = CliRunner().invoke(cli, ["verify", "examples/deepep-ht-dp8.sh", "--output", str(out)],
                             catch_exceptions=False)
    assert res.exit_code == 130 and json.loads(out.read_text())["outcome"]["status"] == "interrupted"
