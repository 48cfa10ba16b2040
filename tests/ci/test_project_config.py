"""`check`'s options as ruff users expect them: a configuration key for every option, rule
selection by code or prefix, per-rule severity, --output-file, --statistics, --color, and the
help and the README telling the same."""
from __future__ import annotations

import json
import re
import sys

import click
import pytest

from cli_support import CLEAN, CONTINUATION, DUPLICATE, REFUSES, ROOT, run_check


def _check_command():
    from vllm_preflight.cli import check

    return check


def test_every_option_of_check_has_a_config_key_or_a_reason_not_to():
    from vllm_preflight import project

    options = [p for p in _check_command().params if isinstance(p, click.Option)]
    names = {p.name for p in options} | {"help"}
    assert names == set(project.OPTION_KEYS) | set(project.CLI_ONLY), \
        "a new option of `check` needs a key in project.OPTION_KEYS (or a reason in CLI_ONLY)"
    assert not set(project.OPTION_KEYS) & set(project.CLI_ONLY)
    for reason in project.CLI_ONLY.values():
        assert len(reason) > 10
    for p in options:  # the key is the long option's name, and the configuration knows it
        key = project.OPTION_KEYS[p.name]
        assert f"--{key}" in p.opts, (p.name, key)
        assert key in project.known_keys()
        if isinstance(p.type, click.Choice):
            assert tuple(p.type.choices) == project.CHOICES[key]


def _write_config(work, body: str) -> None:
    work("pyproject.toml", "[tool.vllm-preflight]\n" + body)


# every key, each with what it changes (the option's own behaviour is tested with the option)
KEY_CASES = {
    "vllm-version": ('vllm-version = "0.13.0"', ["--format", "json"], lambda r: '"vllm_version": "0.13.0"' in r.out),
    "target": ('target = "pr29558"', ["--format", "json"], lambda r: '"target": "pr29558"' in r.out),
    # B200's memory gives capture sizes past H200's 512 (the default GPU's largest)
    "gpu": ('gpu = "B200"', ["--format", "json"], lambda r: "\n            528," in r.out),
    # SM 12.0 has no FlashAttention full-graph support: the runtime's support changes
    "gpu-cc": ('gpu-cc = "12.0"', ["--format", "json"], lambda r: '"support": "UNIFORM_BATCH"' in r.out),
    # the key's environment is the deployment's, as a K=V word is (issue 24): 0.33.0 ignores the
    # variable, VP306, exactly as for `VLLM_ALL2ALL_BACKEND=naive vllm serve ...` in the file
    "env": ('env = {VLLM_ALL2ALL_BACKEND = "naive"}', ["--format", "concise"], lambda r: "VP306" in r.out),
    "assume": ('assume = ["model.is_moe=true"]', ["--format", "json"], lambda r: "is_moe" in r.out),
    "input-format": ('input-format = "kubernetes"', [], lambda r: r.code == 2),  # a shell file read as YAML
    "format": ('format = "concise"', [], lambda r: r.out.strip().endswith("in 1 server (1 info)")),
    "fail-on": ('fail-on = "info"', [], lambda r: r.code == 1),
    "offline": ("offline = true", [], lambda r: r.code == 0),
    "verbose": ("verbose = true", ["--format", "text"], lambda r: "--verbose shows every default" not in r.out),
    "allow-path": ('allow-path = ["."]', [], lambda r: r.code == 0),
    "skip-non-deployments": ("skip-non-deployments = true", ["values.yaml"], lambda r: r.code == 0),
    "select": ('select = ["VP2"]', ["--format", "concise"], lambda r: "VP108" not in r.out),
    "extend-select": ('select = ["VP2"]\nextend-select = ["VP10"]', ["--format", "concise"],
                      lambda r: "VP108" in r.out),
    "ignore": ('ignore = ["VP1"]', ["--format", "concise"], lambda r: "VP108" not in r.out and "1 ignored" in r.out),
    "output-file": ('output-file = "out.txt"', ["--format", "concise"], lambda r: r.out == ""),
    "statistics": ("statistics = true", ["--format", "text"], lambda r: re.search(r"^\s+1  VP108  info", r.out, re.M)),
    "color": ('color = "always"', ["--format", "text"], lambda r: "\x1b[" in r.out),
    # nothing in dup.sh says a role: the key alone makes its server a prefill pool, said as from --role
    "role": ('role = "prefill"', ["--format", "json"], lambda r: '"role": "prefill"' in r.out),
}


def test_the_key_cases_cover_every_key():
    from vllm_preflight import project

    assert set(KEY_CASES) == set(project.OPTION_KEYS.values())


@pytest.mark.parametrize("key", sorted(KEY_CASES))
def test_each_config_key_sets_its_option(work, key):
    body, args, holds = KEY_CASES[key]
    _write_config(work, body + "\n")
    work("dup.sh", DUPLICATE)  # VP108 (info)
    work("values.yaml", "replicas: 3\n")
    files = [a for a in args if not a.startswith("-") and a not in ("json", "text", "concise")]
    r = run_check(*[a for a in args if a not in files], *(files or ["dup.sh"]))
    assert holds(r), (key, r.code, r.out[-1500:], r.err)


def test_the_command_line_wins_over_the_configuration(work):
    _write_config(work, 'fail-on = "info"\nformat = "json"\nselect = ["VP2"]\n')
    work("dup.sh", DUPLICATE)
    assert run_check("dup.sh").out.startswith("{")  # format = "json"; VP108 is not a VP2 rule: exit 0
    r = run_check("--fail-on", "never", "--format", "concise", "--select", "VP1", "dup.sh")
    assert r.code == 0 and "VP108" in r.out and not r.out.startswith("{")


def test_select_ignore_and_extend_select_take_codes_and_prefixes(work):
    work("refuse.sh", REFUSES)  # VP201, VP300
    work("dup.sh", DUPLICATE)  # VP108
    work("cont.sh", CONTINUATION)  # VP101

    def rules(*args):
        r = run_check("--format", "concise", "--fail-on", "never", *args, "refuse.sh", "dup.sh", "cont.sh")
        return {m for m in re.findall(r" (VP\d{3}) ", r.out)}

    assert rules() == {"VP201", "VP300", "VP108", "VP101"}
    assert rules("--select", "VP10") == {"VP108", "VP101", "VP300"}  # VP300 always
    assert rules("--select", "VP108,VP201") == {"VP108", "VP201", "VP300"}
    assert rules("--select", "VP108", "--select", "VP101") == {"VP108", "VP101", "VP300"}
    assert rules("--select", "VP2", "--extend-select", "VP101") == {"VP201", "VP300", "VP101"}
    assert rules("--ignore", "VP1") == {"VP201", "VP300"}
    assert rules("--ignore", "VP3") == {"VP201", "VP300", "VP108", "VP101"}  # VP300 cannot be ignored
    assert rules("--select", "ALL", "--ignore", "VP108") == {"VP201", "VP300", "VP101"}


def test_a_rule_not_selected_is_not_counted_and_its_inline_ignore_is_not_unused(work):
    work("dup.sh", DUPLICATE.rstrip("\n") + "  # vllm-preflight: ignore[VP108]\n")
    work("dup2.sh", DUPLICATE)
    r = run_check("--format", "concise", "--select", "VP2,VP390", "dup.sh", "dup2.sh")
    assert r.out.strip() == "no findings in 2 servers; 1 ignored"  # the inline ignore's; dup2's VP108 not selected
    r = run_check("--format", "concise", "--ignore", "VP108", "dup2.sh")
    assert r.out.strip() == "no findings in 1 server; 1 ignored"  # --ignore counts as the config's ignore


def test_an_unknown_rule_or_prefix_is_a_usage_error(work):
    work("dup.sh", DUPLICATE)
    r = run_check("--select", "VP9", "dup.sh")
    assert r.code == 2 and "--select names 'VP9', which is no rule code or prefix" in r.err
    r = run_check("--ignore", "VP108,VP300", "dup.sh")
    assert r.code == 2 and "--ignore names VP300, which cannot be ignored" in r.err
    _write_config(work, 'extend-select = ["XX"]\n')
    r = run_check("dup.sh")
    assert r.code == 2 and "pyproject.toml: extend-select names 'XX'" in r.err


def test_per_rule_severity_changes_every_format_and_the_exit_code(work):
    _write_config(work, '[tool.vllm-preflight.severity]\nVP108 = "error"\n"VP1" = "info"\n')
    work("dup.sh", DUPLICATE)  # VP108: info by default
    work("cont.sh", CONTINUATION)  # VP101: warning by default
    r = run_check("--format", "json", "dup.sh", "cont.sh")
    found = {f["rule"]: f["severity"] for res in json.loads(r.out)["results"] for f in res["findings"]}
    assert found == {"VP108": "error", "VP101": "info"}  # the longest prefix wins
    assert r.code == 1
    sarif = json.loads(run_check("--format", "sarif", "dup.sh").out)
    assert sarif["runs"][0]["results"][0]["level"] == "error"
    assert run_check("--format", "concise", "--fail-on", "warning", "cont.sh").code == 0  # VP101 now info


@pytest.mark.parametrize("body, says", [
    ('[tool.vllm-preflight.severity]\nVP300 = "info"\n', "VP300, which is always an error"),
    ('[tool.vllm-preflight.severity]\nVP108 = "fatal"\n', "severity VP108 takes error, warning or info"),
    ('[tool.vllm-preflight.severity]\nVP9 = "info"\n', "severity names 'VP9'"),
    ('fail-on = "sometimes"\n', "fail-on takes one of error, warning, info, never"),
    ('offline = "yes"\n', "offline takes true or false"),
    ("vllm-version = 0.20\n", "vllm-version takes a string in quotes"),
    ('env = "A=1"\n', "env takes a table of names to values"),
    ('no-such-key = 1\n', "unknown key 'no-such-key'"),
])
def test_a_bad_key_is_one_line_naming_the_file(work, body, says):
    _write_config(work, body)
    work("dup.sh", DUPLICATE)
    r = run_check("dup.sh")
    assert r.code == 2 and "pyproject.toml" in r.err and says in r.err, r.err
    assert "Traceback" not in r.err


def test_the_yaml_configuration_takes_the_same_keys(work):
    work(".vllm-preflight.yaml", "fail-on: info\ngpu-cc: 9.0\nselect: [VP1]\nseverity:\n  VP108: warning\n")
    work("dup.sh", DUPLICATE)
    r = run_check("--format", "concise", "dup.sh")
    assert r.code == 1 and ": warning VP108 " in r.out, r.out + r.err


def test_statistics_counts_per_rule(work):
    work("dup.sh", DUPLICATE)
    work("dup2.sh", DUPLICATE)
    work("refuse.sh", REFUSES)
    r = run_check("--statistics", "--format", "concise", "dup.sh", "dup2.sh", "refuse.sh")
    stats = [line.split() for line in r.err.splitlines() if re.match(r"^\s+\d+  VP", line)]
    assert stats[0][:3] == ["2", "VP108", "info"]
    assert sorted(s[1] for s in stats) == ["VP108", "VP201", "VP300"]
    assert "VP108" in r.out and "VP201" not in r.err.replace("VP201  error", "")  # report on stdout


def test_output_file_writes_the_report_and_formats_by_prefix(work, tmp_path):
    work("refuse.sh", REFUSES)
    r = run_check("--format", "github", "-o", "sarif:r.sarif", "-o", "json:r.json", "refuse.sh")
    assert r.code == 1 and r.out.startswith("::error ")  # annotations still on stdout
    assert json.loads((tmp_path / "r.sarif").read_text())["version"] == "2.1.0"
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["exit_code"] == 1
    r = run_check("--format", "concise", "--output-file", "report.txt", "refuse.sh")
    assert r.out == "" and "VP201" in (tmp_path / "report.txt").read_text()
    r = run_check("--output-file", "no/such/folder/x.txt", "refuse.sh")
    assert r.code == 2 and "--output-file no/such/folder/x.txt: cannot write" in r.err


def test_colour_is_forced_or_refused(work, monkeypatch):
    work("dup.sh", DUPLICATE)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert "\x1b[" not in run_check("dup.sh").out  # not a terminal
    assert "\x1b[" in run_check("--color", "always", "dup.sh").out
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in run_check("dup.sh").out
    assert "\x1b[" not in run_check("--color", "never", "dup.sh").out
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run_check("dup.sh").out  # NO_COLOR wins over FORCE_COLOR
    assert "\x1b[" in run_check("--color", "always", "dup.sh").out  # --color over both


def test_tool_options_after_dashes_get_a_hint():
    r = run_check("--", "vllm", "serve", "Qwen/Qwen3-0.6B", "--format", "json")
    assert r.code == 1
    assert "hint: --format after `--` is read as part of the vLLM command" in r.err
    assert "hint" not in run_check("--format", "json", "--", "vllm", "serve", "Qwen/Qwen3-0.6B").err
    assert "hint" not in run_check("--", "vllm", "serve", "Qwen/Qwen3-0.6B", "--max-model-len", "4096").err


def test_matrix_options_after_dashes_get_the_hint_too():
    from click.testing import CliRunner

    from vllm_preflight.cli import cli

    r = CliRunner().invoke(cli, ["matrix", "--vllm-version", "0.33.0", "--", "vllm", "serve", "Qwen/Qwen3-0.6B",
                                 "--format", "json", "--vs"])
    assert "hint: --format, --vs after `--` are read as part of the vLLM command" in r.output


def test_summaries_pluralise(work):
    work("refuse.sh", REFUSES)
    work("cont.sh", CONTINUATION)
    work("cont2.sh", CONTINUATION)
    last = run_check("--format", "concise", "refuse.sh", "cont.sh", "cont2.sh").out.strip().splitlines()[-1]
    assert last == "4 findings in 3 servers (2 errors, 2 warnings)"
    work("clean.sh", CLEAN)
    assert run_check("--format", "concise", "cont.sh").out.strip().endswith("(1 warning)")


def test_pyproject_is_read_on_python_3_10_with_tomli(work, monkeypatch):
    """3.10 has no tomllib: the tomli package (a dependency there) reads the table."""
    try:
        import tomllib as toml
    except ImportError:  # on 3.10 itself: the real tomli, the dependency
        import tomli as toml

    from vllm_preflight import project

    monkeypatch.setattr(sys, "version_info", (3, 10, 14, "final", 0))
    monkeypatch.setitem(sys.modules, "tomli", toml)  # the same API
    _write_config(work, 'fail-on = "info"\n')
    assert project.toml_module() is toml
    assert project.find().options == {"fail_on": "info"}
    monkeypatch.setitem(sys.modules, "tomli", None)  # not installed: one line saying what to do
    with pytest.raises(Exception, match="needs the tomli package"):
        project.find()


def test_tomli_is_a_dependency_before_3_11():
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'"tomli[^"]*; python_version < \'3\.11\'"', text)
    assert re.search(r'"pre-commit[^"]*"', text)


# --- the help and the README say the same -------------------------------------------------

def _readme_rows() -> dict[str, str]:
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("Options of `check`:"):readme.index("| `-` as FILE |")]
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `(--[a-z-]+)(?:[^|\\]|\\.)*\| (.*) \|$", table, re.M)}


def test_every_option_of_check_is_in_the_readme_and_back():
    rows = _readme_rows()
    longs = {o for p in _check_command().params for o in p.opts if o.startswith("--") and o != "--help"}
    assert set(rows) == longs


def test_help_and_readme_agree_on_verbose_and_the_gpu_list():
    from vllm_preflight.cli import VERBOSE_HELP
    from vllm_preflight.gpus import DEFAULT_GPU, GPUS

    rows = _readme_rows()
    names = ", ".join(f"{n} (default)" if n == DEFAULT_GPU else n for n in GPUS)
    assert rows["--gpu"].startswith(names + ":")
    gpu = next(p for p in _check_command().params if p.name == "gpu")
    assert names in gpu.help
    from vllm_preflight.matrix.command import matrix

    assert names in next(p for p in matrix.params if p.name == "gpu").help
    verbose = next(p for p in _check_command().params if p.name == "verbose")
    assert verbose.opts == ["--verbose", "-v"] or set(verbose.opts) | set(verbose.secondary_opts) >= {"-v"}
    assert "-v" in verbose.opts and "`--verbose`, `-v`" in (ROOT / "README.md").read_text()
    assert rows["--verbose"].lower().rstrip(".") == VERBOSE_HELP.lower().rstrip(".")


def test_a_pyproject_naming_the_table_only_after_a_hash_is_not_parsed():
    """A comment (or a string) naming [tool.vllm-preflight] is not the table: no TOML parser
    is needed for it; the table itself, also with a comment after it, is still read."""
    from vllm_preflight.project import _may_hold_table

    assert not _may_hold_table('deps = ["tomli"]  # [tool.vllm-preflight] in pyproject.toml\n')
    assert not _may_hold_table("# [tool.vllm-preflight]\n[tool.ruff]\nx = 1\n")
    assert _may_hold_table("[tool.vllm-preflight]  # ours\nfail-on = 'error'\n")
    assert _may_hold_table("[tool]\nvllm-preflight.fail-on = 'error'\n")
    assert _may_hold_table('[tool."vllm-preflight"]\n')
