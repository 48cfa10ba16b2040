"""Exit codes of `check` as CI reads them, stdin, skipped files, and a pipe closed early."""
import json
import subprocess
import sys

import pytest

from cli_support import CLEAN, CONTINUATION, DUPLICATE, REFUSES, ROOT, run_check, run_process
from vllm_preflight import outcome


def test_clean_is_0(work):
    r = run_check("--format", "concise", work("a.sh", CLEAN))
    assert (r.code, r.out.strip()) == (0, "no findings in 1 server")


@pytest.mark.parametrize("text, fail_on, code", [
    (REFUSES, "error", 1), (REFUSES, "warning", 1), (REFUSES, "never", 0),
    (CONTINUATION, "error", 0), (CONTINUATION, "warning", 1), (CONTINUATION, "info", 1),
    (DUPLICATE, "error", 0), (DUPLICATE, "warning", 0), (DUPLICATE, "info", 1), (DUPLICATE, "never", 0),
])
def test_fail_on_sets_the_least_severe_finding_that_fails(work, text, fail_on, code):
    r = run_check("--format", "json", "--fail-on", fail_on, work("a.sh", text))
    assert r.code == code
    assert json.loads(r.out)["summary"]["exit_code"] == code


def test_a_refusal_fails_even_without_its_finding():
    """The exit code reads `starts` itself: it never depends on VP300 having been added."""
    from vllm_preflight.api import Report
    from vllm_preflight.model import Resolution, VllmError

    refused = Resolution("x.sh", "release", "0.33.0", None, VllmError("ValueError", "no"))
    report = Report(results=[refused])
    assert outcome.exit_code(report, "error") == 1
    assert outcome.exit_code(report, "never") == 0
    outcome.ensure_refusal(refused)
    outcome.ensure_refusal(refused)
    assert [f["rule"] for f in refused.extra["findings"]] == ["VP300"]
    assert refused.extra["findings"][0]["message"] == "vLLM 0.33.0 would refuse to start: ValueError: no"


@pytest.mark.parametrize("args, says", [
    (["missing.sh"], "missing.sh: cannot read"),
    (["plain.sh"], "plain.sh: no `vllm serve`"),
    (["configmap.yaml"], "configmap.yaml: no container running a vLLM server"),
    (["empty"], "empty: no vLLM server in this folder"),
    (["unrelated"], "unrelated: no vLLM server in this folder"),
    (["--vllm-version", "0.1.0", "a.sh"], "unsupported --vllm-version"),
    ([], "nothing to check"),
])
def test_usage_unreadable_and_no_deployment_are_2(work, args, says):
    work("a.sh", CLEAN)
    work("plain.sh", "echo hello\n")
    work("configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n")
    (work.path / "empty").mkdir()
    work("unrelated/values.yaml", "replicas: 3\n")
    work("unrelated/run.sh", "echo hello\n")
    r = run_check("--format", "json", *args)
    assert r.code == 2
    assert says in r.err


def test_unreadable_input_wins_over_findings(work):
    r = run_check(work("a.sh", REFUSES), "missing.sh")
    assert r.code == 2


def test_internal_error_is_3(monkeypatch, capsys):
    import vllm_preflight.api
    from vllm_preflight import cli

    def broken(*a, **k):
        raise RuntimeError("boom")

    monkeypatch.setattr(vllm_preflight.api, "check_inputs", broken)
    monkeypatch.setattr(sys, "argv", ["vllm-preflight", "check", "examples/deepep-ht-dp8.sh"])
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 3
    assert "internal error: RuntimeError: boom" in capsys.readouterr().err


def test_skip_non_deployments_for_pre_commit(work):
    """pre-commit passes every staged YAML and shell file: those without a vLLM server are
    skipped, and a commit touching none is 0, not 2."""
    plain, values = work("plain.sh", "echo hello\n"), work("values.yaml", "replicas: 3\n")
    r = run_check("--skip-non-deployments", "--format", "json", plain, values)
    assert r.code == 0
    doc = json.loads(r.out)
    assert doc["results"] == [] and [s["path"] for s in doc["skipped"]] == [plain, values]
    r = run_check("--skip-non-deployments", "--format", "concise", plain, work("a.sh", REFUSES))
    assert r.code == 1 and "a.sh:1:28: error VP201" in r.out


def test_verbose_lists_skipped_files_in_folders(work):
    work("deploy/serve.sh", CLEAN)
    work("deploy/notes.sh", "echo hello\n")
    quiet = run_check("--format", "concise", "deploy")
    assert quiet.code == 0 and "skipped" not in quiet.err
    loud = run_check("--format", "concise", "--verbose", "deploy")
    assert "vllm-preflight: skipped deploy/notes.sh: holds no vLLM server" in loud.err.replace("\\", "/")
    assert loud.out == quiet.out  # stdout stays the report


def test_stdin_is_read_with_dash(work):
    r = run_check("--format", "concise", "-", stdin=DUPLICATE)
    assert r.code == 0
    assert r.out.splitlines()[0].startswith("<stdin>:1:28: info VP108")
    doc = json.loads(run_check("--format", "json", "-", stdin=REFUSES).out)
    assert doc["results"][0]["source"] == "<stdin>" and doc["summary"]["exit_code"] == 1


def test_empty_stdin_is_2(work):
    r = run_check("-", stdin="")
    assert r.code == 2 and "<stdin>: empty file" in r.err


def test_stdin_yaml_with_input_format(work):
    r = run_check("--format", "json", "--input-format", "vllm-config", "-",
                  stdin="model: Qwen/Qwen3-0.6B\nmax-model-len: 4096\n")
    assert r.code == 0
    assert json.loads(r.out)["results"][0]["source"] == "<stdin>"


@pytest.mark.parametrize("fmt", ["text", "json", "concise"])
def test_a_pipe_closed_early_keeps_the_exit_code_and_prints_no_traceback(fmt):
    """`check examples/ | head -1`: the reader is gone before anything is written."""
    def closed_early(*inputs):
        p = subprocess.Popen([sys.executable, "-m", "vllm_preflight", "check", "--format", fmt, *inputs],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdout.close()
        err = p.stderr.read().decode()
        return p.wait(timeout=120), err

    code, err = closed_early("examples/deepep-ht-dp8.sh")
    assert code == 0 and "Traceback" not in err and "BrokenPipe" not in err, err
    code, err = closed_early("examples/verify-deepep-ht-mode-none-full.sh")  # VP301: an error finding
    assert code == 1 and "Traceback" not in err and "BrokenPipe" not in err, err


def test_subprocess_exit_codes_match_in_process(work):
    """The console entry point (main) gives the same codes as the in-process runs."""
    work("a.sh", REFUSES)
    assert run_process("check", "--format", "concise", "a.sh", cwd=work.path).returncode == 1
    assert run_process("check", "--format", "concise", "--fail-on", "never", "a.sh", cwd=work.path).returncode == 0


def test_a_bug_on_one_input_is_3_and_the_others_are_still_reported(work, monkeypatch):
    from vllm_preflight import api

    real = api.check_deployment

    def flaky(d, **kw):
        if d.source.endswith("b.sh"):
            raise RuntimeError("boom")
        return real(d, **kw)

    monkeypatch.setattr(api, "check_deployment", flaky)
    r = run_check("--format", "json", work("a.sh", REFUSES), work("b.sh", CLEAN))
    doc = json.loads(r.out)
    assert r.code == 3 and doc["summary"]["exit_code"] == 3
    assert [res["source"] for res in doc["results"]] == ["a.sh"] and "internal error" in r.err
