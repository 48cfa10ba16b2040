"""One hostile corpus through every format of every command (issue 25): file names, flag texts,
model names and verify records holding terminal escapes, HTML, Markdown links, spreadsheet
formulas, bidi controls, NUL, non-UTF-8 bytes and workflow commands are shown, never obeyed."""
from __future__ import annotations

import json
import shutil

import pytest
from hostile import (
    GITHUB_LINE,
    TEXTS,
    assert_csv,
    assert_github,
    assert_html,
    assert_json_ascii,
    assert_markdown,
    assert_no_command_lines,
    assert_no_raw_controls,
    assert_xml,
    file_names,
    invoke,
    write_inputs,
)

CHECK_FORMATS = ("text", "concise", "json", "sarif", "github", "junit")
MATRIX_FORMATS = ("text", "markdown", "html", "csv", "json")
MISSING = "missing\x1b[2J\x1b]0;pwned\x07.sh"
STRUCTURE = {"github": assert_github, "junit": assert_xml, "csv": assert_csv, "html": assert_html,
             "markdown": assert_markdown, "json": assert_json_ascii, "sarif": assert_json_ascii}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    return folder, sorted(write_inputs(folder))


def _safe(fmt: str, out: str, err: str, *, github: bool = False) -> None:
    for name, text in (("stdout", out), ("stderr", err)):
        assert_no_raw_controls(text, f"{fmt} {name}")
        assert_no_command_lines(text, f"{fmt} {name}", GITHUB_LINE if github and name == "stdout" else None)
    if fmt in STRUCTURE:
        STRUCTURE[fmt](out)


def test_the_corpus_reaches_the_file_system(corpus):
    folder, names = corpus
    assert len(set(names)) == len(TEXTS) >= 25
    on_disk = {p.name.encode("utf-8", "surrogateescape") for p in folder.iterdir()}
    assert b"bad\xffname.sh" in on_disk and b"\x1b[2J\x1b[H.sh" in on_disk


@pytest.mark.parametrize("fmt", CHECK_FORMATS)
def test_check_every_format(corpus, fmt):
    folder, names = corpus
    code, out, err = invoke(["check", "--format", fmt, *names, MISSING], cwd=folder)
    assert code == 2, err  # the missing file; every other input is still reported
    assert out.strip()
    _safe(fmt, out, err, github=fmt == "github")
    assert "cannot read" in err and "\\x1b[2J" in err


def test_check_json_keeps_the_exact_text(corpus):
    folder, names = corpus
    _code, out, _err = invoke(["check", "--format", "json", *names], cwd=folder)
    doc = json.loads(out)
    sources = {r["source"] for r in doc["results"]}
    assert set(names) <= sources  # every input checked, the non-UTF-8 name included
    messages = " ".join(f["message"] for r in doc["results"] for f in r["findings"])
    for key in ("clear-screen", "window-title", "html-img", "formula-eq", "bidi-isolate"):
        assert "--x" + TEXTS[key] in messages, key


def test_sarif_names_a_non_utf8_file_by_its_bytes(corpus):
    folder, names = corpus
    bad = next(n for n in names if "\udcff" in n)
    code, out, _err = invoke(["check", "--format", "sarif", bad], cwd=folder)
    assert code == 1  # vLLM refuses the unknown flag: a finding, not exit 3 with nothing printed
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for res in json.loads(out)["runs"][0]["results"] for loc in res["locations"]}
    assert uris == {"bad%FFname.sh"}


@pytest.mark.parametrize("fmt", MATRIX_FORMATS)
def test_matrix_every_format(corpus, fmt):
    folder, names = corpus
    code, out, err = invoke(["matrix", "--vllm-version", "0.12.0,0.33.0", "--format", fmt, *names, MISSING],
                            cwd=folder)
    assert code == 2, err
    assert out.strip()
    _safe(fmt, out, err)
    if fmt == "text":  # rich shows markup and emoji codes as written
        assert "[bold red]loud[∕]" in out and ":warning: :red_circle:" in out


@pytest.mark.parametrize("fmt", MATRIX_FORMATS)
def test_matrix_notes_of_vs_and_advise(corpus, fmt):
    folder, _names = corpus
    name = file_names()["markdown-code"]  # backticks that would close a Markdown fence
    for extra in (["--vs", "0.12.0", "0.33.0"], ["--advise", "--vllm-version", "0.33.0"]):
        code, out, err = invoke(["matrix", *extra, "--format", fmt, name], cwd=folder)
        assert code == 0, err
        _safe(fmt, out, err)


@pytest.fixture(scope="module")
def covering_records(corpus, tmp_path_factory):
    """Records whose every shown field is hostile, covering the rows of one input."""
    folder, _names = corpus
    name = file_names()["html-img"]
    _code, out, _err = invoke(["matrix", "--vllm-version", "0.33.0", "--format", "json", name], cwd=folder)
    from vllm_preflight.verify.record import digest

    row = json.loads(out)["rows"][0]
    records = tmp_path_factory.mktemp("records")
    for i, text in enumerate(TEXTS.values()):
        rec = {"schema": "vllm-preflight/verify-record/1", "date": text[:10],
               "input": {"source": text, "target": "release", "vllm_version": row["vllm_version"],
                         "resolved_digest": digest(row["resolved"])},
               "environment": {"device": text, "torch": text, "deep_ep": {"installed": True, "version": text}},
               "tier": text, "outcome": {"status": text}}
        (records / f"r{i:02d}.json").write_text(json.dumps(rec))
    return folder, name, records


@pytest.mark.parametrize("fmt", MATRIX_FORMATS)
def test_matrix_records_every_format(covering_records, fmt):
    folder, name, records = covering_records
    code, out, err = invoke(["matrix", "--vllm-version", "0.33.0", "--records", str(records), "--format", fmt, name],
                            cwd=folder)
    assert code == 0, err
    _safe(fmt, out, err)
    if fmt in ("text", "markdown", "html"):  # the tables with a "hardware record" column
        assert "\\x00" in out and "\\x1b" in out  # the records' text is there, escaped


def test_usage_errors_quote_input_visibly(corpus):
    folder, _names = corpus
    bad = TEXTS["clear-screen"] + TEXTS["window-title"] + TEXTS["bidi-override"]
    for argv in (["check", "--vllm-version", bad, "x.sh"], ["check", "--format", bad, "x.sh"],
                 ["check", "--no-such" + bad, "x.sh"], ["check", "--env", bad, "x.sh"],
                 ["matrix", "--axes", bad], ["matrix", "--where", bad, "--axes", "dp"],
                 ["matrix", "--vllm-version", bad], ["matrix", "--max-cells", bad],
                 ["explain", bad], ["schema", "--vllm-version", bad], ["no-such-command" + bad]):
        code, out, err = invoke(argv, cwd=folder)
        assert code == 2, (argv, err)
        _safe("usage", out, err)
        assert "\\x1b" in err, (argv, err)


def test_rules_and_explain(corpus):
    folder, _names = corpus
    for argv in (["rules"], ["rules", "--format", "markdown"], ["explain", "VP301"]):
        code, out, err = invoke(argv, cwd=folder)
        assert code == 0
        _safe("text", out, err)


def test_a_folder_of_hostile_names(corpus, tmp_path):
    folder, names = corpus
    walked = tmp_path / "walked"
    walked.mkdir()
    for n in names:
        shutil.copy(folder / n, walked / n)
    for fmt in CHECK_FORMATS:
        code, out, err = invoke(["check", "--format", fmt, "walked"], cwd=tmp_path)
        assert code == 1, err
        _safe(fmt, out, err, github=fmt == "github")
