"""One bad input never costs the others (issue 11): each is a clear input error of its own,
and a bug that still escapes is reported as that input's `errors` entry (exit 3)."""
from __future__ import annotations

import pytest
from hsupport import check, sources

POD = """apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers:
  - name: vllm
    image: vllm/vllm-openai:v0.13.0
    command: ["vllm", "serve", "m"]
{extra}
"""


@pytest.mark.parametrize("extra, what", [("    env: 5", "`env` must be a list of entries, not a number"),
                                         ("    envFrom: 5", "`envFrom` must be a list"),
                                         ("    env: true", "not a boolean"),
                                         ("    env: 1.5", "not a number"),
                                         ("    env: {A: b}", "not a mapping")])
def test_kubernetes_env_that_is_no_list_is_an_input_error(tmp_path, good, extra, what):
    p = tmp_path / "pod.yaml"
    p.write_text(POD.format(extra=extra))
    code, doc, err = check(str(p), str(good))
    assert code == 2, err
    assert f"{p}:9:" in err and what in err
    assert sources(doc) == [str(good)]


@pytest.mark.parametrize("config, what", [
    ('{"architectures": {"a": 1}}', "`architectures` is not a list of class names"),
    ('{"max_position_embeddings": Infinity}', "OverflowError"),
    ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ("[1]", "not a JSON object"),
    ('{"hidden_size": "x"}', "unexpected value"),
    ("{", "not valid JSON"),
])
def test_a_broken_model_config_json_is_that_inputs_error(tmp_path, good, config, what):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text(config)
    p = tmp_path / "serve.sh"
    p.write_text("vllm serve ./model\n")
    code, doc, err = check(str(p), str(good))
    assert code == 2, err
    assert err.startswith(f"vllm-preflight: {p}:1:1: ") and "config.json unusable" in err and what in err
    assert sources(doc) == [str(good)]


def test_a_broken_model_of_the_second_server_names_its_line_once(tmp_path):
    """The error of a server past the first of a file names `FILE:LINE:COL`, not `FILE:LINE:LINE:COL`
    (a server's source carries its line; the location adds it once)."""
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text("{")
    p = tmp_path / "serve.sh"
    p.write_text("vllm serve m\nvllm serve ./model\n")
    code, doc, err = check(str(p))
    assert code == 2, err
    assert f"vllm-preflight: {p}:2:1: " in err and f"{p}:2:2:1" not in err, err
    assert [e["source"] for e in doc["errors"]] == [str(p)]


def test_a_bug_while_loading_one_file_is_reported_for_it_alone(tmp_path, good, monkeypatch):
    from vllm_preflight.load import shell_file

    bad = tmp_path / "bad.sh"
    bad.write_text("vllm serve boom\n")
    real = shell_file.servers_in

    def buggy(source, variables, fmt):
        if source.path == str(bad):
            raise KeyError("a bug")
        return real(source, variables, fmt)

    monkeypatch.setattr(shell_file, "servers_in", buggy)
    code, doc, err = check(str(bad), str(good))
    assert code == 3
    assert f"{bad}: internal error: KeyError" in err
    assert sources(doc) == [str(good)]
    [entry] = doc["errors"]
    assert entry["source"] == str(bad) and entry["internal"] is True


def test_a_bug_while_resolving_one_deployment_is_reported_for_it_alone(tmp_path, good, monkeypatch):
    from vllm_preflight import api

    bad = tmp_path / "bad.sh"
    bad.write_text("vllm serve boom\n")
    real = api.check_deployment

    def buggy(d, **kw):
        if d.source == str(bad):
            raise RecursionError("deep")
        return real(d, **kw)

    monkeypatch.setattr(api, "check_deployment", buggy)
    code, doc, err = check(str(bad), str(good))
    assert code == 3
    assert f"{bad}:1:1: internal error: the input is too complex" in err
    assert sources(doc) == [str(good)]


def test_an_unreadable_input_is_its_own_error_after_the_others_are_checked(tmp_path, good, monkeypatch):
    """click's path check used to abort the whole run before anything was read."""
    import os

    from vllm_preflight.load import source as source_mod

    secret = tmp_path / "secret.sh"
    secret.write_text("vllm serve m\n")
    real_open = os.open

    def deny(path, *a, **kw):
        if str(path) == str(secret):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *a, **kw)

    monkeypatch.setattr(source_mod.os, "open", deny)
    monkeypatch.setattr(os, "access", lambda *a, **kw: False)  # what click's readable check asks
    code, doc, err = check(str(secret), str(good))
    assert code == 2
    assert f"{secret}: cannot read: Permission denied" in err
    assert sources(doc) == [str(good)]


def test_an_unreadable_folder_is_its_own_error(tmp_path, good, monkeypatch):
    import os

    folder = tmp_path / "private"
    folder.mkdir()
    real = os.scandir

    def deny(path="."):
        if str(path) == str(folder):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", deny)
    code, doc, err = check(str(folder), str(good))
    assert code == 2 and f"{folder}: cannot read folder: Permission denied" in err
    assert sources(doc) == [str(good)]
