"""A hang becomes a failure: the watchdog ends the child and everything it started."""
from __future__ import annotations

import sys
import time

from vllm_preflight.verify import watchdog


def test_a_hanging_child_and_its_children_are_ended(tmp_path):
    marker = tmp_path / "grandchild.pid"
    code = ("import os, subprocess, sys, time;"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
            f"open({str(marker)!r}, 'w').write(str(p.pid)); time.sleep(60)")
    start = time.monotonic()
    res = watchdog.run([sys.executable, "-c", code], deadline_s=3)
    assert res.timed_out and res.returncode is None and time.monotonic() - start < 20
    pid = int(marker.read_text())
    time.sleep(0.5)
    assert not _running(pid)


def _running(pid: int) -> bool:
    """Alive and not a zombie (the orphaned grandchild is reaped by init, not by us)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_quick_child_reports_its_output():
    res = watchdog.run([sys.executable, "-c", "print('hello'); raise SystemExit(4)"], deadline_s=30)
    assert not res.timed_out and res.returncode == 4 and res.tail() == "hello"
