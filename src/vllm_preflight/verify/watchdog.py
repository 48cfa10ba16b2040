"""Run child processes under a deadline: a hang becomes a failure, never a stuck verify.

Children get a process group of their own, so that a timeout, an error or a signal to verify
ends them and everything they started with one signal to that group, and nothing else. Ranks
are started here directly (one process per rank, all in one group) instead of through torchrun:
they meet through a file store in the run's temporary folder, so no TCP store listens anywhere,
and gloo / NCCL bootstrap sockets are pinned to the loopback interface for these single-node
tiers. Nothing is left behind: no torchelastic log tree, no rank outliving verify, even a
SIGKILLed one (every child watches a lifeline pipe, `lifeline.py`, and removes its folder).
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from vllm_preflight.verify.lifeline import Lifeline

# Single-node tiers: bootstrap sockets on loopback only.
LOOPBACK_ENV = {"GLOO_SOCKET_IFNAME": "lo", "NCCL_SOCKET_IFNAME": "lo", "MASTER_ADDR": "127.0.0.1"}
RANK_GRACE_S = 10.0  # after one rank fails, the others get this long before the group is ended


@dataclass
class ChildResult:
    returncode: int | None
    timed_out: bool
    output: str
    seconds: float

    def tail(self, lines: int = 8) -> str:
        return "\n".join(self.output.strip().splitlines()[-lines:])


def run(cmd: list[str], deadline_s: float, env: dict | None = None, cwd: str | None = None) -> ChildResult:
    """Run `cmd` in a session of its own under `deadline_s`; it gets a lifeline (a child that
    calls `lifeline.watch_parent()` dies with verify, even a SIGKILLed one)."""
    start = time.monotonic()
    line = Lifeline()
    with contextlib.closing(line):
        child_env = dict(env if env is not None else os.environ)
        child_env.update(line.env())
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=child_env, cwd=cwd,
                                start_new_session=True, text=True, pass_fds=line.pass_fds)
        try:
            out, _ = proc.communicate(timeout=deadline_s)
            return ChildResult(proc.returncode, False, out or "", time.monotonic() - start)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid, [proc])
            out, _ = proc.communicate()
            return ChildResult(None, True, out or "", time.monotonic() - start)
        except BaseException:  # Ctrl-C, SIGTERM, a bug: never leave the child running
            _kill_group(proc.pid, [proc])
            raise


def _kill_group(pgid: int, procs: list[subprocess.Popen]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)  # the group this run created, only
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(p.poll() is None for p in procs):
            time.sleep(0.05)
        if all(p.poll() is not None for p in procs):
            return


def _start_in_group(argv: list[str], log, env: dict[str, str], pgid: int,
                    pass_fds: tuple[int, ...] = ()) -> subprocess.Popen:
    """Start `argv` in process group `pgid` (0: a new group that this child leads)."""
    if sys.version_info >= (3, 11):
        return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, process_group=pgid,
                                pass_fds=pass_fds)
    # Python 3.10 has no process_group: the same setpgid, in the child before exec (the one
    # call made there, as process_group does; nothing that could wait on another thread's lock)
    return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, pass_fds=pass_fds,
                            preexec_fn=lambda: os.setpgid(0, pgid))  # noqa: PLW1509 - see above


def launch_ranks(nproc: int, module: str, args: list[str], workdir: str, deadline_s: float,
                 env: dict | None = None) -> ChildResult:
    """Start `python -m module args` once per rank (RANK, WORLD_SIZE, LOCAL_RANK and a file-store
    address in the environment), all in one new process group; wait for all of them, at most
    `deadline_s`. Each rank's output goes to a file in `workdir` and comes back prefixed."""
    start = time.monotonic()
    base = dict(env if env is not None else os.environ)
    base.update(LOOPBACK_ENV)
    base.update({"WORLD_SIZE": str(nproc), "PF_VERIFY_STORE": "file://" + os.path.join(workdir, "store"),
                 "TMPDIR": workdir})
    procs: list[subprocess.Popen] = []
    with contextlib.ExitStack() as logs:  # every rank's log is closed, whatever happens
        line = logs.enter_context(contextlib.closing(Lifeline()))  # the ranks die with verify and remove workdir
        base.update(line.env(workdir))
        try:
            for rank in range(nproc):
                log = logs.enter_context(open(os.path.join(workdir, f"rank{rank}.log"), "w"))
                rank_env = dict(base, RANK=str(rank), LOCAL_RANK=str(rank))
                # one new process group for all ranks (in verify's session: setpgid across sessions
                # is not allowed); a terminal's Ctrl-C reaches verify, which ends the group itself
                procs.append(_start_in_group([sys.executable, "-m", module, *args], log, rank_env,
                                             0 if rank == 0 else procs[0].pid, line.pass_fds))
            timed_out, failed_at = False, None
            while any(p.poll() is None for p in procs):
                now = time.monotonic()
                if now - start > deadline_s:
                    timed_out = True
                    break
                if failed_at is None and any(p.poll() not in (None, 0) for p in procs):
                    failed_at = now
                if failed_at is not None and now - failed_at > RANK_GRACE_S:
                    break  # the others wait on a collective that will never come
                time.sleep(0.05)
            if any(p.poll() is None for p in procs):
                _kill_group(procs[0].pid, procs)
        except BaseException:
            if procs:
                _kill_group(procs[0].pid, procs)
            raise
    output = []
    for rank in range(len(procs)):
        with open(os.path.join(workdir, f"rank{rank}.log")) as f:
            output += [f"[rank {rank}] {line}" if not line.startswith("[rank") else line
                       for line in f.read().splitlines()]
    codes = [p.returncode for p in procs]
    code = None if timed_out else next((c for c in codes if c), 0)
    return ChildResult(code, timed_out, "\n".join(output), time.monotonic() - start)


def run_rank_job(job: dict, nproc: int, deadline_s: float, graph: bytes | None = None
                 ) -> tuple[list[dict] | None, ChildResult]:
    """Launch the ranks under the watchdog (own process group, file store, loopback only); the
    gathered per-rank results, or None. The temporary folder and everything in it goes away
    whatever happens, Ctrl-C included."""
    with tempfile.TemporaryDirectory(prefix="pf-verify-") as tmp:
        job_path, out_path = os.path.join(tmp, "job.json"), os.path.join(tmp, "ranks.json")
        if graph is not None:
            job = dict(job, graph_file=os.path.join(tmp, "graph.pkl"))
            with open(job["graph_file"], "wb") as f:
                f.write(graph)
        with open(job_path, "w") as f:
            json.dump(job, f)
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
        child = launch_ranks(nproc, "vllm_preflight.verify.child",
                             ["rank", "--job", job_path, "--out", out_path], tmp, deadline_s, env=env)
        if os.path.exists(out_path):
            with open(out_path) as f:
                return json.load(f), child
        # a rank that raised left its error beside the missing result: put it first in the output
        for name in sorted(os.listdir(tmp)):
            if name.startswith("ranks.json.rank"):
                with open(os.path.join(tmp, name)) as f:
                    err = json.load(f)
                child.output += f"\n[rank {err['rank']}] {err['error']}"
        return None, child
