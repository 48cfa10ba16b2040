"""Lost results and wrong exit codes (issue 25): every format with a non-UTF-8 file name, an
ASCII-only output encoding and a deleted working folder each give the report and the documented
code, never exit 3 with nothing; Ctrl-C exits 130 and SIGTERM 143 (not click's 1, "a finding")."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hsupport import ROOT

EXAMPLE = ROOT / "examples" / "deepep-ht-dp8.sh"
CHECK_FORMATS = ("text", "concise", "json", "sarif", "github", "junit")
MATRIX_FORMATS = ("text", "markdown", "html", "csv", "json")
POSIX = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and file names")


def _env(**extra) -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT / "src"), **extra)


def _cli(*args: str, cwd=None, env=None, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vllm_preflight", *args], cwd=cwd, env=env or _env(),
                          capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)


@pytest.fixture(scope="module")
def non_utf8(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("names")
    (d / os.fsdecode(b"bad\xff.sh")).write_text("vllm serve m -tp 2 --bogus 1\n")
    return d


@POSIX
@pytest.mark.parametrize("fmt", CHECK_FORMATS)
def test_a_non_utf8_file_name_in_every_format(non_utf8, fmt):
    """`--format sarif` was exit 3 with no output at all."""
    r = _cli("check", "--format", fmt, str(non_utf8))
    assert r.returncode == 1, r.stderr  # vLLM refuses --bogus: a finding
    assert r.stdout.strip() and b"internal error" not in r.stderr
    assert b"bad" in r.stdout


@POSIX
@pytest.mark.parametrize("fmt", MATRIX_FORMATS)
def test_a_non_utf8_file_name_in_every_matrix_format(non_utf8, fmt):
    r = _cli("matrix", "--vllm-version", "0.33.0", "--format", fmt, str(non_utf8))
    assert r.returncode == 0, r.stderr
    assert b"bad" in r.stdout and b"internal error" not in r.stderr


@pytest.mark.parametrize("command, formats", [("check", CHECK_FORMATS), ("matrix", MATRIX_FORMATS)])
def test_an_ascii_terminal_gets_the_report(command, formats):
    """PYTHONIOENCODING=ascii was exit 3 (`──` and `·` cannot be encoded)."""
    extra = ("--vllm-version", "0.12.0..0.13.0") if command == "matrix" else ()
    for fmt in formats:
        r = _cli(command, "--format", fmt, *extra, str(EXAMPLE), env=_env(PYTHONIOENCODING="ascii"))
        assert r.returncode == 0, (fmt, r.stderr)
        assert r.stdout.strip(), fmt  # written (click writes UTF-8 to an ASCII stream; the rest escapes)
        assert b"internal error" not in r.stderr


@POSIX
def test_a_deleted_working_folder(tmp_path):
    """Was exit 3 (FileNotFoundError from os.getcwd) for every input, even absolute paths."""
    gone = tmp_path / "gone"
    script = ("import os, sys\nos.mkdir(sys.argv[1]); os.chdir(sys.argv[1]); os.rmdir(sys.argv[1])\n"
              "sys.argv = ['vllm-preflight'] + sys.argv[2:]\nfrom vllm_preflight.cli import main\nmain()\n")

    def run(*args):
        return subprocess.run([sys.executable, "-c", script, str(gone), *args], env=_env(), capture_output=True,
                              text=True, timeout=30, check=False)

    r = run("check", "--format", "concise", str(EXAMPLE))
    assert r.returncode == 0, r.stderr
    assert "VP302" in r.stdout and "the current folder no longer exists" in r.stderr
    r = run("check", str(EXAMPLE), "relative.sh")
    assert r.returncode == 2 and "relative.sh: cannot read" in r.stderr and "VP302" in r.stdout
    r = run("check", "--", "vllm", "serve", "m")
    assert r.returncode == 0, r.stderr
    r = run("matrix", "--vllm-version", "0.33.0", str(EXAMPLE))
    assert r.returncode == 0, r.stderr
    assert not gone.exists()


READ_SYSCALL = {"x86_64": 0, "aarch64": 63}


def _reading_stdin(pid: int, deadline: float) -> None:
    """Wait until the child blocks reading its standard input (its handlers are in place by then)."""
    import platform

    number = READ_SYSCALL.get(platform.machine())
    while time.monotonic() < deadline:
        try:
            if number is None:
                raise OSError("unknown system call numbers")
            with open(f"/proc/{pid}/syscall") as f:
                if f.read().startswith(f"{number} 0x0 "):  # read(0, ...)
                    return
        except OSError:
            time.sleep(3)  # no /proc here: give it time to reach the read
            return
        time.sleep(0.05)


@POSIX
@pytest.mark.parametrize("command", ["check", "matrix"])
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signals_exit_130_and_143(command, sig, code):
    """Ctrl-C exited 1, the code of "a finding"."""
    p = subprocess.Popen([sys.executable, "-m", "vllm_preflight", command, "-"], env=_env(),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _reading_stdin(p.pid, time.monotonic() + 20)
        p.send_signal(sig)
        _out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == code, err
    assert f"interrupted by {signal.Signals(sig).name}".encode() in err and b"Traceback" not in err


@POSIX
def test_ctrl_c_ends_a_parallel_matrix_and_its_workers():
    """Ctrl-C reaches the whole process group: the forked workers leave it to the parent, which
    ends the pool and exits 130, without a traceback from each worker."""
    p = subprocess.Popen([sys.executable, "-m", "vllm_preflight", "matrix", "--jobs", "2"], env=_env(),
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        time.sleep(4)
        os.killpg(p.pid, signal.SIGINT)
        _out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 130, err
    assert b"Traceback" not in err
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):
        os.killpg(p.pid, 0)  # nothing of the group is left


@POSIX
def test_a_matrix_worker_that_dies_ends_the_run_instead_of_hanging(tmp_path):
    """A worker killed mid-run (SIGTERM to the process group reaches it first) lost its rows, and
    multiprocessing.Pool waited for them for ever (and its terminate() could wait for a lock the
    dead worker held). Now the parent sees the pipe close without rows and raises at once."""
    code = (
        "import os, signal\n"
        "from vllm_preflight.matrix import cells\n"
        "def dying(chunk):\n"
        "    if chunk == [1]:\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "    return [{'cell': c} for c in chunk]\n"
        "cells._WORK = (None, None)\n"
        "cells._child = dying\n"
        "print(cells._in_children([[0], [2]]))\n"
        "try:\n"
        "    cells._in_children([[0], [1], [2]])\n"
        "except RuntimeError as e:\n"
        "    print('raised:', e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=30,
                       check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["[[{'cell': 0}], [{'cell': 2}]]",
                                     "raised: a matrix worker ended without its rows"], r.stdout


@POSIX
@pytest.mark.parametrize("delay", [0.7, 0.9, 1.1, 1.3, 1.6])
def test_sigterm_to_the_process_group_of_a_parallel_matrix_exits_143(delay):
    """A CI runner cancelling a job signals the whole process group; at some moments (a worker
    being forked, or holding the pool's queue lock) the parent hung for ever in Pool.terminate()."""
    p = subprocess.Popen([sys.executable, "-m", "vllm_preflight", "matrix", "--jobs", "2"], env=_env(),
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        time.sleep(delay)
        os.killpg(p.pid, signal.SIGTERM)
        _out, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 143, err
    assert b"Traceback" not in err
    time.sleep(0.3)
    with pytest.raises(ProcessLookupError):
        os.killpg(p.pid, 0)
