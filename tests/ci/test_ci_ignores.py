"""Ignores: inline comments in shell and YAML, project config, and the unused-ignore rules."""
import json

import pytest

from cli_support import CONTINUATION, DUPLICATE, REFUSES, run_check

DUP_FLAGS = "--max-model-len 4096 --max-model-len 8192"


def findings(*args, stdin=None):
    r = run_check("--format", "json", "--fail-on", "info", *args, stdin=stdin)
    doc = json.loads(r.out)
    got = [(f["rule"], f["location"]["file"] if f["location"] else None, f["location"]["line"] if f["location"] else None)
           for res in doc["results"] for f in res["findings"]]
    return r.code, sorted(got), doc["summary"]["ignored"]


def test_inline_ignore_on_the_findings_line(work):
    work("a.sh", f"vllm serve Qwen/Qwen3-0.6B {DUP_FLAGS}  # vllm-preflight: ignore[VP108]\n")
    assert findings("a.sh") == (0, [], 1)


def test_inline_ignore_above_the_server_command_covers_its_findings(work):
    """A comment cannot end a line continued with `\\`: above the command it covers the whole server."""
    work("a.sh", "#!/bin/sh\n# vllm-preflight: ignore[VP108]\n# (tuned for the long-context pool)\n"
                 f"vllm serve Qwen/Qwen3-0.6B \\\n    {DUP_FLAGS}\n")
    assert findings("a.sh") == (0, [], 1)


def test_a_blank_line_breaks_the_comment_block(work):
    work("a.sh", f"# vllm-preflight: ignore[VP108]\n\nvllm serve Qwen/Qwen3-0.6B {DUP_FLAGS}\n")
    code, got, ignored = findings("a.sh")
    assert ignored == 0
    assert got == [("VP108", "a.sh", 3), ("VP390", "a.sh", 1)]


def test_ignore_only_names_its_rules(work):
    work("a.sh", CONTINUATION.replace("# a comment", "# a comment  # vllm-preflight: ignore[VP108]"))
    code, got, ignored = findings("a.sh")
    assert ("VP101", "a.sh", 2) in got and ("VP390", "a.sh", 2) in got and ignored == 0


def test_bare_ignore_silences_every_rule(work):
    work("a.sh", f"vllm serve Qwen/Qwen3-0.6B {DUP_FLAGS}  # vllm-preflight: ignore\n")
    assert findings("a.sh") == (0, [], 1)


def test_yaml_inline_ignore(work):
    work("serve.yaml", "model: Qwen/Qwen3-0.6B\nmax-model-len: 4096\n"
                       "not-an-option: 3  # vllm-preflight: ignore[VP201]\n")
    code, got, ignored = findings("serve.yaml")
    assert [g[0] for g in got] == ["VP300"] and ignored == 1 and code == 1


def test_kubernetes_manifest_ignore_above_the_command(work):
    work("pod.yaml", """apiVersion: v1
kind: Pod
metadata: {name: qwen}
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.13.0
      # vllm-preflight: ignore[VP108]
      command: ["vllm", "serve", "Qwen/Qwen3-0.6B", "--max-model-len", "4096", "--max-model-len", "8192"]
""")
    code, got, ignored = findings("pod.yaml")
    assert "VP108" not in [g[0] for g in got] and "VP390" not in [g[0] for g in got]
    assert ignored == 1


def test_unused_and_unknown_ignores_are_findings(work):
    work("a.sh", "vllm serve Qwen/Qwen3-0.6B  # vllm-preflight: ignore[VP301, VP31]\n")
    r = run_check("--format", "concise", "a.sh")
    assert r.code == 0  # warnings
    assert r.out.splitlines()[:2] == [
        "a.sh:1:29: warning VP390 unused ignore: no VP301 finding here to silence",
        "a.sh:1:29: warning VP391 unknown rule 'VP31' in ignore (`vllm-preflight rules` lists them)"]
    assert run_check("--format", "concise", "--fail-on", "warning", "a.sh").code == 1


def test_a_refusal_cannot_be_ignored(work):
    work("a.sh", REFUSES.rstrip("\n") + "  # vllm-preflight: ignore[VP300, VP201]\n")
    code, got, ignored = findings("a.sh")
    assert code == 1 and ignored == 1  # VP201 silenced, VP300 kept
    assert ("VP300", "a.sh", 1) in got and ("VP201", "a.sh", 1) not in got
    out = run_check("--format", "concise", "a.sh").out
    assert "warning VP390 VP300 cannot be ignored: vLLM would still refuse to start" in out


def test_stdin_inline_ignore(work):
    code, got, ignored = findings("-", stdin=f"vllm serve Qwen/Qwen3-0.6B {DUP_FLAGS}  # vllm-preflight: ignore[VP108]\n")
    assert (got, ignored) == ([], 1)


def test_pyproject_ignore_and_per_file_ignores(work):
    work("deploy/legacy/old.sh", DUPLICATE)
    work("deploy/new.sh", DUPLICATE)
    work("deploy/cont.sh", CONTINUATION)
    work("pyproject.toml", '[project]\nname = "x"\n\n[tool.vllm-preflight]\nignore = ["VP101"]\n'
                           '[tool.vllm-preflight.per-file-ignores]\n"deploy/legacy/*.sh" = ["VP108"]\n')
    code, got, ignored = findings("deploy")
    assert got == [("VP108", "deploy/new.sh", 1)] and ignored == 2


def test_per_file_pattern_without_slash_matches_the_file_name(work):
    work("a/b/new.sh", DUPLICATE)
    work(".vllm-preflight.yaml", "per-file-ignores:\n  new.sh: [VP108]\n")
    assert findings("a")[1:] == ([], 1)


def test_yaml_config_wins_over_pyproject_in_the_same_folder_and_is_found_upward(work, monkeypatch):
    work("pyproject.toml", '[tool.vllm-preflight]\nignore = ["VP101"]\n')
    work(".vllm-preflight.yaml", "ignore: [VP108]\n")
    work("sub/dir/a.sh", DUPLICATE)
    work("sub/dir/b.sh", CONTINUATION)
    monkeypatch.chdir(work.path / "sub" / "dir")
    code, got, ignored = findings("a.sh", "b.sh")
    assert [g[0] for g in got] == ["VP101"] and ignored == 1


def test_config_silences_vp390(work):
    work("a.sh", "vllm serve Qwen/Qwen3-0.6B  # vllm-preflight: ignore[VP301]\n")
    work(".vllm-preflight.yaml", "ignore: [VP390]\n")
    assert findings("a.sh")[1] == []


@pytest.mark.parametrize("name, text, says", [
    (".vllm-preflight.yaml", "ignore: [VP9]\n", "names 'VP9', which is no rule"),  # codes or prefixes
    (".vllm-preflight.yaml", "ignore: VP108\n", "takes a list of rule codes"),
    (".vllm-preflight.yaml", "ignores: [VP108]\n", "unknown key 'ignores'"),
    (".vllm-preflight.yaml", "ignore: [VP300]\n", "cannot be ignored"),
    (".vllm-preflight.yaml", "ignore: [VP108\n", "invalid YAML"),
    ("pyproject.toml", "[tool.vllm-preflight]\nignore = [\n", "invalid TOML"),
])
def test_a_broken_config_is_a_usage_error(work, name, text, says):
    work(name, text)
    work("a.sh", DUPLICATE)
    r = run_check("a.sh")
    assert r.code == 2 and says in r.err


def test_pyproject_without_the_table_is_passed_over(work, monkeypatch):
    work(".vllm-preflight.yaml", "ignore: [VP108]\n")
    work("sub/pyproject.toml", '[project]\nname = "x"\n')
    work("sub/a.sh", DUPLICATE)
    monkeypatch.chdir(work.path / "sub")
    assert findings("a.sh")[1:] == ([], 1)
