"""The repository's pre-commit hooks (.pre-commit-hooks.yaml) run through the real `pre-commit`.

`pre-commit try-repo THIS_CHECKOUT HOOK --files ...` in a scratch git repository, as a user's
`.pre-commit-config.yaml` would run it (try-repo takes this checkout's uncommitted changes too):

- `vllm-preflight-system` (`language: system`) runs the `vllm-preflight` on PATH, here a shim
  running this checkout's source: no download at all;
- `vllm-preflight` (`language: python`) makes its own virtualenv and pip-installs this
  checkout into it, which needs the package index once (PyPI in CI; pip's own configuration
  decides which index). That is what every user of the hook does on first use, so the test
  does it too rather than pretend; its environment lives in the test's PRE_COMMIT_HOME.

Each must pass a clean deployment and a file holding no server, and fail on a deployment vLLM
refuses, naming the finding.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

import pytest

from cli_support import CLEAN, REFUSES, ROOT

PRE_COMMIT = [sys.executable, "-m", "pre_commit"]


def _git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)


@pytest.fixture
def scratch(tmp_path):
    """A scratch git repository with a clean deployment, a refused one and a non-deployment, and
    the environment pre-commit runs in (its own home; a `vllm-preflight` shim on PATH)."""
    if shutil.which("git") is None:
        pytest.fail("git is needed to run pre-commit")
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        pytest.fail("pre-commit is in the test extra: pip install -e '.[test]'")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "serve.sh").write_text(CLEAN)
    (repo / "values.yaml").write_text("replicas: 3\n")
    (repo / "bad.sh").write_text(REFUSES)
    _git(repo, "add", ".")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "vllm-preflight"
    shim.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m vllm_preflight \"$@\"\n")
    shim.chmod(0o755)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
               PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", HF_HUB_OFFLINE="1")
    env.pop("PRE_COMMIT", None)
    return repo, env


def try_repo(repo, env, hook: str, *files: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*PRE_COMMIT, "try-repo", str(ROOT), hook, "--files", *files], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _assert_hook_works(repo, env, hook: str, timeout: int) -> None:
    good = try_repo(repo, env, hook, "serve.sh", "values.yaml", timeout=timeout)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout
    bad = try_repo(repo, env, hook, "serve.sh", "bad.sh", "values.yaml", timeout=timeout)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout and "bad.sh:1:28: error VP201" in bad.stdout, bad.stdout


def test_the_system_hook_through_pre_commit_passes_good_files_and_fails_a_bad_one(scratch):
    repo, env = scratch
    _assert_hook_works(repo, env, "vllm-preflight-system", timeout=180)


def test_the_python_hook_builds_its_environment_and_checks(scratch):
    """pre-commit builds the hook's virtualenv from this checkout (pip, the package index once);
    the shim is taken off PATH so the hook's own install is what runs."""
    repo, env = scratch
    env = dict(env, PATH=os.environ["PATH"])
    env.pop("PYTHONPATH")  # the hook's environment holds its own copy of the package
    _assert_hook_works(repo, env, "vllm-preflight", timeout=900)
