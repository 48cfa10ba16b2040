"""Output that cannot be hijacked, and results that do not depend on where the tool runs (issue 11)."""
from __future__ import annotations

import json

from hsupport import ROOT, check

from vllm_preflight.load.bind import assume_hint

ESC = "\x1b[2J\x1b[H"


def test_escape_sequences_in_file_names_never_reach_stderr(tmp_path):
    p = tmp_path / f"a{ESC}.sh"
    p.write_text("echo no server here\n")
    code, _doc, err = check(str(p))
    assert code == 2
    assert "\x1b" not in err and "\\x1b[2J\\x1b[H" in err


def test_escape_sequences_in_content_never_reach_stderr(tmp_path):
    p = tmp_path / "a.sh"
    p.write_text(f"vllm serve m 'unterminated{ESC}\n")
    code, _doc, err = check(str(p))
    assert code == 2 and "\x1b" not in err


def test_json_keeps_the_exact_text(tmp_path):
    p = tmp_path / "a.sh"
    p.write_text(f"vllm serve m --x{ESC}\n")
    _code, doc, _err = check(str(p))
    assert any(ESC in f["message"] for f in doc["results"][0]["findings"])  # JSON: exact, escaped by JSON itself


def test_assume_hint_is_shell_quoted_and_only_for_pinnable_names():
    assert assume_hint("DP") == "--assume DP=VALUE"
    assert assume_hint("model.is_moe", "true") == "--assume model.is_moe=true"
    assert assume_hint("EXTRA", "...") == "--assume EXTRA=..."
    assert assume_hint("EXTRA", "a b") == "--assume 'EXTRA=a b'"
    for name in ("`touch /tmp/x; echo 2`", "$(nproc)", "A;B", "1X", ""):
        assert assume_hint(name) is None


def test_no_hint_pastes_a_command_from_the_input(tmp_path):
    p = tmp_path / "a.sh"
    p.write_text("vllm serve m -tp ${`touch x; echo 2`}\nvllm serve m -tp $(nproc)\n")
    _code, doc, _err = check(str(p))
    text = json.dumps(doc)
    assert "--assume `touch" not in text and "--assume $(nproc)" not in text
    assert "--assume cannot pin it" in text


def test_a_relative_model_path_is_read_next_to_the_input_not_the_working_directory(tmp_path, monkeypatch):
    """The same command gave NONE from / and FULL_AND_PIECEWISE from a folder that held
    deepseek-ai/DeepSeek-V3/config.json."""
    decoy = tmp_path / "cwd" / "deepseek-ai" / "DeepSeek-V3"
    decoy.mkdir(parents=True)
    (decoy / "config.json").write_text('{"architectures": ["LlamaForCausalLM"]}')
    example = ROOT / "examples" / "deepep-ht-dp8.sh"
    outcomes = []
    for where in (tmp_path / "cwd", ROOT):
        monkeypatch.chdir(where)
        _code, doc, _err = check(str(example))
        res = doc["results"][0]
        outcomes.append(res["resolved"]["compilation_config"]["cudagraph_mode"])
        assert any(a["fact"] == "model" and "table of well-known" in a["source"] for a in res["assumptions"])
    assert outcomes == ["NONE", "NONE"]


def test_where_the_model_facts_came_from_is_always_said(tmp_path, monkeypatch):
    model = tmp_path / "deploy" / "models" / "tiny"
    model.mkdir(parents=True)
    (model / "config.json").write_text('{"architectures": ["LlamaForCausalLM"], "hidden_size": 64}')
    script = tmp_path / "deploy" / "serve.sh"
    script.write_text("vllm serve models/tiny\n")
    monkeypatch.chdir(ROOT)  # elsewhere: the model is still found next to the script
    _code, doc, _err = check(str(script))
    [a] = [a for a in doc["results"][0]["assumptions"] if a["fact"] == "model"]
    assert a["value"] == "models/tiny" and str(model / "config.json") in a["source"]


def test_text_and_github_outputs_show_escapes_not_obey_them(tmp_path):
    from click.testing import CliRunner

    from vllm_preflight.cli import cli

    p = tmp_path / f"b{ESC}.sh"
    p.write_text(f"vllm serve m --x{ESC}\n")
    for fmt in ("text", "github", "concise"):
        r = CliRunner().invoke(cli, ["check", "--format", fmt, str(p)])
        assert r.exit_code in (0, 1), (fmt, r.output)
        assert "\x1b" not in r.output, fmt
        assert "\\x1b" in r.output, fmt
