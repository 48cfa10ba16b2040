"""The project configuration of `check`: a key for every option, rule selection, per-rule severity.

Read from the nearest `.vllm-preflight.yaml` (or `.yml`), or `pyproject.toml` holding a
`[tool.vllm-preflight]` table, from the current folder upward (in one folder the YAML file
wins), as `ignores` always found it. The ignore keys (`ignore`, `per-file-ignores`, ...) keep
their meaning and go to `ignores`; this module adds:

- one key per `check` option (`OPTION_KEYS`): the option's long name without `--`
  (`vllm-version = "0.13.0"`, `fail-on = "warning"`, `format = "concise"`, `offline = true`,
  `env = ["K=V"]` or `{K = "V"}`); an option given on the command line wins, and `--env` /
  `--assume` / `--extend-select` / `--ignore` / `--allow-path` add to the configuration's;
- `select` / `extend-select` (rule codes or prefixes, as ruff: `["VP3"]` keeps the hazard
  rules only; `ignore` takes prefixes too). A rule not selected is not reported and not counted;
  one ignored (`ignore`, `--ignore`) counts as ignored, as it always did;
- `[tool.vllm-preflight.severity]`: a rule code or prefix to `error`, `warning` or `info`
  (`VP302 = "info"`); the longest prefix wins. VP300 (vLLM refuses to start) stays an error
  and is always selected: vLLM still refuses.

Options that have no key are in `CLI_ONLY`, each with the reason.
"""
from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass, field

from vllm_preflight import ignores
from vllm_preflight.errors import UsageProblem

SEVERITIES = ("error", "warning", "info")
ALWAYS = "VP300"  # vLLM refuses to start: never deselected, never downgraded

# click parameter name of `check` -> its key in the configuration
OPTION_KEYS = {
    "vllm_version": "vllm-version", "target": "target", "gpu": "gpu", "gpu_cc": "gpu-cc", "env": "env",
    "assume": "assume", "input_format": "input-format", "fmt": "format", "fail_on": "fail-on",
    "offline": "offline", "verbose": "verbose", "allow_paths": "allow-path",
    "skip_non_deployments": "skip-non-deployments", "select": "select", "extend_select": "extend-select",
    "ignore": "ignore", "output_file": "output-file", "statistics": "statistics", "color": "color",
    "role": "role",
}
CLI_ONLY = {
    "help": "prints the help and exits; nothing to configure",
}
STRINGS = ("vllm-version", "gpu", "gpu-cc")
CHOICES = {  # as `check`'s click options (tests/ci/test_project_config.py compares them)
    "target": ("release", "pr29558"),
    "input-format": ("auto", "shell", "markdown", "vllm-config", "kubernetes", "compose", "preflight"),
    "format": ("text", "concise", "json", "sarif", "github", "junit"),
    "fail-on": ("error", "warning", "info", "never"),
    "color": ("auto", "always", "never"),
    "role": ("prefill", "decode", "both"),
}
FLAGS = ("offline", "verbose", "skip-non-deployments", "statistics")
PAIRS = ("env", "assume")
PATHS = ("output-file",)  # a string or a list of them
RULE_LISTS = ("select", "extend-select")  # `ignore` is ignores' key (prefixes expanded here first)
OWN_KEYS = (*STRINGS, *CHOICES, *FLAGS, *PAIRS, *PATHS, *RULE_LISTS, "severity")


@dataclass(frozen=True)
class Project:
    """The project configuration file found for an input."""

    path: str | None = None
    ignores: ignores.Config = field(default_factory=ignores.Config)
    options: dict = field(default_factory=dict)  # click parameter name -> value from the file
    select: tuple | None = None  # codes; None: every rule
    extend_select: tuple = ()
    severity: tuple = ()  # ((prefix, severity), ...), longest prefix first


# --- rule codes and prefixes ---------------------------------------------------------------

def expand(patterns, where: str) -> tuple[str, ...]:
    """Rule codes named by codes or prefixes (`VP3`, `VP30`, `ALL`), in the registry's order; a
    pattern that names no rule is a usage error saying `where`."""
    from vllm_preflight.findings import RULES

    out: list[str] = []
    for p in patterns:
        p = str(p).strip().upper()
        hit = list(RULES) if p == "ALL" else [c for c in RULES if c.startswith(p)] if p else []
        if not hit:
            raise UsageProblem(f"{where} names {p!r}, which is no rule code or prefix of one "
                               f"(`vllm-preflight rules` lists them)")
        out += [c for c in hit if c not in out]
    return tuple(out)


def _rule_list(path: str, key: str, value) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise UsageProblem(f"{path}: {key} takes a list of rule codes or prefixes, e.g. [\"VP3\"]")
    return expand(value, f"{path}: {key}")


# --- reading -------------------------------------------------------------------------------

_EXAMPLES = {"gpu": "H100", "gpu-cc": "9.0"}


def find(start: str | None = None) -> Project:
    """The nearest project configuration from `start` (the current folder) upward."""
    d = os.path.abspath(start or os.getcwd())
    while True:
        for name in (".vllm-preflight.yaml", ".vllm-preflight.yml"):
            path = os.path.join(d, name)
            if os.path.isfile(path):
                return from_table(path, _yaml(path), "the file")
        path = os.path.join(d, "pyproject.toml")
        if os.path.isfile(path):
            table = _pyproject(path)
            if table is not None:
                return from_table(path, table, "[tool.vllm-preflight]")
        parent = os.path.dirname(d)
        if parent == d:
            return Project()
        d = parent


def _yaml(path: str):
    import yaml

    try:
        data = yaml.safe_load(ignores.read_config_text(path))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise UsageProblem(f"{path}{where}: invalid YAML: {getattr(e, 'problem', None) or e}") from None
    return {} if data is None else data


def toml_module():
    """tomllib (Python 3.11+), else the tomli package (a dependency on 3.10)."""
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    try:
        import tomli
    except ImportError:
        raise UsageProblem("reading [tool.vllm-preflight] on Python 3.10 needs the tomli package "
                           "(a dependency of vllm-preflight: reinstall it), or use .vllm-preflight.yaml") from None
    return tomli


def _pyproject(path: str):
    text = ignores.read_config_text(path)
    # most pyproject.toml files (this project's own included) are not parsed at all
    if not _may_hold_table(text):
        return None
    toml = toml_module()
    try:
        data = toml.loads(text)
    except toml.TOMLDecodeError as e:
        raise UsageProblem(f"{path}: invalid TOML: {e}") from None
    tool = data.get("tool")
    return tool.get("vllm-preflight") if isinstance(tool, dict) else None


_TABLE_HINTS = ("tool.vllm-preflight", 'tool."vllm-preflight"', "[tool]")


def _may_hold_table(text: str) -> bool:
    """Whether the text may hold [tool.vllm-preflight]: it names the table before a `#` on its line.
    A header or dotted key that would make the table starts its line, so one named after a `#`
    (a comment, as in this project's own dependency list, or text inside a string) is never it,
    and such a file needs no TOML parser."""
    if not any(key in text for key in _TABLE_HINTS):
        return False
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    return any(key in code for key in _TABLE_HINTS)


def known_keys() -> tuple[str, ...]:
    return tuple(dict.fromkeys((*ignores.CONFIG_KEYS, *OWN_KEYS)))


def from_table(path: str, table, name: str = "the file") -> Project:
    """Validate a configuration table (every problem names the file and the key)."""
    if not isinstance(table, dict):
        raise UsageProblem(f"{path}: {name} must be a mapping with keys {', '.join(known_keys())}")
    unknown = sorted(set(table) - set(known_keys()))
    if unknown:
        raise UsageProblem(f"{path}: unknown key {unknown[0]!r} in {name} (known: {', '.join(known_keys())})")
    theirs = {k: v for k, v in table.items() if k in ignores.CONFIG_KEYS}
    raw = theirs.get("ignore")
    if isinstance(raw, list) and ALWAYS not in raw:  # prefixes (`VP1`), as the command line's --ignore
        theirs["ignore"] = [c for c in _rule_list(path, "ignore", raw) if c != ALWAYS]
    config = ignores._validate(path, theirs, name)
    options: dict = {}
    for key in STRINGS:
        if key in table:
            value = table[key]
            if key == "gpu-cc" and isinstance(value, float):  # `gpu-cc: 9.0` in YAML
                value = str(value)
            if not isinstance(value, str) or not value:
                raise UsageProblem(f"{path}: {key} takes a string in quotes, e.g. {key} = "
                                   f"\"{_EXAMPLES.get(key, '0.13.0')}\" (a bare 0.20 is the number 0.2)")
            options[_param(key)] = value
    for key, choices in CHOICES.items():
        if key in table:
            if table[key] not in choices:
                raise UsageProblem(f"{path}: {key} takes one of {', '.join(choices)}, got {table[key]!r}")
            options[_param(key)] = table[key]
    for key in FLAGS:
        if key in table:
            if not isinstance(table[key], bool):
                raise UsageProblem(f"{path}: {key} takes true or false")
            options[_param(key)] = table[key]
    for key in PAIRS:
        if key in table:
            options[_param(key)] = _pairs(path, key, table[key])
    for key in PATHS:
        if key in table:
            value = [table[key]] if isinstance(table[key], str) else table[key]
            if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
                raise UsageProblem(f"{path}: {key} takes a path or a list of paths, e.g. \"sarif:results.sarif\"")
            options[_param(key)] = tuple(value)
    select = _rule_list(path, "select", table["select"]) if "select" in table else None
    if select is not None and not select:  # would silence every rule but VP300, errors included
        raise UsageProblem(f"{path}: select names no rule; give codes or prefixes, e.g. [\"VP3\"] "
                           f"([\"ALL\"] or no select key: every rule)")
    extend = _rule_list(path, "extend-select", table["extend-select"]) if "extend-select" in table else ()
    return Project(path, config, options, select, extend, _severity(path, table.get("severity", {})))


def _param(key: str) -> str:
    return next(p for p, k in OPTION_KEYS.items() if k == key)


def _pairs(path: str, key: str, value) -> tuple[str, ...]:
    if isinstance(value, dict):
        value = [f"{k}={'true' if v is True else 'false' if v is False else v}" for k, v in value.items()]
    if isinstance(value, str) or not isinstance(value, list) or not all(
            isinstance(v, str) and "=" in v for v in value):
        raise UsageProblem(f"{path}: {key} takes a table of names to values or a list of \"K=V\" strings")
    return tuple(value)


def _severity(path: str, table) -> tuple:
    if not isinstance(table, dict):
        raise UsageProblem(f"{path}: severity maps rule codes or prefixes to error, warning or info, "
                           f"e.g. VP302 = \"info\"")
    out = []
    for prefix, level in table.items():
        prefix = str(prefix).strip().upper()
        expand([prefix], f"{path}: severity")
        if level not in SEVERITIES:
            raise UsageProblem(f"{path}: severity {prefix} takes error, warning or info, got {level!r}")
        if prefix == ALWAYS:
            raise UsageProblem(f"{path}: severity names {ALWAYS}, which is always an error "
                               f"(vLLM would refuse to start)")
        out.append((prefix, level))
    return tuple(sorted(out, key=lambda e: 0 if e[0] == "ALL" else -len(e[0])))


# --- applying ------------------------------------------------------------------------------

def selected(project: Project, select=None, extend_select=()) -> frozenset | None:
    """The rules to report (None: every rule): `select` (the command line's, else the
    configuration's) plus every `extend-select` (the configuration's and the command line's)."""
    from vllm_preflight.findings import RULES

    base = expand(select, "--select") if select else project.select
    extra = (*project.extend_select, *expand(extend_select, "--extend-select"))
    if base is None:
        return None
    keep = frozenset(base) | frozenset(extra) | {ALWAYS}
    return None if keep >= frozenset(RULES) else keep


def effective(project: Project, ignore=()) -> ignores.Config:
    """The ignores' configuration with the command line's `--ignore` rules added to `ignore`
    (they count as ignored, as the configuration's do)."""
    if not ignore:
        return project.ignores
    if ALWAYS in (str(p).strip().upper() for p in ignore):
        raise UsageProblem(f"--ignore names {ALWAYS}, which cannot be ignored (vLLM would still refuse to start)")
    extra = frozenset(expand(ignore, "--ignore")) - {ALWAYS}  # a prefix (`VP3`) leaves VP300 reported
    return dataclasses.replace(project.ignores, ignore=project.ignores.ignore | extra)


def deselect(report, keep: frozenset | None) -> int:
    """Drop the findings of rules not selected (after ignores: an inline ignore of such a rule
    is still used, not reported as unused); how many were dropped. VP300 always stays."""
    if keep is None:
        return 0
    dropped = 0
    for r in report.results:
        findings = r.extra.get("findings") or []
        kept = [f for f in findings if f.get("rule") in keep or f.get("rule") == ALWAYS]
        dropped += len(findings) - len(kept)
        r.extra["findings"] = kept
    return dropped


def severity_of(project: Project, rule: str, current: str) -> str:
    if rule == ALWAYS:
        return current
    for prefix, level in project.severity:
        if prefix == "ALL" or rule.startswith(prefix):
            return level
    return current


def apply_severity(report, project: Project) -> None:
    """Per-rule severity from the configuration, on every finding (before exit code and output)."""
    if not project.severity:
        return
    for r in report.results:
        for f in r.extra.get("findings") or []:
            f["severity"] = severity_of(project, str(f.get("rule")), f.get("severity", "error"))


def statistics(report) -> list[tuple[str, str, int]]:
    """(rule, severity, count) for every rule with findings, most frequent first (`--statistics`)."""
    counts: dict[tuple[str, str], int] = {}
    for r in report.results:
        for f in r.extra.get("findings") or []:
            key = (str(f.get("rule")), str(f.get("severity")))
            counts[key] = counts.get(key, 0) + 1
    return sorted(((rule, sev, n) for (rule, sev), n in counts.items()), key=lambda e: (-e[2], e[0]))
