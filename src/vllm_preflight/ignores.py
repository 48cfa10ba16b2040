"""Ignores: silence findings by rule, inline in the input or for a whole project.

Inline, in shell scripts and YAML: `# vllm-preflight: ignore[VP301]` (several codes:
`ignore[VP301, VP103]`; a bare `# vllm-preflight: ignore` silences every rule). It applies to
the line it ends, or, written on a comment line of its own, to the first line below the block
of comment lines it stands in. A finding is silenced by an ignore on its own line or on the
line of its server command, so one comment above `vllm serve` covers every finding of that
server (a comment cannot end a line that a `\\` continues).

Project: the nearest `.vllm-preflight.yaml` (or `.yml`), or `pyproject.toml` holding a
`[tool.vllm-preflight]` table, found from the current folder upward (in one folder the YAML
file wins):

    [tool.vllm-preflight]
    ignore = ["VP104"]                          # every file
    [tool.vllm-preflight.per-file-ignores]
    "deploy/legacy/*.sh" = ["VP103"]            # relative to the config file's folder;
    "values.yaml" = ["VP102"]                   # a pattern without `/` matches the file name

An inline ignore that silences nothing is finding VP390, one naming a code no rule has VP391;
both can be listed in `ignore`. VP300 (vLLM refuses to start) is never silenced: vLLM still
refuses, and the run still fails.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field

from vllm_preflight.errors import UsageProblem

UNIGNORABLE = frozenset({"VP300"})
CONFIG_KEYS = ("ignore", "per-file-ignores", "allow-path", "max-servers-per-file")
_MARK = "vllm-preflight:"
_INLINE = re.compile(r"(?:^|\s)#\s*vllm-preflight:\s*ignore\b(?:\[([^\]\n]*)\])?")


# --- project configuration ---------------------------------------------------------------

@dataclass(frozen=True)
class Config:
    path: str | None = None  # the file it was read from
    ignore: frozenset = frozenset()
    per_file: tuple = ()  # ((pattern, frozenset(codes)), ...)
    # not ignores, but project settings read from the same table: folders an input may name
    # files in besides its own (load.confine; absolute), and the servers-per-file limit
    allow_paths: tuple = ()
    max_servers: int | None = None

    def silences(self, file: str | None, rule: str) -> bool:
        if rule in self.ignore:
            return True
        if not file or not self.per_file:
            return False
        import fnmatch

        name = os.path.basename(file)
        # patterns with a `/` are relative to the config file's folder (a config built in code: the cwd)
        base = os.path.dirname(self.path) if self.path else os.getcwd()
        rel = os.path.relpath(os.path.abspath(file), base).replace(os.sep, "/")
        for pattern, codes in self.per_file:
            if rule in codes and fnmatch.fnmatchcase(rel if "/" in pattern else name, pattern):
                return True
        return False


def find_config(start: str | None = None) -> Config:
    """The nearest project configuration from `start` (the current folder) upward."""
    d = os.path.abspath(start or os.getcwd())
    while True:
        for name in (".vllm-preflight.yaml", ".vllm-preflight.yml"):
            path = os.path.join(d, name)
            if os.path.isfile(path):
                return _from_yaml(path)
        path = os.path.join(d, "pyproject.toml")
        if os.path.isfile(path):
            found = _from_pyproject(path)
            if found is not None:
                return found
        parent = os.path.dirname(d)
        if parent == d:
            return Config()
        d = parent


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(1 << 20)
    except (OSError, UnicodeDecodeError) as e:
        raise UsageProblem(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None


def _from_yaml(path: str) -> Config:
    import yaml

    try:
        data = yaml.safe_load(_read(path))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise UsageProblem(f"{path}{where}: invalid YAML: {getattr(e, 'problem', None) or e}") from None
    return _validate(path, {} if data is None else data)


def _from_pyproject(path: str) -> Config | None:
    text = _read(path)
    # most pyproject.toml files (this project's own included) are not parsed at all
    if not any(key in text for key in ("tool.vllm-preflight", 'tool."vllm-preflight"', "[tool]")):
        return None
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        try:
            import tomli as tomllib
        except ImportError:
            raise UsageProblem(f"{path}: reading [tool.vllm-preflight] needs Python 3.11+ (or the tomli "
                               f"package); use .vllm-preflight.yaml instead") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UsageProblem(f"{path}: invalid TOML: {e}") from None
    table = data.get("tool", {}).get("vllm-preflight") if isinstance(data.get("tool"), dict) else None
    return None if table is None else _validate(path, table, "[tool.vllm-preflight]")


def _codes(path: str, where: str, value) -> frozenset:
    from vllm_preflight.findings import RULES

    if isinstance(value, str) or not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise UsageProblem(f"{path}: {where} takes a list of rule codes, e.g. [\"VP104\"]")
    for code in value:
        if code not in RULES:
            raise UsageProblem(f"{path}: {where} names {code!r}, which is no rule "
                               f"(`vllm-preflight rules` lists them)")
        if code in UNIGNORABLE:
            raise UsageProblem(f"{path}: {where} names {code}, which cannot be ignored "
                               f"(vLLM would still refuse to start)")
    return frozenset(value)


def _validate(path: str, table, name: str = "the file") -> Config:
    if not isinstance(table, dict):
        raise UsageProblem(f"{path}: {name} must be a mapping with keys {', '.join(CONFIG_KEYS)}")
    unknown = sorted(set(table) - set(CONFIG_KEYS))
    if unknown:
        raise UsageProblem(f"{path}: unknown key {unknown[0]!r} in {name} (known: {', '.join(CONFIG_KEYS)})")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise UsageProblem(f"{path}: per-file-ignores maps file patterns to lists of rule codes")
    return Config(path=path, ignore=_codes(path, "ignore", table.get("ignore", [])),
                  per_file=tuple((str(p), _codes(path, f"per-file-ignores {p!r}", c)) for p, c in per_file.items()),
                  allow_paths=_folders(path, table.get("allow-path", [])),
                  max_servers=_positive(path, "max-servers-per-file", table.get("max-servers-per-file")))


def _folders(path: str, value) -> tuple:
    """`allow-path`: folders, relative to the config file's folder; each must exist."""
    if isinstance(value, str) or not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise UsageProblem(f"{path}: allow-path takes a list of folders, e.g. [\"../shared/configs\"]")
    out = []
    for v in value:
        full = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), os.path.expanduser(v)))
        if not os.path.isdir(full):
            raise UsageProblem(f"{path}: allow-path names {v!r}, which is not a folder")
        out.append(full)
    return tuple(out)


def _positive(path: str, key: str, value) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UsageProblem(f"{path}: {key} takes a whole number of at least 1")
    return value


# --- inline comments ---------------------------------------------------------------------

@dataclass
class Inline:
    file: str
    line: int
    column: int
    codes: tuple | None  # None: every rule
    used: set = field(default_factory=set)


@dataclass
class _FileIgnores:
    by_line: dict  # line -> Inline
    comment_only: list  # per line (index line-1): the line holds only a comment

    def covering(self, line: int) -> list[Inline]:
        """The ignores that apply to `line`: its own, and those of the comment block right above."""
        out = [self.by_line[line]] if line in self.by_line else []
        i = line - 1
        while i >= 1 and self.comment_only[i - 1]:
            if i in self.by_line:
                out.append(self.by_line[i])
            i -= 1
        return out


def _text_of(file: str) -> str | None:
    from vllm_preflight.load import source

    if file == source.STDIN_NAME and source._stdin:
        return source._stdin[0]
    try:
        with open(file, encoding="utf-8", errors="replace") as f:
            return f.read(source.MAX_BYTES)
    except OSError:
        return None


def scan(file: str, text: str | None) -> _FileIgnores | None:
    """The inline ignores of one file (None when it has none: the common, fast case)."""
    if not text or _MARK not in text:
        return None
    lines = text.split("\n")
    by_line = {}
    for n, line in enumerate(lines, 1):
        if _MARK not in line:
            continue
        m = _INLINE.search(line)
        if not m:
            continue
        codes = None
        if m.group(1) is not None:
            codes = tuple(c.strip() for c in m.group(1).split(",") if c.strip())
        by_line[n] = Inline(file, n, line.index("#", m.start()) + 1, codes)
    if not by_line:
        return None
    return _FileIgnores(by_line, [ln.lstrip().startswith("#") for ln in lines])


# --- applying them -----------------------------------------------------------------------

def _where(loc) -> tuple[str | None, int | None]:
    if not loc:
        return None, None
    return loc.get("file"), loc.get("line")


def apply(report, config: Config | None = None) -> int:
    """Drop silenced findings from every result's `findings`, add VP390/VP391 for inline
    ignores that silence nothing or name no rule, and return how many were silenced (also
    kept as `report.ignored`)."""
    from vllm_preflight.findings import RULES, Finding
    from vllm_preflight.model import Location

    config = config or Config()
    files: dict[str, _FileIgnores | None] = {}
    touching: dict[str, dict] = {}  # file -> {id: result} with their server or a finding in it

    def ignores_of(file):
        if file not in files:
            files[file] = scan(file, _text_of(file))
        return files[file]

    silenced = 0
    for r in report.results:
        server_file, server_line = _where(r.extra.get("location"))
        if server_file:
            touching.setdefault(server_file, {})[id(r)] = r
        kept = []
        for f in r.extra.get("findings") or []:
            rule = f.get("rule")
            file, line = _where(f.get("location"))
            file = file or server_file
            if file:
                touching.setdefault(file, {})[id(r)] = r
            if rule in UNIGNORABLE:
                kept.append(f)
                continue
            if config.silences(file, rule):
                silenced += 1
                continue
            hits = []
            for where_file, where_line in ((file, line), (server_file, server_line)):
                fi = ignores_of(where_file) if where_file and where_line else None
                if fi:
                    hits += [i for i in fi.covering(where_line) if i.codes is None or rule in i.codes]
            if hits:
                for i in hits:
                    i.used.add(rule if i.codes is not None else "*")
                silenced += 1
                continue
            kept.append(f)
        r.extra["findings"] = kept

    for file, results in touching.items():
        fi = ignores_of(file)
        if fi is None:
            continue
        for inline in fi.by_line.values():
            for rule, message in _unused(inline, RULES):
                if config.silences(file, rule):
                    continue
                loc = Location(file, inline.line, inline.column)
                target = min(results.values(), key=lambda r: abs((_where(r.extra.get("location"))[1] or 0)
                                                                - inline.line))
                target.extra.setdefault("findings", []).append(Finding(rule, message, loc).to_json())
    report.ignored = silenced
    return silenced


def _unused(inline: Inline, rules) -> list[tuple[str, str]]:
    if inline.codes is None:
        return [] if inline.used else [("VP390", "unused ignore: no finding here to silence")]
    if not inline.codes:
        return [("VP391", "the ignore names no rule code: write ignore[VP301] (or a bare `ignore` for all)")]
    out = []
    for code in inline.codes:
        if code not in rules:
            out.append(("VP391", f"unknown rule {code!r} in ignore (`vllm-preflight rules` lists them)"))
        elif code in UNIGNORABLE:
            out.append(("VP390", f"{code} cannot be ignored: vLLM would still refuse to start"))
        elif code not in inline.used:
            out.append(("VP390", f"unused ignore: no {code} finding here to silence"))
    return out
