"""Ignores: silence findings by rule, inline in the input or for a whole project.

Inline, in shell scripts and YAML: `# vllm-preflight: ignore[VP301]` (several codes:
`ignore[VP301, VP103]`; a bare `# vllm-preflight: ignore` silences every rule). It applies to
the line it ends, or, written on a comment line of its own, to the first line below the block
of comment lines it stands in. A finding is silenced by an ignore on its own line or on the
line of its server command, so one comment above `vllm serve` covers every finding of that
server (a comment cannot end a line that a `\\` continues).

Kubernetes: the annotation `vllm-preflight.io/ignore: VP302,VP305` on a resource's metadata, or on
its pod template's, silences those rules for the servers of that resource (or pod template); a code
it names that silences nothing there is VP390, an unknown one VP391, at the annotation's line.

Project: the nearest `.vllm-preflight.yaml` (or `.yml`), or `pyproject.toml` holding a
`[tool.vllm-preflight]` table, found from the current folder upward (in one folder the YAML
file wins):

    [tool.vllm-preflight]
    ignore = ["VP104"]                          # every file
    [tool.vllm-preflight.per-file-ignores]
    "deploy/legacy/*.sh" = ["VP103"]            # relative to the config file's folder;
    "values.yaml" = ["VP102"]                   # a pattern without `/` matches the file name

An inline ignore that silences nothing is finding VP390, one naming a code no rule has VP391
(many unknown codes in one ignore: one finding with a count); a malformed one (`ignore[VP301`
without its `]`, `ignore VP301`) silences nothing and is VP391; both can be listed in `ignore`. VP300 (vLLM refuses to start) is never silenced: vLLM still
refuses, and the run still fails.
"""
from __future__ import annotations

import functools
import os
import re
import sys
from dataclasses import dataclass, field

from vllm_preflight.errors import InputFailure, UsageProblem

UNIGNORABLE = frozenset({"VP300"})
REPEATS_SHOWN = 3  # as findings.REPEATS_SHOWN: more unknown codes than this in one ignore are one finding
CONFIG_KEYS = ("ignore", "per-file-ignores", "matrix-max-cells", "allow-path", "max-servers-per-file")
_MARK = "vllm-preflight:"
ANNOTATION = "vllm-preflight.io/ignore"  # on a Kubernetes resource or its pod template (load.kubernetes)
# a `#` after a `\`-escaped space (`\ # vllm-preflight: ...`) starts no comment: bash passes it to
# vLLM as an argument (VP101), so it is no ignore either
_INLINE = re.compile(r"(?:^|(?<!\\)\s)#\s*vllm-preflight:\s*ignore\b")
_CODE_LIKE = re.compile(r"[A-Za-z]+\d")  # `ignore VP301`: codes without their brackets


# --- project configuration ---------------------------------------------------------------

@dataclass(frozen=True)
class Config:
    """The ignore settings of a configuration file."""

    path: str | None = None  # the file it was read from
    ignore: frozenset = frozenset()
    per_file: tuple = ()  # ((pattern, frozenset(codes)), ...)
    matrix_max_cells: int | None = None  # `matrix`'s cell limit (None: matrix.cells.DEFAULT_MAX_CELLS)
    # not ignores, but project settings read from the same table: folders an input may name
    # files in besides its own (load.confine; absolute), and the servers-per-file limit
    allow_paths: tuple = ()
    max_servers: int | None = None

    def silences(self, file: str | None, rule: str) -> bool:
        if rule in self.ignore:
            return True
        if not file or not self.per_file:
            return False
        name, rel = _names(file, os.path.dirname(self.path) if self.path else None)
        for pattern, codes in self.per_file:
            # patterns with a `/` are relative to the config file's folder (a config built in code: the cwd)
            if rule in codes and glob_match(rel if "/" in pattern else name, pattern):
                return True
        return False


@functools.lru_cache(maxsize=4096)
def _names(file: str, base: str | None) -> tuple[str, str]:
    """(base name, path relative to `base` with `/`) of a finding's file; one computation per file."""
    try:
        rel = os.path.relpath(os.path.abspath(file), base or os.getcwd())
    except (OSError, ValueError):  # no working folder, another drive
        rel = file
    return os.path.basename(file), rel.replace(os.sep, "/")


# --- glob patterns -----------------------------------------------------------------------
# fnmatch's patterns (`*`, `?`, `[seq]`, `[!seq]`), matched without regular expressions: a
# 40 KB pattern of `*a*a*a...` makes fnmatch's regex backtrack for seconds per file. Here `*`
# splits the pattern into fixed-length pieces, each found leftmost after the one before (the
# first at the start, the last at the end), which is exact for such patterns; a piece of
# length L is tried at most len(name) - L + 1 times, so the work is linear in the pattern and
# at most quadratic in the (short) name.

def _parse_glob(pattern: str) -> list:
    """Pieces between `*`s, each a list of atoms: a str (literal run), None (`?`) or
    (negated, frozenset of chars, ranges) for a class."""
    pieces: list[list] = [[]]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            pieces.append([])
        elif c == "?":
            pieces[-1].append(None)
        elif c == "[":
            j = i
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            j = pattern.find("]", j)
            if j < 0:  # no closing bracket: a literal `[` (as fnmatch)
                _lit(pieces[-1], "[")
                continue
            body = pattern[i:j]
            i = j + 1
            negated = body.startswith("!")
            if negated:
                body = body[1:]
            chars, ranges = set(), []
            k = 0
            while k < len(body):
                if k + 2 < len(body) and body[k + 1] == "-":
                    if body[k] <= body[k + 2]:
                        ranges.append((body[k], body[k + 2]))
                    k += 3
                else:
                    chars.add(body[k])
                    k += 1
            pieces[-1].append((negated, frozenset(chars), tuple(ranges)))
        else:
            _lit(pieces[-1], c)
    return pieces


def _lit(piece: list, text: str) -> None:
    if piece and isinstance(piece[-1], str):
        piece[-1] += text
    else:
        piece.append(text)


def _size(piece: list) -> int:
    return sum(len(a) if isinstance(a, str) else 1 for a in piece)


def _atom_matches(atom, ch: str) -> bool:
    if atom is None:
        return True
    negated, chars, ranges = atom
    hit = ch in chars or any(lo <= ch <= hi for lo, hi in ranges)
    return hit != negated


def _piece_at(piece: list, name: str, pos: int) -> bool:
    for atom in piece:
        if isinstance(atom, str):
            if not name.startswith(atom, pos):
                return False
            pos += len(atom)
        else:
            if not _atom_matches(atom, name[pos]):
                return False
            pos += 1
    return True


def _find_piece(piece: list, name: str, start: int, end: int) -> int:
    """The leftmost position >= start where `piece` matches inside name[:end], or -1."""
    size = _size(piece)
    if len(piece) == 1 and isinstance(piece[0], str):
        return name.find(piece[0], start, end)
    for pos in range(start, end - size + 1):
        if _piece_at(piece, name, pos):
            return pos
    return -1


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> tuple:
    pieces = _parse_glob(pattern)
    return tuple(tuple(p) for p in pieces), sum(_size(p) for p in pieces)


@functools.lru_cache(maxsize=65536)
def glob_match(name: str, pattern: str) -> bool:
    """fnmatch.fnmatchcase(name, pattern), in bounded time."""
    pieces, fixed = _compiled(pattern)
    if fixed > len(name):
        return False
    if len(pieces) == 1:
        return _size(list(pieces[0])) == len(name) and _piece_at(list(pieces[0]), name, 0)
    first, last = list(pieces[0]), list(pieces[-1])
    if not _piece_at(first, name, 0):
        return False
    pos, end = _size(first), len(name) - _size(last)
    if end < pos or not _piece_at(last, name, end):
        return False
    for piece in pieces[1:-1]:
        found = _find_piece(list(piece), name, pos, end)
        if found < 0:
            return False
        pos = found + _size(list(piece))
    return True


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


def read_config_text(path: str) -> str:
    """A project configuration file's text (at most 1 MiB); unreadable: a usage problem naming it."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(1 << 20)
    except (OSError, UnicodeDecodeError) as e:
        raise UsageProblem(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None


def _from_yaml(path: str) -> Config:
    import yaml

    try:
        data = yaml.safe_load(read_config_text(path))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise UsageProblem(f"{path}{where}: invalid YAML: {getattr(e, 'problem', None) or e}") from None
    return _validate(path, {} if data is None else data)


def _from_pyproject(path: str) -> Config | None:
    text = read_config_text(path)
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
    cells = table.get("matrix-max-cells")
    if cells is not None and (isinstance(cells, bool) or not isinstance(cells, int) or cells < 1):
        raise UsageProblem(f"{path}: matrix-max-cells takes a whole number of cells, at least 1")
    return Config(path=path, ignore=_codes(path, "ignore", table.get("ignore", [])),
                  per_file=tuple((str(p), _codes(path, f"per-file-ignores {p!r}", c)) for p, c in per_file.items()),
                  matrix_max_cells=cells,
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
    """An inline ignore comment and where it was written."""

    file: str
    line: int
    column: int
    codes: tuple | None  # None: every rule
    used: set = field(default_factory=set)
    problem: str | None = None  # a malformed ignore (silences nothing): what is wrong with it


@dataclass
class _FileIgnores:
    """The inline ignores of one file, by line."""

    by_line: dict  # line -> Inline
    comment_only: list  # per line (index line-1): the line holds only a comment

    _cache: dict = field(default_factory=dict)

    def covering(self, line: int) -> list[Inline]:
        """The ignores that apply to `line`: its own, and those of the comment block right above
        (once per line: many findings on one line do not walk a long comment block again)."""
        hit = self._cache.get(line)
        if hit is not None:
            return hit
        out = [self.by_line[line]] if line in self.by_line else []
        i = line - 1
        while i >= 1 and i <= len(self.comment_only) and self.comment_only[i - 1]:
            if i in self.by_line:
                out.append(self.by_line[i])
            i -= 1
        out = [x for x in out if x.problem is None]  # a malformed ignore silences nothing
        self._cache[line] = out
        return out


def _text_of(file: str) -> str | None:
    from vllm_preflight.load import source

    if file == source.STDIN_NAME and source._stdin:
        return source._stdin[0]
    try:  # a regular file only (never blocks on a FIFO swapped in), no larger than an input may be
        return source.read_bytes(file).decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    except (OSError, InputFailure):
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
        codes, problem = _codes_of(line[m.end():])
        by_line[n] = Inline(file, n, line.index("#", m.start()) + 1, codes, problem=problem)
    if not by_line:
        return None
    return _FileIgnores(by_line, [ln.lstrip().startswith("#") for ln in lines])


def _codes_of(rest: str) -> tuple[tuple | None, str | None]:
    """(codes, problem) of what follows `ignore`: `[VP301, VP103]`, nothing (every rule), or
    a malformed list that must not silence everything: a `[` without its `]`, or codes
    written without brackets."""
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0:
            return (), "`[` without its `]`: write ignore[VP301]"
        return tuple(dict.fromkeys(c.strip() for c in rest[1:close].split(",") if c.strip())), None
    if _CODE_LIKE.match(rest.strip()):
        return (), "rule codes without brackets: write ignore[VP301]"
    return None, None


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
    annotated: list[tuple] = []  # (result, codes, location, used) of `vllm-preflight.io/ignore` annotations
    for r in report.results:
        server_file, server_line = _where(r.extra.get("location"))
        codes = tuple(getattr(r.deployment, "ignore_codes", ()) or ())
        used_here: set = set()
        if codes:
            annotated.append((r, codes, getattr(r.deployment, "ignore_location", None), used_here))
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
            if rule in codes:  # the resource's (or its pod template's) ignore annotation
                used_here.add(rule)
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

    # files read because an input named them (`--config`, `source`): their text is not quoted
    private = {f for r in report.results for f in getattr(r.deployment, "private_files", ()) or ()}
    added: dict[int, tuple] = {}  # id(result) -> (result, [Finding])
    for file, results in touching.items():
        fi = ignores_of(file)
        if fi is None:
            continue
        import bisect

        by_line = sorted(((_where(r.extra.get("location"))[1] or 0), k) for k, r in enumerate(results.values()))
        ordered = list(results.values())
        for inline in fi.by_line.values():
            # the result whose server command is nearest the ignore
            k = bisect.bisect_left(by_line, (inline.line, -1))
            near = [by_line[j] for j in (k - 1, k) if 0 <= j < len(by_line)]
            target = ordered[min(near, key=lambda e: (abs(e[0] - inline.line), e[0], e[1]))[1]]
            for rule, message in _unused(inline, RULES, quote=file not in private):
                if config.silences(file, rule):
                    continue
                loc = Location(file, inline.line, inline.column)
                added.setdefault(id(target), (target, []))[1].append(Finding(rule, message, loc))
    # one annotation over several servers (a pod template's leader and workers): used if any used it, said once
    used_at: dict = {}
    for _r, _codes, loc, used in annotated:
        used_at.setdefault(loc, set()).update(used)
    said: set = set()
    for r, codes, loc, _used in annotated:
        if loc is not None and loc in said:
            continue
        said.add(loc)
        used = used_at.get(loc, set())
        for code in codes:
            if code in RULES and code not in UNIGNORABLE and code in used:
                continue
            if loc is not None and config.silences(loc.file, "VP390" if code in RULES else "VP391"):
                continue
            if code not in RULES:
                why = ("VP391", f"unknown rule {code!r} in the {ANNOTATION} annotation "
                                + "(`vllm-preflight rules` lists them)")
            elif code in UNIGNORABLE:
                why = ("VP390", f"{code} cannot be ignored: vLLM would still refuse to start")
            else:
                why = ("VP390", f"unused ignore: the {ANNOTATION} annotation names {code}, "
                                + f"and this server has no {code} finding")
            added.setdefault(id(r), (r, []))[1].append(Finding(why[0], why[1], loc))
    from vllm_preflight.findings import unique

    for target, found in added.values():  # the same finding at many ignores is one, with a count
        target.extra.setdefault("findings", []).extend(f.to_json() for f in unique(found))
    report.ignored = silenced
    return silenced


def _unused(inline: Inline, rules, quote: bool = True) -> list[tuple[str, str]]:
    """VP390/VP391 for one inline ignore; many unknown codes in it are one finding with a
    count, and codes of a file an input named (`quote` False) are not quoted."""
    if inline.problem is not None:
        return [("VP391", f"malformed ignore, it silences nothing: {inline.problem}")]
    if inline.codes is None:
        return [] if inline.used else [("VP390", "unused ignore: no finding here to silence")]
    if not inline.codes:
        return [("VP391", "the ignore names no rule code: write ignore[VP301] (or a bare `ignore` for all)")]
    out = []
    unknown = [code for code in inline.codes if code not in rules]
    fold = len(unknown) > REPEATS_SHOWN or (unknown and not quote)
    for code in inline.codes:  # in the order written; many unknown codes: one finding where the first is
        if code not in rules:
            if not fold:
                out.append(("VP391", f"unknown rule {code!r} in ignore (`vllm-preflight rules` lists them)"))
            elif code == unknown[0]:
                shown = f" ({', '.join(repr(c) for c in unknown[:REPEATS_SHOWN])}, …)" if quote else ""
                out.append(("VP391", f"{len(unknown)} unknown rule codes in ignore{shown} (`vllm-preflight rules` "
                                     f"lists them)" if len(unknown) > 1 else
                                     "an unknown rule code in ignore (`vllm-preflight rules` lists them)"))
        elif code in UNIGNORABLE:
            out.append(("VP390", f"{code} cannot be ignored: vLLM would still refuse to start"))
        elif code not in inline.used:
            out.append(("VP390", f"unused ignore: no {code} finding here to silence"))
    return out
