"""An input never makes the tool read or print a file the user did not name (issue 25).

A `--config`, `source` or `from:` path written inside an input is read only inside the
input's folder tree or an `--allow-path` folder; what the user types after `--` is read as
typed. Text of a file an input named is never quoted in any output format: findings name
its places (`[text of FILE:LINE:COL]`). Each case runs next to a good input, still checked.
"""
from __future__ import annotations

import json

import pytest
from hsupport import FORMATS, check, check_all_formats, sources

SECRET = "secret_key: hunter2\n"
LEAKS = ("hunter2", "secret_key", "secret-key")


@pytest.fixture
def outside(tmp_path):
    """A secret YAML outside the project folder, and the project's script naming it."""
    (tmp_path / "private").mkdir()
    secret = tmp_path / "private" / "secret.yaml"
    secret.write_text(SECRET)
    (tmp_path / "proj").mkdir()
    return secret


def _no_leak(outputs: dict) -> None:
    for fmt, (_code, text) in outputs.items():
        for word in LEAKS:
            assert word not in text.lower(), (fmt, word, text[:2000])


@pytest.mark.parametrize("how", ["absolute", "relative"])
def test_a_config_outside_the_inputs_folder_is_not_read(tmp_path, outside, good, how):
    path = str(outside) if how == "absolute" else "../private/secret.yaml"
    serve = tmp_path / "proj" / "serve.sh"
    serve.write_text(f"vllm serve Qwen/Qwen3-0.6B --config {path}\n")
    outputs = check_all_formats(str(serve), str(good))
    _no_leak(outputs)
    code, text = outputs["concise"]
    assert code == 0, text  # a warning: resolved as for a file that is not on this machine
    assert f"VP107 the --config file `{path}` is" in text and "not read: it lies outside the folder tree" in text
    assert "--allow-path" in text
    _code, doc, _err = check(str(serve), str(good))
    assert sources(doc) == [str(serve), str(good)]


def test_etc_passwd_through_dot_dots_is_not_read(tmp_path):
    serve = tmp_path / "serve.sh"
    serve.write_text("vllm serve m --config " + "../" * 30 + "etc/passwd\n")
    _code, doc, _err = check(str(serve))
    [msg] = [f["message"] for f in doc["results"][0]["findings"] if f["rule"] == "VP107"]
    assert "not read: it lies outside the folder tree" in msg and "root:" not in json.dumps(doc)


def test_allowed_its_keys_and_values_are_named_by_place_in_every_format(tmp_path, outside):
    serve = tmp_path / "proj" / "serve.sh"
    serve.write_text(f"vllm serve Qwen/Qwen3-0.6B --config {outside}\n")
    outputs = check_all_formats("--allow-path", str(outside.parent), str(serve))
    _no_leak(outputs)
    code, text = outputs["concise"]
    assert code == 1  # read: vLLM refuses the unknown key
    place = f"[text of {outside}:1:1]"
    assert f"VP201 `{place}` is not an option of vLLM" in text
    assert f"unrecognized arguments: {place} [text of {outside}:1:13]" in text


def test_the_project_config_can_allow_a_folder(tmp_path, outside):
    serve = tmp_path / "proj" / "serve.sh"
    serve.write_text(f"vllm serve Qwen/Qwen3-0.6B --config {outside}\n")
    (tmp_path / "proj" / ".vllm-preflight.yaml").write_text("allow-path: [../private]\n")
    outputs = check_all_formats("serve.sh", cwd=tmp_path / "proj")
    _no_leak(outputs)
    assert outputs["concise"][0] == 1 and "[text of " in outputs["concise"][1]


def test_a_bad_allow_path_is_a_usage_error(tmp_path, good):
    code, _doc, err = check("--allow-path", str(tmp_path / "nope"), str(good))
    assert code == 2 and "not a folder" in err


def test_the_users_own_command_line_is_read_and_quoted(tmp_path, outside):
    """`check -- vllm serve ... --config FILE`: the user named the file; nothing to hide from them."""
    code, doc, _err = check("--", "vllm", "serve", "m", "--config", str(outside))
    assert code == 1
    assert "hunter2" in doc["results"][0]["vllm_error"]["message"]


def test_words_of_a_config_inside_the_tree_are_not_quoted_but_vllms_vocabulary_is(tmp_path):
    (tmp_path / "c.yaml").write_text("max-model-len: hunter2\napi-key: sk-0123456789abcdefghijklmnop\n"
                                     "compilation_config:\n  cudagraph_mode: FULL\n  secret_field: topsecret\n"
                                     "tensor-parallel-size: 8\n")
    serve = tmp_path / "serve.sh"
    serve.write_text("vllm serve Qwen/Qwen3-0.6B --config c.yaml\n")
    outputs = check_all_formats(str(serve))
    for _code, text in outputs.values():
        for word in ("hunter2", "sk-0123456789", "topsecret", "secret_field"):
            assert word not in text
    text = outputs["concise"][1]
    cfg = tmp_path / "c.yaml"
    assert f"`--max-model-len` takes an integer or auto; got '[text of {cfg}:1:16]'" in text  # option names stay
    assert f"`[text of {cfg}:5:3]` is not a field of CompilationConfig" in text  # at the nested key's own line


def test_a_sourced_files_values_are_not_quoted(tmp_path):
    (tmp_path / "env.sh").write_text('EXTRA="--bogus-flag s3cr3tv4lue"\nMODEL=/models/s3cr3tm0del\n'
                                     "eval \"$(vault read s3cr3tpath)\"\n")
    serve = tmp_path / "serve.sh"
    serve.write_text("source ./env.sh\nvllm serve $MODEL $EXTRA -tp 2\n")
    outputs = check_all_formats(str(serve))
    for fmt, (_code, text) in outputs.items():
        assert "s3cr3t" not in text and "bogus" not in text, (fmt, text[:1500])
    assert f"[text of {tmp_path / 'env.sh'}:1:8]" in outputs["concise"][1]


def test_a_source_outside_the_tree_is_not_read(tmp_path):
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "env.sh").write_text("TP=4\n")
    (tmp_path / "proj").mkdir()
    serve = tmp_path / "proj" / "serve.sh"
    serve.write_text("source ../private/env.sh\nvllm serve m -tp $TP\n")
    _code, doc, _err = check(str(serve))
    msgs = [f["message"] for f in doc["results"][0]["findings"] if f["rule"] == "VP121"]
    assert msgs and "not read: it lies outside the folder tree" in msgs[0]
    # read when allowed: TP comes from the file
    _code, doc, _err = check("--allow-path", str(tmp_path / "private"), str(serve))
    assert doc["results"][0]["resolved"]["parallel_config"]["tensor_parallel_size"] == 4


def test_a_from_outside_the_tree_is_that_inputs_error(tmp_path, good):
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "serve.sh").write_text("vllm serve m\n")
    (tmp_path / "proj").mkdir()
    dep = tmp_path / "proj" / "x.preflight.yaml"
    dep.write_text("from: ../private/serve.sh\ngpu: H100\n")
    code, doc, err = check(str(dep), str(good))
    assert code == 2 and f"{dep}:1:7: `from: ../private/serve.sh`: not read" in err
    assert sources(doc) == [str(good)]


def test_a_link_inside_the_tree_to_a_file_outside_is_not_read(tmp_path, outside):
    """Real paths decide: `proj/c.yaml -> ../private/secret.yaml` is outside."""
    proj = tmp_path / "proj"
    (proj / "c.yaml").symlink_to(outside)
    serve = proj / "serve.sh"
    serve.write_text("vllm serve m --config c.yaml\n")
    outputs = check_all_formats(str(serve))
    _no_leak(outputs)
    assert "not read: it lies outside the folder tree" in outputs["concise"][1]


def test_a_model_folder_anywhere_is_read_for_facts_only(tmp_path):
    model = tmp_path / "elsewhere" / "model"
    model.mkdir(parents=True)
    (model / "config.json").write_text('{"architectures": ["LlamaForCausalLM"], "hidden_size": "hunter2"}')
    (tmp_path / "proj").mkdir()
    serve = tmp_path / "proj" / "serve.sh"
    serve.write_text(f"vllm serve {model}\n")
    for fmt in FORMATS:
        code, text = check_all_formats(str(serve))[fmt]
        assert code == 2 and "hunter2" not in text
        assert "config.json unusable: unexpected value (ValueError" in text or fmt != "concise"
    other = tmp_path / "elsewhere" / "other"  # (config.json is read once per path in a process)
    other.mkdir()
    (other / "config.json").write_text('{"architectures": ["LlamaForCausalLM"], "api_token": "hunter2", ')
    serve.write_text(f"vllm serve {other}\n")
    code, _doc, err = check(str(serve))
    assert code == 2 and "not valid JSON (Expecting property name" in err and "hunter2" not in err


def test_an_ignore_in_a_named_config_quotes_no_code(tmp_path):
    (tmp_path / "c.yaml").write_text("bogus_key: 1  # vllm-preflight: ignore[hunter2]\n")
    serve = tmp_path / "serve.sh"
    serve.write_text("vllm serve Qwen/Qwen3-0.6B --config c.yaml\n")
    _code, doc, _err = check(str(serve))
    [msg] = [f["message"] for f in doc["results"][0]["findings"] if f["rule"] == "VP391"]
    assert msg.startswith("an unknown rule code in ignore") and "hunter2" not in json.dumps(doc)
