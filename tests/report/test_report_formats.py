"""Every `--format` of `check` on the same inputs: what each line says, and that each format
is valid for its consumer (SARIF against the vendored 2.1.0 schema, JUnit as XML)."""
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from cli_support import CONTINUATION, DUPLICATE, REFUSES, ROOT, run_check

SARIF_SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
CONCISE_LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|info) "
                          r"(?P<rule>VP\d{3}) (?P<msg>.+)$")


@pytest.fixture
def three(work):
    """A refusal (VP201 + VP300, errors), a duplicate option (VP108, info), a comment after a
    continuation (VP101, warning)."""
    return [work("refuse.sh", REFUSES), work("dup.sh", DUPLICATE), work("cont.sh", CONTINUATION)]


def test_concise_is_one_problem_matcher_line_per_finding(three):
    r = run_check("--format", "concise", *three)
    assert r.code == 1
    *lines, last = r.out.splitlines()
    parsed = [CONCISE_LINE.match(line).groupdict() for line in lines]
    got = {(p["file"], p["line"], p["col"], p["sev"], p["rule"]) for p in parsed}
    assert got == {("refuse.sh", "1", "28", "error", "VP201"), ("refuse.sh", "1", "1", "error", "VP300"),
                   ("dup.sh", "1", "28", "info", "VP108"), ("cont.sh", "2", "1", "warning", "VP101")}
    assert last == "4 findings in 3 servers (2 errors, 1 warning, 1 info)"
    refusal = next(p for p in parsed if p["rule"] == "VP300")
    assert "would refuse to start" in refusal["msg"] and "--no-such-flag" in refusal["msg"]


def test_concise_escapes_control_characters_json_keeps_them(work):
    work("esc.sh", "vllm serve Qwen/Qwen3-0.6B '--bad\x1b[2Jflag'\n")
    r = run_check("--format", "concise", "esc.sh")
    assert "\x1b" not in r.out and "--bad\\x1b[2Jflag" in r.out
    doc = json.loads(run_check("--format", "json", "esc.sh").out)
    messages = [f["message"] for f in doc["results"][0]["findings"]]
    assert any("--bad\x1b[2Jflag" in m for m in messages)


def test_json_has_findings_per_result_skipped_files_and_a_summary(three, work):
    work("folder/unrelated.sh", "echo hello\n")
    work("folder/serve.sh", DUPLICATE)
    r = run_check("--format", "json", *three, "folder")
    doc = json.loads(r.out)
    assert doc["format_version"] == 1
    assert {res["source"]: sorted(f["rule"] for f in res["findings"]) for res in doc["results"]} == {
        "refuse.sh": ["VP201", "VP300"], "dup.sh": ["VP108"], "cont.sh": ["VP101"],
        str(Path("folder") / "serve.sh"): ["VP108"]}
    for res in doc["results"]:
        for f in res["findings"]:
            assert set(f) == {"rule", "severity", "message", "location"}
    assert doc["skipped"] == [{"path": str(Path("folder") / "unrelated.sh"), "reason": "holds no vLLM server"}]
    assert doc["summary"] == {"deployments": 4, "refused": 1,
                              "findings": {"error": 2, "warning": 1, "info": 2},
                              "ignored": 0, "skipped": 1, "input_errors": 0, "fail_on": "error",
                              "exit_code": 1}
    assert r.code == doc["summary"]["exit_code"]


def test_json_summary_follows_fail_on(three):
    r = run_check("--format", "json", "--fail-on", "never", *three)
    assert r.code == 0
    assert json.loads(r.out)["summary"]["exit_code"] == 0


def test_sarif_is_valid_2_1_0_with_rules_and_physical_locations(three, work):
    work("with space.sh", DUPLICATE)
    r = run_check("--format", "sarif", *three, "with space.sh", "missing.sh")
    assert r.code == 2  # missing.sh cannot be read
    doc = json.loads(r.out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(doc)
    (run,) = doc["runs"]
    rules = run["tool"]["driver"]["rules"]
    from vllm_preflight.findings import RULES

    assert [x["id"] for x in rules][:len(RULES)] == list(RULES)
    by_rule = {}
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        by_rule.setdefault(res["ruleId"], []).append(res)
    assert {k: len(v) for k, v in by_rule.items()} == {"VP201": 1, "VP300": 1, "VP108": 2, "VP101": 1}
    vp201 = by_rule["VP201"][0]
    assert vp201["level"] == "error"
    # refuse.sh: `vllm serve Qwen/Qwen3-0.6B --no-such-flag`; the region is the flag's word
    assert vp201["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "refuse.sh", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 1, "startColumn": 28, "endLine": 1, "endColumn": 28 + len("--no-such-flag")}}
    assert by_rule["VP101"][0]["level"] == "warning" and by_rule["VP108"][0]["level"] == "note"
    uris = {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for x in by_rule["VP108"]}
    assert uris == {"dup.sh", "with%20space.sh"}
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert run["invocations"][0]["executionSuccessful"] is False
    assert note["level"] == "error" and "cannot read" in note["message"]["text"]
    assert rules[[x["id"] for x in rules].index("VP101")]["defaultConfiguration"]["level"] == "warning"
    # what GitHub code scanning reads
    assert run["tool"]["driver"]["informationUri"].startswith("https://")
    assert run["automationDetails"]["id"] == "vllm-preflight/"
    assert "%SRCROOT%" in run["originalUriBaseIds"]
    for rule in rules[:len(RULES)]:
        assert rule["helpUri"].endswith("docs/rules.md#" + rule["id"].lower())
        assert rule["id"] in rule["help"]["markdown"] and rule["help"]["text"]
    marks = [x["partialFingerprints"]["vllmPreflightFinding/v1"] for x in run["results"]]
    assert len(set(marks)) == len(marks)


def test_sarif_fingerprints_survive_moved_lines_and_absolute_paths_inside_are_relative(work):
    work("a.sh", REFUSES)
    first = json.loads(run_check("--format", "sarif", "a.sh").out)["runs"][0]["results"]
    work("a.sh", "# a comment line added above\n\n" + REFUSES)
    moved = json.loads(run_check("--format", "sarif", str(Path("a.sh").resolve())).out)["runs"][0]["results"]
    assert [x["locations"][0]["physicalLocation"]["region"]["startLine"] for x in moved] == [3, 3]
    assert [x["locations"][0]["physicalLocation"]["artifactLocation"] for x in moved] == \
        [{"uri": "a.sh", "uriBaseId": "%SRCROOT%"}] * 2
    assert [x["partialFingerprints"] for x in first] == [x["partialFingerprints"] for x in moved]


def test_sarif_without_findings_is_valid(work):
    work("clean.sh", "vllm serve Qwen/Qwen3-0.6B\n")
    r = run_check("--format", "sarif", "clean.sh")
    doc = json.loads(r.out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(doc)
    assert doc["runs"][0]["results"] == [] and r.code == 0


def test_the_vendored_schema_rejects_a_broken_log():
    """The schema is strict enough to catch what GitHub would reject (guards against a schema
    that accepts anything)."""
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SARIF_SCHEMA).validate(
            {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                           "results": [{"message": {"text": "m"}, "level": "fatal"}]}]})


def test_github_annotations_on_the_right_lines(three):
    r = run_check("--format", "github", *three)
    assert r.code == 1
    lines = r.out.splitlines()
    assert lines[0] == "::error file=refuse.sh,line=1,col=28,title=VP201::`--no-such-flag` is not an option of vLLM 0.33.0"
    assert lines[1].startswith("::error file=refuse.sh,line=1,col=1,title=VP300::vLLM 0.33.0 would refuse to start")
    assert "--no-such-flag" in lines[1]
    assert lines[2].startswith("::notice file=dup.sh,line=1,col=28,title=VP108::`--max-model-len` is given more")
    assert lines[3].startswith("::warning file=cont.sh,line=2,col=1,title=VP101::this comment follows")


def test_github_escaping():
    from vllm_preflight.report.github import command
    from vllm_preflight.safe_text import github_data, github_property

    # a newline stays a line (%0A); a CR is a control character, shown as an escape
    assert github_data("100% a\r\nb") == "100%25 a\\r%0Ab"
    assert github_property("a:b,c%") == "a%3Ab%2Cc%25"
    line = command("warning", "two\nlines: 50%", "dir,x/a:b.sh", 3, 4, "VP103")
    assert line == "::warning file=dir%2Cx/a%3Ab.sh,line=3,col=4,title=VP103::two%0Alines: 50%25"
    # an escape sequence from the input is shown, never sent to the runner's log raw
    assert command("error", "a\x1b[2Jb", "f", 1, 1, "VP201") == "::error file=f,line=1,col=1,title=VP201::a\\x1b[2Jb"


def test_github_reports_unreadable_input_as_an_error_annotation(work):
    r = run_check("--format", "github", "missing.sh")
    assert r.code == 2
    assert r.out.startswith("::error file=missing.sh,line=1,col=1,title=input error::cannot read")


def test_junit_one_case_per_server_failures_at_fail_on(three):
    r = run_check("--format", "junit", *three)
    root = ET.fromstring(r.out)
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "0")
    cases = {c.get("classname"): c for c in suite.findall("testcase")}
    assert set(cases) == {"refuse.sh", "dup.sh", "cont.sh"}
    failure = cases["refuse.sh"].find("failure")
    assert failure.get("type") in ("VP201", "VP300") and "VP300" in failure.text and "VP201" in failure.text
    assert cases["dup.sh"].find("failure") is None and "VP108" in cases["dup.sh"].find("system-out").text
    stricter = ET.fromstring(run_check("--format", "junit", "--fail-on", "info", *three).out).find("testsuite")
    assert stricter.get("failures") == "3"
    # `time`: seconds per case (to the millisecond: a refusal may take less), the suite and the run their sum
    times = [float(c.get("time")) for c in suite.findall("testcase")]
    assert all(t >= 0 for t in times) and sum(times) > 0
    assert float(suite.get("time")) == float(root.get("time")) == pytest.approx(sum(times), abs=0.01)


def test_junit_stays_xml_with_control_characters_and_unreadable_input(work):
    work("esc.sh", "vllm serve Qwen/Qwen3-0.6B '--bad\x1b[2Jflag'\n")
    r = run_check("--format", "junit", "esc.sh", "missing.sh")
    suite = ET.fromstring(r.out).find("testsuite")  # parses: no raw control character
    assert suite.get("errors") == "1" and "\\x1b" in r.out
    assert suite.find("testcase/error").get("type") == "input"


def test_machine_formats_do_not_import_rich():
    """`check --format json|concise|sarif|github|junit` stays off rich (the text report's cost)."""
    code = (
        "import sys\n"
        "from vllm_preflight.cli import cli\n"
        "for fmt in ('json', 'concise', 'sarif', 'github', 'junit'):\n"
        "    try:\n"
        "        cli(['check', '--format', fmt, 'examples/deepep-ht-dp8.sh'], standalone_mode=False)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(sorted(m for m in sys.modules if m == 'rich' or m.startswith('rich.')))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr


def test_large_json_reports_are_the_same_json_one_result_per_line():
    from vllm_preflight.api import Report
    from vllm_preflight.model import Resolution
    from vllm_preflight.report.json_report import PRETTY_UP_TO, as_dict, render_json

    report = Report(results=[Resolution(f"s{i}.sh", "release", "0.33.0", {"k": [i, "x\n"]}, None)
                             for i in range(PRETTY_UP_TO + 1)], skipped=["a.sh"])
    text = render_json(report)
    assert json.loads(text) == as_dict(report)
    assert len(text.splitlines()) == PRETTY_UP_TO + 1 + 6


def test_a_server_given_after_dashes_is_placed_at_command_line(work):
    r = run_check("--format", "concise", "--", "vllm", "serve", "Qwen/Qwen3-0.6B", "--no-such-flag")
    assert r.code == 1
    assert r.out.splitlines()[0].startswith("<command line>:1:1: error VP201 `--no-such-flag`")
    doc = json.loads(run_check("--format", "sarif", "--", "vllm", "serve", "Qwen/Qwen3-0.6B", "--no-such-flag").out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(doc)


def test_every_machine_format_on_the_bundled_examples(monkeypatch):
    """Real hazard findings (long messages, several servers per manifest) in every format."""
    monkeypatch.chdir(ROOT)
    sarif = json.loads(run_check("--format", "sarif", "examples").out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    rules = {x["ruleId"] for x in sarif["runs"][0]["results"]}
    assert "VP301" in rules  # examples/verify-deepep-ht-mode-none-full.sh: verify fails it
    concise = run_check("--format", "concise", "examples")
    assert concise.code == 1
    *lines, _last = concise.out.splitlines()
    assert lines and all(CONCISE_LINE.match(line) for line in lines)
    github = run_check("--format", "github", "examples").out.splitlines()
    assert len(github) == len(lines)
    assert all(re.match(r"^::(error|warning|notice) file=[^,]+,line=\d+,col=\d+,title=VP\d{3}(?: · [^:]+)?::", g) for g in github)
    suite = ET.fromstring(run_check("--format", "junit", "examples").out).find("testsuite")
    assert int(suite.get("tests")) == len(json.loads(run_check("--format", "json", "examples").out)["results"])


def test_sarif_region_ends_where_the_word_ends():
    from vllm_preflight.report.sarif import _Words

    words = _Words()
    words.lines["f"] = ['args: ["--a", "b c"]', "  - --tp=2, x", "vllm serve m --x 1"]
    assert words.end("f", 1, 8) == 8 + len('"--a"')  # a quoted word, its quotes included
    assert words.end("f", 1, 15) == 15 + len('"b c"')
    assert words.end("f", 2, 5) == 5 + len("--tp=2")  # the separator left out
    assert words.end("f", 3, 14) == 14 + len("--x")
    assert words.end("f", 3, 4) == 5  # `l` of vllm: to the word's end
    assert words.end("f", 4, 1) is None and words.end("f", 3, 5) is None  # no line; a space
