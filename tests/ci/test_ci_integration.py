"""The pre-commit hook and the GitHub Action, run as their definitions say."""
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
import yaml

from cli_support import CLEAN, REFUSES, ROOT

HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())


@pytest.fixture
def shim(tmp_path):
    """A `vllm-preflight` on PATH that records its argv, then runs this checkout's CLI."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "argv.log"
    exe = bindir / "vllm-preflight"
    exe.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$*\" >> {shlex.quote(str(log))}\n"
                   f"exec {shlex.quote(sys.executable)} -m vllm_preflight \"$@\"\n")
    exe.chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return env, log


@pytest.mark.parametrize("hook", [h["id"] for h in HOOKS])
def test_pre_commit_hook_entry_runs_on_what_pre_commit_passes(hook, tmp_path, shim):
    env, _log = shim
    spec = next(h for h in HOOKS if h["id"] == hook)
    assert spec["language"] in ("python", "system") and set(spec["types_or"]) == {"yaml", "shell"}
    entry = shlex.split(spec["entry"])
    assert entry[0] == "vllm-preflight"
    (tmp_path / "serve.sh").write_text(CLEAN)
    (tmp_path / "values.yaml").write_text("replicas: 3\n")  # staged along, no vLLM server
    (tmp_path / "build.sh").write_text("#!/bin/sh\nmake\n")

    def hook_run(*files):  # pre-commit appends the staged file names to entry + args
        return subprocess.run(entry + list(files), cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120)

    ok = hook_run("serve.sh", "values.yaml", "build.sh")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == "no findings in 1 server"
    assert hook_run("values.yaml", "build.sh").returncode == 0  # a commit without deployments
    (tmp_path / "bad.sh").write_text(REFUSES)
    bad = hook_run("serve.sh", "bad.sh", "values.yaml")
    assert bad.returncode == 1 and "bad.sh:1:28: error VP201" in bad.stdout


def _check_step():
    (step,) = [s for s in ACTION["runs"]["steps"] if s.get("id") == "check"]
    return step


def test_action_is_composite_and_passes_inputs_through_env():
    assert ACTION["runs"]["using"] == "composite"
    step = _check_step()
    assert step["shell"] == "bash"
    for any_step in ACTION["runs"]["steps"]:  # inputs never pasted into a script (injection)
        assert "${{" not in any_step["run"], any_step["name"]
    assert set(step["env"]) == {"INPUT_PATHS", "INPUT_VLLM_VERSION", "INPUT_TARGET", "INPUT_FAIL_ON",
                                "INPUT_SARIF_FILE"}
    assert set(ACTION["inputs"]) >= {"paths", "vllm-version", "target", "fail-on", "sarif-file"}
    assert "|| true" not in step["run"]  # nothing hides the check's exit status
    assert set(ACTION["outputs"]) == {"exit-code", "findings", "errors", "warnings", "sarif-file"}
    for out in ACTION["outputs"].values():
        assert out["value"].startswith("${{ steps.check.outputs.")


def _run_action(shim, **inputs):
    env, log = shim
    outputs = log.parent / "github_output"
    env = dict(env, GITHUB_OUTPUT=str(outputs), RUNNER_TEMP=str(log.parent))
    step = _check_step()
    defaults = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    defaults.update(inputs)
    for name in step["env"]:
        env[name] = defaults[name[len("INPUT_"):].lower().replace("_", "-")]
    # as GitHub runs a bash step: bash --noprofile --norc -eo pipefail
    out = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=300)
    out.outputs = dict(line.split("=", 1) for line in outputs.read_text().splitlines()) if outputs.exists() else {}
    argvs = [shlex.split(line) for line in log.read_text().splitlines()] if log.exists() else []
    for argv in argvs:  # the JSON summary's temporary file, as the README writes it
        argv[:] = [re.sub(r"^json:.*$", "json:SUMMARY", a) for a in argv]
    assert not list(log.parent.glob("vllm-preflight.*")), "the summary file is removed"
    return out, argvs


@pytest.mark.skipif(shutil.which("bash") is None, reason="the Action's steps are bash")
def test_action_runs_the_documented_command_line_and_annotates(shim):
    readme = (ROOT / "README.md").read_text()
    documented = re.search(r"^vllm-preflight check --format github .*$", readme, re.MULTILINE).group(0)
    out, argvs = _run_action(shim, **{"paths": "examples/", "vllm-version": "0.13.0"})
    assert argvs == [shlex.split(documented)[1:]]  # one run
    assert out.returncode == 1  # examples/verify-deepep-ht-mode-none-full.sh: VP301
    assert out.outputs["exit-code"] == "1" and int(out.outputs["errors"]) >= 1
    assert int(out.outputs["findings"]) >= int(out.outputs["errors"]) + int(out.outputs["warnings"])
    assert out.outputs["sarif-file"] == ""
    assert re.search(r"^::error file=examples/verify-deepep-ht-mode-none-full\.sh,line=\d+,col=\d+,title=VP301::",
                     out.stdout, re.MULTILINE), out.stdout + out.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="the Action's steps are bash")
def test_action_sarif_file_and_several_paths(shim, tmp_path):
    sarif = tmp_path / "out.sarif"
    out, argvs = _run_action(shim, **{"paths": "examples/deepep-ht-dp8.sh\nexamples/deepep-ht-dp8-piecewise.sh",
                                      "fail-on": "never", "target": "pr29558", "sarif-file": str(sarif)})
    paths = ["examples/deepep-ht-dp8.sh", "examples/deepep-ht-dp8-piecewise.sh"]
    assert argvs == [["check", "--format", "github", "--fail-on", "never", "--output-file", "json:SUMMARY",
                      "--target", "pr29558", "--output-file", f"sarif:{sarif}", *paths]]  # one run for both
    assert out.returncode == 0
    assert '"version": "2.1.0"' in sarif.read_text()
    assert out.outputs["sarif-file"] == str(sarif) and out.outputs["exit-code"] == "0"


@pytest.mark.skipif(shutil.which("bash") is None, reason="the Action's steps are bash")
@pytest.mark.parametrize("fail_on", ["never", "error"])
def test_action_fails_on_unreadable_input_whatever_fail_on_says(shim, fail_on):
    out, _argvs = _run_action(shim, **{"paths": "examples/deepep-ht-dp8.sh no-such-file.sh", "fail-on": fail_on})
    assert out.returncode == 2 and out.outputs["exit-code"] == "2", out.stderr
    assert "no-such-file.sh" in out.stdout  # its annotation


@pytest.mark.skipif(shutil.which("bash") is None, reason="the Action's steps are bash")
def test_action_fails_on_an_internal_error_and_says_so(shim, tmp_path):
    env, log = shim
    broken = tmp_path / "bin" / "vllm-preflight"  # a tool that crashes (exit 3) before any report
    broken.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$*\" >> {shlex.quote(str(log))}\n"
                      "echo 'vllm-preflight: internal error: RuntimeError: boom' >&2\nexit 3\n")
    out, _argvs = _run_action(shim, **{"paths": "examples/deepep-ht-dp8.sh", "fail-on": "never",
                                       "sarif-file": str(tmp_path / "x.sarif")})
    assert out.returncode == 3 and "internal error" in out.stderr
    assert out.outputs["exit-code"] == "3" and out.outputs["findings"] == ""


def test_readme_snippets_name_the_real_repository_and_the_version_tag():
    """pre-commit's `rev` and the Action's ref are the release tag scheme (`v` + pyproject's
    version), on the repository URL the project's metadata names; no placeholder owner."""
    readme = (ROOT / "README.md").read_text()
    pyproject = (ROOT / "pyproject.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1)
    home = re.search(r'^Source = "https://github.com/([^"]+)"', pyproject, re.M).group(1)
    assert "OWNER" not in readme and "OWNER" not in (ROOT / "action.yml").read_text()
    assert re.search(rf"- repo: https://github.com/{re.escape(home)}\n\s+rev: v{re.escape(version)}\b", readme)
    assert f"uses: {home}@v{version}" in readme
    assert "tagged `v` + the `version` of `pyproject.toml`" in readme
