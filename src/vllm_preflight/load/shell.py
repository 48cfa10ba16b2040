"""Finding vLLM servers in shell scripts, the way the shell would run them.

The interpreter follows a script line by line without running anything: variables and
`export`s (container env included) feed later expansions, arrays and `eval` are followed,
`bash -c SCRIPT ARGS...` runs a nested script with `$@`, wrappers (`exec`, `env K=V`,
`numactl ...`, `nsys profile ...`, `docker run IMAGE ...`) are looked through. Control flow
is not evaluated: a server in either branch of an `if` is found. Unknown values stay
symbols (`load.symbols`).
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from vllm_preflight.findings import Finding
from vllm_preflight.load import limits
from vllm_preflight.load.shell_words import Command, ShellSyntaxError, Word, lex
from vllm_preflight.load.symbols import (
    ArithError,
    Lit,
    Sym,
    Text,
    concat,
    evaluate,
    expr_names,
    lit,
    literal,
    location_of,
    parse_arith,
    render_expr,
    source_of,
    split_fields,
    substitute,
)
from vllm_preflight.model import Assumption, Location

PLACE_OPEN, PLACE_CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=")
SERVER_MODULES = ("vllm.entrypoints.openai.api_server",)
CLI_MODULE = "vllm.entrypoints.cli.main"
SHELLS = ("bash", "sh", "zsh", "dash", "ksh", "ash")
SKIP_KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}",
                 "time", "esac", "in"}
HEADER_KEYWORDS = {"for", "case", "select", "function"}
NOT_SERVERS = {"echo", "printf", "grep", "egrep", "fgrep", "pgrep", "pkill", "kill", "killall", "which",
               "type", "cat", "tee", "sed", "awk", "curl", "wget", "test", "[", "[[", "ps", "man",
               "pip", "uv pip", "git", "read", "logger", "jq", "yq", "wc", "head", "tail"}
MAX_DEPTH = 8
# docker/podman run options that take no value
_DOCKER_FLAGS = {"--rm", "-d", "--detach", "-i", "--interactive", "-t", "--tty", "-it", "-ti", "-itd",
                 "--privileged", "--init", "-P", "--publish-all", "--read-only", "--sig-proxy",
                 "--no-healthcheck", "-q", "--quiet", "--oom-kill-disable"}


@dataclass(frozen=True)
class TWord:
    """One word of a server command template."""

    text: Text
    loc: Location | None
    fields: bool = False  # an unquoted, unknown variable alone: expands to 0..n words
    tag: str = ""  # where it came from, for findings ("config:KEY" for --config YAML words)


@dataclass
class Found:
    """A vLLM server command found in a script or manifest."""

    words: list[TWord]  # from the program on: `vllm serve ...`
    prefix: int  # how many words name the program (2 for `vllm serve`)
    env: list[tuple[str, Text]]
    loc: Location | None
    findings: list[Finding] = field(default_factory=list)
    image: str | None = None
    image_loc: Location | None = None
    read_files: tuple = ()  # labels of the `source`d files read before it (their text is not quoted)


class FixedOrigin:
    """Every offset maps to one place (text whose characters cannot be placed)."""

    def __init__(self, loc: Location | None):
        self.loc = loc

    def location(self, offset: int) -> Location | None:
        return self.loc


class RelexOrigin:
    """Offsets in text rebuilt from a Text (for `eval`, `bash -c`): back to where each
    character was written; symbols travel as placeholders."""

    def __init__(self, text: Text, fallback: Location | None):
        self.fallback = fallback
        self.pieces: list[tuple[int, int, Lit]] = []
        self.syms: list[Sym] = []
        flat = []
        pos = 0
        for s in text:
            if isinstance(s, Lit):
                self.pieces.append((pos, pos + len(s.text), s))
                flat.append(s.text)
                pos += len(s.text)
            else:
                ph = f"{PLACE_OPEN}{len(self.syms)}{PLACE_CLOSE}"
                self.syms.append(s)
                flat.append(ph)
                pos += len(ph)
        self.flat = "".join(flat)

    def location(self, offset: int) -> Location | None:
        end_piece = None
        for a, b, piece in self.pieces:
            if a <= offset < b:
                loc = piece.location(offset - a)
                return loc if loc is not None else self.fallback
            if offset == b and b > a:
                end_piece = (a, piece)
        if end_piece is not None:
            loc = end_piece[1].location(offset - end_piece[0])
            return loc if loc is not None else self.fallback
        return self.fallback


def basename(word: str) -> str:
    return os.path.basename(word.rstrip("/"))


def program_prefix(words: Sequence[str | None]) -> tuple[int, int] | None:
    """(start, length) of the server program in the words, or None.

    `vllm serve`, `python[3] [-u ...] -m vllm.entrypoints.openai.api_server`,
    `python -m vllm.entrypoints.cli.main serve`.
    """
    for i, w in enumerate(words):
        if w is None:
            continue
        b = basename(w)
        if b == "vllm" and i + 1 < len(words) and words[i + 1] == "serve":
            return i, 2
        if b.startswith("python") and re.fullmatch(r"python[0-9.]*", b):
            j = i + 1
            while j < len(words) and (wj := words[j]) is not None and wj.startswith("-") and wj != "-m":
                j += 1
            if j + 1 < len(words) and words[j] == "-m":
                mod = words[j + 1]
                if mod in SERVER_MODULES:
                    return i, j + 2 - i
                if mod == CLI_MODULE and j + 2 < len(words) and words[j + 2] == "serve":
                    return i, j + 3 - i
    return None


class Shell:
    """One shell's state while a script is read; results are shared with nested shells."""

    def __init__(self, *, pins: dict[str, str] | None = None, env: Mapping[str, Text | list[Text]] | None = None,
                 positional: list[Text] | None = None, arg0: Text = (), depth: int = 0,
                 results: Shell | None = None, runtime: dict[str, str] | None = None):
        self.pins = dict(pins or {})
        # variables set when the deployment runs, value unknown here: name -> who sets it
        self.runtime = dict(runtime or {})
        self.vars: dict[str, Text | list[Text]] = dict(env or {})  # arrays are lists
        self.exported: set[str] = set(env or {})
        self.positional = list(positional or [])
        self.arg0 = arg0
        self.depth = depth
        if results is None:
            self.found: list[Found] = []
            self.assumptions: list[Assumption] = []
            self.findings: list[Finding] = []
            self.steps = [0]  # pieces expanded so far, over every nested shell (load.limits)
            self.notes: list[Finding] = []  # what the script does that the tool does not follow
            self.sourcing: set[str] = set()  # files being sourced (a loop is not followed)
            self.read_files: list[str] = []  # sourced files read (as locations name them)
        else:
            self.found, self.assumptions, self.findings = results.found, results.assumptions, results.findings
            self.steps, self.notes, self.sourcing = results.steps, results.notes, results.sourcing
            self.read_files = results.read_files
        # bash's default IFS: `vllm${IFS}serve` is two words, as in the shell
        self.vars.setdefault("IFS", lit(" \t\n"))

    # -------------------------------------------------------------- scripts
    def run_text(self, text: str, origin, *, fallback: Location | None = None) -> None:
        """Lex and run a script; a syntax error becomes ShellSyntaxError with a Location."""
        try:
            script = lex(text)
        except ShellSyntaxError as e:
            raise ScriptError(e.message, origin.location(e.offset) or fallback) from None
        cmds = script.commands
        fed: set[int] = set()  # commands whose stdin is a here-document run here
        for idx, cmd in enumerate(cmds):
            if idx in fed:
                continue
            if cmd.heredoc is not None and self._heredoc(cmds, idx, text, origin, fed):
                continue
            before = len(self.found)
            self.run_command(cmd, origin)
            if cmd.comment_after_continuation is not None and len(self.found) > before:
                self._comment_finding(cmds, idx, origin)

    def note(self, rule: str, message: str, loc: Location | None, *, quotes: bool = True) -> None:
        """A finding about the script. One placed in a `source`d file (read because the input
        named it) would quote that file's text: it says what and where instead, unless the
        message `quotes` nothing of it."""
        if quotes and loc is not None and loc.file in self.read_files:
            from vllm_preflight.findings import RULES

            summary = RULES[rule].summary.rstrip(".") if rule in RULES else rule
            message = f"{summary} (in a sourced file; its text is not quoted)"
        f = Finding(rule, message, loc)
        if f not in self.notes:
            self.notes.append(f)

    def _heredoc(self, cmds: list[Command], idx: int, text: str, origin, fed: set[int]) -> bool:
        """`bash <<EOF` / `cat <<EOF | sh`: the here-document is the script the shell runs. True
        when it was run here; a body naming vLLM that goes to any other program is a VP122 note."""
        cmd = cmds[idx]
        if cmd.heredoc is None:
            return False
        start, end, quoted = cmd.heredoc
        body = text[start:end]
        if "vllm" not in body.lower():
            return False
        words = [w.literal() for w in cmd.words]
        first = basename(words[0]) if words and words[0] else None
        reader = None
        if first in SHELLS and not any(w and w[:1] == "-" and "c" in w[1:] for w in words[1:]):
            reader = idx
        elif first == "cat" and cmd.separator == "|" and idx + 1 < len(cmds):
            nxt = [w.literal() for w in cmds[idx + 1].words]
            if nxt and nxt[0] and basename(nxt[0]) in SHELLS and len(nxt) == 1:
                reader = idx + 1
        loc = origin.location(cmd.start)
        if reader is None or self.depth >= MAX_DEPTH:
            self.note("VP122", f"a here-document naming vLLM is fed to `{first or '?'}`, which the tool does not "
                               f"follow; a server it starts is not checked", loc)
            return False
        fed.add(reader)
        # an unquoted delimiter: the body's $X expand in this shell first, so the child sees every variable
        child = Shell(pins=self.pins, env=dict(self.vars) if not quoted else dict(self.exported_env()),
                      depth=self.depth + 1, results=self,
                      runtime={k: v for k, v in self.runtime.items() if k not in self.vars})
        child.run_text(body, _Shifted(origin, start), fallback=loc)
        return True

    def _source(self, words: list[TWord], loc: Location | None) -> None:
        """`source FILE` / `. FILE`: FILE (relative: next to the script) is read in this shell when
        it lies inside the input's folder tree or an allowed folder (load.confine). Its text is
        never quoted: what the tool says about it names its lines."""
        if not words:
            return
        from vllm_preflight.load import confine

        name = literal(words[0].text)
        where = words[0].loc or loc
        # a `source` line inside a sourced file is that file's text: named by its place
        private = where is not None and where.file in self.read_files
        shown = f"`source` at {where.file}:{where.line}" if private and where is not None \
            else f"`source {source_of(words[0].text)}`"
        unknown = "variables it sets are unknown here"

        def say(message: str) -> None:
            self.note("VP121", f"{shown}{message}", where, quotes=False)

        if name is None:
            say(f": which file is not known until the deployment runs; {unknown}")
            return
        if where is None or not where.file:
            say(f" reads a file on the machine that runs the deployment; {unknown}")
            return
        conf = confine.current(os.path.dirname(os.path.abspath(where.file)))
        path = name if os.path.isabs(name) else \
            os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(where.file)), name))
        if not conf.allows(path):
            on = " reads a file on the machine that runs the deployment;" if os.path.isabs(name) else ":"
            say(f"{on} {conf.refusal()}; {unknown}")
            return
        from vllm_preflight.errors import InputFailure
        from vllm_preflight.load.source import read_source

        real = os.path.realpath(path)
        if real in self.sourcing:
            say(" sources a file already being read (a loop); not read again")
            return
        if self.depth >= MAX_DEPTH:
            say(f": sourced files nest deeper than {MAX_DEPTH}; {unknown}")
            return
        try:
            src = read_source(path)
        except InputFailure as e:
            say(f": {e.error.message}" + ("" if private else f" ({path})") + f"; {unknown}")
            return
        if src.path not in self.read_files:
            self.read_files.append(src.path)
        self.sourcing.add(real)
        self.depth += 1
        try:
            self.run_text(src.text, src, fallback=where)
        except ScriptError as e:
            if e.message.startswith("input too complex"):
                raise
            place = f"{e.loc.file}:{e.loc.line}" if e.loc else src.path
            say(f": not shell the tool can read (at {place}); variables it sets from there on are unknown here")
        finally:
            self.depth -= 1
            self.sourcing.discard(real)

    def _comment_finding(self, cmds: list[Command], idx: int, origin) -> None:
        cmd = cmds[idx]
        loc = origin.location(cmd.comment_after_continuation)
        orphans: list[Command] = []
        for nxt in cmds[idx + 1:]:
            first = nxt.words[0].literal() if nxt.words else None
            if first is None or not first.startswith("-"):
                break
            orphans.append(nxt)
            if nxt.comment_after_continuation is None:
                break
        start_loc = origin.location(cmd.start)
        start_line = start_loc.line if start_loc else "?"
        if orphans:
            words = " ".join(" ".join(w.literal() or "…" for w in o.words) for o in orphans)
            first_loc = origin.location(orphans[0].start)
            last_loc = origin.location(orphans[-1].end)
            lines = (f"line {first_loc.line}" if first_loc and last_loc and first_loc.line == last_loc.line
                     else f"lines {first_loc.line if first_loc else '?'}-{last_loc.line if last_loc else '?'}")
            msg = (f"this comment follows a `\\` continuation, so the shell ends the command started "
                   f"at line {start_line} here; `{words}` ({lines}) runs as a separate command and "
                   f"never reaches vLLM")
        else:
            msg = (f"this comment follows a `\\` continuation, so the shell ends the command started "
                   f"at line {start_line} here; nothing after it is passed to vLLM")
        self.findings.append(Finding("VP101", msg, loc))
        self.found[-1].findings.append(Finding("VP101", msg, loc))

    def run_command(self, cmd: Command, origin) -> None:
        words = list(cmd.words)
        while words and words[0].literal() in SKIP_KEYWORDS:
            words.pop(0)
        if not words or words[0].literal() in HEADER_KEYWORDS:
            return
        assigns: list[Word] = []
        while words and _is_assignment(words[0]):
            assigns.append(words.pop(0))
        if not words:
            for a in assigns:
                self.assign(a, origin, export=False)
            return
        prefix_env = []
        for a in assigns:
            name, _plus, value = self._assignment_value(a, origin)
            if value is not None and not isinstance(value, list):
                prefix_env.append((name, value))
        expanded: list[TWord] = []
        for w in words:
            expanded.extend(self.expand(w, origin))
        self.exec_words(expanded, prefix_env, origin.location(cmd.start), origin)

    # ---------------------------------------------------------- commands
    def exec_words(self, words: list[TWord], prefix_env: list[tuple[str, Text]], loc: Location | None,
                   origin=None) -> None:
        """Run one simple command given as words (also used for Kubernetes exec-form)."""
        if not words:
            return
        first = literal(words[0].text)
        if first in ("export", "declare", "typeset", "local", "readonly"):
            self._declare(first, words[1:], origin)
            return
        if first == "unset":
            for w in words[1:]:
                name = literal(w.text)
                if name:
                    self.vars.pop(name, None)
                    self.exported.discard(name)
            return
        if first == "set":
            texts = [literal(w.text) for w in words[1:]]
            if "--" in texts:
                self.positional = [w.text for w in words[1 + texts.index("--") + 1:]]
                _bounded_list(self.positional, loc)
            return
        if first == "shift":
            n = literal(words[1].text) if len(words) > 1 else "1"
            try:
                self.positional = self.positional[int(n or "1"):]
            except ValueError:
                pass
            return
        if first in ("source", "."):
            self._source(words[1:], words[0].loc or loc)
            return
        if first in ("cd", "exit", "return", "sleep", "wait", "trap", "ulimit", "umask"):
            return
        if first is not None and basename(first) in NOT_SERVERS:
            return
        plain = [literal(w.text) for w in words]
        span = program_prefix(plain)
        # look through wrappers up to a shell, `eval` or a container runtime before the server
        for i, pw in enumerate(plain[:span[0] if span else len(plain)]):
            if pw is None:
                continue
            b = basename(pw)
            if b == "eval" and (i == 0 or plain[i - 1] in ("exec", "command", "builtin", "nohup")):
                self._eval(words[i + 1:], words[i].loc or loc)
                return
            if b in SHELLS and self._shell_c(words[i + 1:], words[i].loc or loc):
                return
            if b in ("docker", "podman", "nerdctl") and "run" in plain[i + 1:i + 4]:
                self._container_run(words[i + 1:], loc)
                return
        if span is None:
            return
        start, length = span
        server_words = words[start:]
        if plain[start + length - 1] == "serve" and length > 2:  # python -m vllm.entrypoints.cli.main serve
            server_words = [TWord(lit("vllm"), words[start].loc), TWord(lit("serve"), words[start].loc)] + words[start + length:]
            length = 2
        elif length > 3:  # python -u -m MODULE: the interpreter's own options do not matter
            server_words = [words[start], TWord(lit("-m"), words[start].loc),
                            words[start + length - 1]] + words[start + length:]
            length = 3
        env_words = []
        in_env = True  # leading K=V words, and those right after `env [-i] [-u NAME]`
        skip = False
        for k, pw in enumerate(plain[:start]):  # K=V words among the wrappers
            if skip:
                skip = False
                continue
            m = _ASSIGN.match(pw) if pw else None
            if m and not m.group(2) and in_env:
                env_words.append((m.group(1), _after_eq(words[k].text)))
            elif pw in ("env", "exec", "command"):
                in_env = True
            elif in_env and pw in ("-i", "--ignore-environment", "-0"):
                pass
            elif in_env and pw in ("-u", "--unset"):
                skip = True
            else:
                in_env = False
        env = self.exported_env() + list(prefix_env) + [e for e in env_words if e not in prefix_env]
        self._add(Found(server_words, length, env, server_words[0].loc or loc))

    def exported_env(self) -> list[tuple[str, Text]]:
        out = []
        for name in sorted(self.exported):
            value = self.lookup(name)
            if value is None:
                continue
            if isinstance(value, list):
                value = value[0] if value else ()
            out.append((name, value))
        return out

    def _declare(self, builtin: str, words: list[TWord], origin) -> None:
        export = builtin == "export"
        for w in words:
            text = literal(w.text)
            if text is not None and text.startswith("-"):
                if "x" in text:
                    export = True
                continue
            m = _ASSIGN.match(text) if text is not None else None
            if m is None and w.text and isinstance(w.text[0], Lit):
                m = _ASSIGN.match(w.text[0].text)
            if m:
                name, plus = m.group(1), m.group(2)
                value = _after_eq(w.text)
                if name not in self.pins:
                    old = self.vars.get(name)
                    if plus and isinstance(old, tuple):
                        value = concat(old, value)
                        if text_size(value) > limits.MAX_VALUE_CHARS or len(value) > limits.MAX_VALUE_PIECES:
                            _too_complex(f"`{name}` grows past {limits.MAX_VALUE_CHARS >> 20} MiB", w.loc)
                    self.vars[name] = value
                if export:
                    self.exported.add(name)
            elif text and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text) and export:
                self.exported.add(text)

    def _eval(self, words: list[TWord], loc: Location | None) -> None:
        if self.depth >= MAX_DEPTH or not words:
            return
        joined: list = []
        for k, w in enumerate(words):
            if k:
                joined.append(Lit(" "))
            joined.extend(w.text)
        origin = RelexOrigin(tuple(joined), loc)
        before = len(self.found)
        self.depth += 1
        try:
            self.run_text(origin.flat, origin, fallback=loc)
        finally:
            self.depth -= 1
        if len(self.found) == before and origin.syms:
            shown = source_of(tuple(joined))
            self.note("VP122", f"`eval {shown[:80]}` runs a value not known here; a server it starts is not checked", loc)

    def _shell_c(self, words: list[TWord], loc: Location | None) -> bool:
        """`bash [-opts] -c SCRIPT [ARG0 ARGS...]`: run SCRIPT in a child shell."""
        i = 0
        has_c = False
        while i < len(words):
            w = literal(words[i].text)
            if w is None:
                break
            if w == "--":
                i += 1
                break
            if w in ("-o", "+o", "-O", "+O"):
                i += 2
                continue
            if len(w) > 1 and w[0] in "-+" and w[1] != "-":
                has_c = has_c or "c" in w[1:]
                i += 1
                continue
            if w.startswith("--"):
                i += 1
                continue
            break
        if not has_c or i >= len(words) or self.depth >= MAX_DEPTH:
            return False
        script = words[i]
        rest = words[i + 1:]
        child = Shell(pins=self.pins, env=dict(self.exported_env()), positional=[w.text for w in rest[1:]],
                      arg0=rest[0].text if rest else lit("bash"), depth=self.depth + 1, results=self,
                      runtime={k: v for k, v in self.runtime.items() if k not in self.vars})
        origin = RelexOrigin(script.text, script.loc or loc)
        child.run_text(origin.flat, origin, fallback=script.loc or loc)
        return True

    def _container_run(self, words: list[TWord], loc: Location | None) -> None:
        plain = [literal(w.text) for w in words]
        try:
            i = plain.index("run") + 1
        except ValueError:
            return
        cenv: list[tuple[str, Text]] = []
        while i < len(plain):
            w = plain[i]
            if w is None:
                i += 1
                continue
            if not w.startswith("-"):
                break
            name, eq, _value = w.partition("=")
            if name in _DOCKER_FLAGS or (not eq and re.fullmatch(r"-[a-zA-Z]{2,}", w)):
                i += 1
                continue
            if name in ("-e", "--env"):
                val_text = _after_eq(words[i].text) if eq else (words[i + 1].text if i + 1 < len(words) else ())
                vs = literal(val_text)
                m = _ASSIGN.match(vs) if vs else None
                if m is None and val_text and isinstance(val_text[0], Lit):
                    m = _ASSIGN.match(val_text[0].text)
                if m:
                    cenv.append((m.group(1), _after_eq(val_text)))
            i += 1 if eq else 2
        if i >= len(words):
            return
        image = literal(words[i].text)
        if image is None or not is_vllm_image(image):
            return
        rest = words[i + 1:]
        span = program_prefix([literal(w.text) for w in rest])
        if span is not None and span[0] == 0:
            server_words, length = rest, span[1]
        else:
            head, note = image_entrypoint(rest, words[i].loc)
            server_words, length = head + rest, len(head)
            if note not in self.assumptions:
                self.assumptions.append(note)
        self._add(Found(server_words, length, cenv, words[i].loc or loc, image=image, image_loc=words[i].loc))

    def _add(self, found: Found) -> None:
        """One more server; past the file's limit (load.limits) the input is too complex."""
        from vllm_preflight.load import limits

        if len(self.found) >= limits.max_servers():
            raise ScriptError(limits.servers_message(limits.max_servers()), found.loc)
        found.read_files = tuple(self.read_files)
        self.found.append(found)

    # ------------------------------------------------------------ expansion
    def lookup(self, name: str, index: str | None = None):
        if name in self.pins:
            value: object = lit(self.pins[name])
        elif name in self.vars:
            value = self.vars[name]
        else:
            return None
        if isinstance(value, list):
            if index in ("@", "*"):
                return value
            if index is None:
                return value[0] if value else ()
            try:
                k = int(index)
                return value[k] if -len(value) <= k < len(value) else ()
            except ValueError:
                return None
        if index in ("@", "*"):
            return [value]
        if index not in (None, "0"):
            return ()
        return value

    def expand(self, word: Word, origin, *, split: bool = True) -> list[TWord]:
        fields: list[list] = []
        cur: list = []
        started = False
        for part in word.parts:
            if part.kind == "lit":
                if part.quoted or part.text:
                    started = True
                cur.extend(self._lits(part.text, origin, part.start))
                continue
            value = self.value(part, origin)
            if isinstance(value, list):
                if part.quoted:
                    for k, v in enumerate(value):
                        if k:
                            fields.append(cur)
                            cur = []
                        cur.extend(v)
                        started = True
                    continue
                for k, v in enumerate(value):
                    if k and (cur or started):
                        fields.append(cur)
                        cur, started = [], False
                    cur, started = self._split_into(v, fields, cur, started)
                continue
            if part.quoted or not split:
                cur.extend(value)
                started = True
            else:
                cur, started = self._split_into(value, fields, cur, started)
        if cur or started:
            fields.append(cur)
        self._bounded(fields, origin.location(word.start))
        out = []
        for f in fields:
            text = concat(tuple(f))
            out.append(TWord(text, location_of(text) or origin.location(word.start)))
        if (len(word.parts) == 1 and word.parts[0].kind == "var" and not word.parts[0].quoted
                and len(out) == 1 and len(out[0].text) == 1 and isinstance(out[0].text[0], Sym)
                and out[0].text[0].kind == "var"):
            out[0] = replace(out[0], fields=True)
        return out

    def _bounded(self, fields: list, loc: Location | None) -> None:
        """Stop an input whose expansions grow past load.limits (`A="$A$A"` forty times)."""
        pieces = sum(len(f) for f in fields)
        self.steps[0] += pieces + 1
        if self.steps[0] > limits.MAX_EXPANSION_STEPS:
            _too_complex(f"more than {limits.MAX_EXPANSION_STEPS} expansion steps", loc)
        if pieces > limits.MAX_VALUE_PIECES:
            _too_complex(f"a word expands to more than {limits.MAX_VALUE_PIECES} pieces", loc)
        for f in fields:
            if text_size(f) > limits.MAX_VALUE_CHARS:
                _too_complex(f"a word expands to more than {limits.MAX_VALUE_CHARS >> 20} MiB", loc)

    @staticmethod
    def _split_into(value: Text, fields: list, cur: list, started: bool):
        lead, pieces, trail = split_fields(value)
        if lead and (cur or started):
            fields.append(cur)
            cur, started = [], False
        for k, piece in enumerate(pieces):
            if k:
                fields.append(cur)
                cur = []
            cur.extend(piece)
            started = True
        if trail and pieces:
            fields.append(cur)
            cur, started = [], False
        return cur, started

    def expand_scalar(self, word: Word | None, origin) -> Text:
        if word is None:
            return ()
        out: list = []
        for tw in self.expand(word, origin, split=False):
            out.extend(tw.text)
        return concat(tuple(out))

    @staticmethod
    def _lits(text: str, origin, start: int) -> list:
        if PLACE_OPEN in text and isinstance(origin, RelexOrigin):
            out: list = []
            pos = 0
            for m in _PLACEHOLDER.finditer(text):
                if m.start() > pos:
                    out.append(Lit(text[pos:m.start()], origin, start + pos))
                k = int(m.group(1))
                if k < len(origin.syms):
                    out.append(origin.syms[k])
                pos = m.end()
            if pos < len(text):
                out.append(Lit(text[pos:], origin, start + pos))
            return out
        return [Lit(text, origin, start)] if text else []

    def value(self, part, origin):
        loc = origin.location(part.start)
        if part.kind == "arith":
            return self.arith(part, loc)
        if part.kind == "cmd":
            return (Sym("opaque", part.source, part.source, loc=loc),)
        name, op = part.text, part.op
        if op == "other":
            return (Sym("opaque", part.source, part.source, loc=loc),)
        if name in ("@", "*"):
            if name == "*" and part.quoted:
                joined: list = []
                for k, v in enumerate(self.positional):
                    if k:
                        joined.append(Lit(" "))
                    joined.extend(v)
                return tuple(joined)
            return list(self.positional)
        if name == "#":
            return lit(str(len(self.positional)))
        if name == "0":
            return self.arg0
        if name.isdigit():
            k = int(name)
            return self.positional[k - 1] if k - 1 < len(self.positional) else ()
        if name in "?$!-":
            return (Sym("opaque", part.source, part.source, loc=loc),)
        val = self.lookup(name, part.index)
        is_empty = val is not None and not isinstance(val, list) and len(val) == 0
        if op in (":-", "-", ":=", "="):
            if val is None or (op[0] == ":" and is_empty):
                default = self.expand_scalar(part.operand, origin)
                if val is None and name in self.runtime:
                    self._assume(name, default, f"{self.runtime[name]}; resolved with the default in `{part.source}`")
                elif val is None:
                    self._assume(name, default, f"not set in the input; the default in `{part.source}`")
                if op.endswith("="):
                    self.vars[name] = default
                return default
            return val
        if op in (":+", "+"):
            if val is None or (op == ":+" and is_empty):
                if val is None:
                    self._assume(name, "", f"not set in the input, so `{part.source}` is empty")
                return ()
            return self.expand_scalar(part.operand, origin)
        if val is None:
            return (Sym("var", name, part.source, loc=loc),)
        return val

    def _assume(self, name: str, value, source: str) -> None:
        shown = value if isinstance(value, str) else source_of(value)
        a = Assumption(name, shown, source)
        if a not in self.assumptions:
            self.assumptions.append(a)

    def _arith_text(self, text: str, loc: Location | None) -> str | None:
        """The expression with its `$X`/`${X:-d}` expansions done (names kept for unknowns)."""
        if "$" not in text:
            return text
        from vllm_preflight.load.shell_words import _Lexer

        lexer = _Lexer(text + '"')
        parts: list = []
        try:
            lexer._double_quoted(parts)
        except ShellSyntaxError:
            return None
        pieces = []
        for p in parts:
            if p.kind == "lit":
                pieces.append(p.text)
                continue
            v = self.value(p, FixedOrigin(loc))
            if isinstance(v, list):
                v = v[0] if v else ()
            lit_text = literal(v)
            if lit_text is not None:
                pieces.append(lit_text if lit_text.strip() else "0")
            elif len(v) == 1 and isinstance(v[0], Sym) and v[0].kind == "var":
                pieces.append(v[0].name)
            elif len(v) == 1 and isinstance(v[0], Sym) and v[0].kind == "arith":
                pieces.append("(" + render_expr(v[0].expr) + ")")
            else:
                return None
        return "".join(pieces)

    def arith(self, part, loc: Location | None) -> Text:
        opaque = (Sym("opaque", part.source, part.source, loc=loc),)
        text = self._arith_text(part.text, loc)
        if text is None:
            return opaque
        try:
            tree = parse_arith(text)
        except ArithError:
            return opaque
        values: dict = {}
        for n in set(expr_names(tree)):
            v = self.lookup(n)
            if v is None:
                continue
            if isinstance(v, list):
                v = v[0] if v else ()
            s = literal(v)
            if s is not None:
                s = s.strip()
                if not s:
                    values[n] = 0
                    continue
                try:
                    values[n] = int(s)
                except ValueError:
                    return opaque
            elif len(v) == 1 and isinstance(v[0], Sym) and v[0].kind == "var":
                values[n] = ("var", v[0].name)
            elif len(v) == 1 and isinstance(v[0], Sym) and v[0].kind == "arith":
                values[n] = v[0].expr
            else:
                return opaque
        tree = substitute(tree, values)
        if not expr_names(tree):
            try:
                return lit(str(evaluate(tree, {})))
            except ArithError:
                return opaque
        return (Sym("arith", render_expr(tree), part.source, tree, loc=loc),)

    # ----------------------------------------------------------- assignments
    def _assignment_value(self, word: Word, origin):
        first = word.parts[0]
        m = _ASSIGN.match(first.text)
        if m is None:  # callers pass assignment words only
            raise ValueError(f"not an assignment: {first.text!r}")
        name, plus = m.group(1), m.group(2)
        if word.array is not None:
            values: list[Text] = []
            for element in word.array:
                values.extend(tw.text for tw in self.expand(element, origin))
            return name, plus, values
        rest_text = first.text[m.end():]
        from vllm_preflight.load.shell_words import Part

        parts = ([Part("lit", rest_text, first.quoted, first.start + m.end(), source=rest_text)] if rest_text else [])
        parts += word.parts[1:]
        value = self.expand_scalar(Word(parts, word.start, word.end), origin) if parts else ()
        return name, plus, value

    def assign(self, word: Word, origin, export: bool) -> None:
        name, plus, value = self._assignment_value(word, origin)
        if name in self.pins:
            return
        old = self.vars.get(name)
        if plus:
            if isinstance(value, list):
                value = (old if isinstance(old, list) else ([old] if old else [])) + value
            elif isinstance(old, tuple):
                value = concat(old, value)
        loc = origin.location(word.start)
        if isinstance(value, list):
            _bounded_list(value, loc)
        elif text_size(value) > limits.MAX_VALUE_CHARS or len(value) > limits.MAX_VALUE_PIECES:
            _too_complex(f"`{name}` grows past {limits.MAX_VALUE_CHARS >> 20} MiB", loc)
        self.vars[name] = value
        if export:
            self.exported.add(name)


def text_size(text) -> int:
    """Characters a Text stands for (symbols as their source)."""
    return sum(len(s.text) if isinstance(s, Lit) else len(s.source) for s in text)


def _too_complex(what: str, loc: Location | None):
    from vllm_preflight.errors import InputError, InputFailure

    raise InputFailure(InputError(loc.file if loc else "<input>", limits.too_complex(what), loc))


def _bounded_list(values: list, loc: Location | None) -> None:
    if len(values) > limits.MAX_VALUE_PIECES or sum(len(v) for v in values) > limits.MAX_VALUE_PIECES:
        _too_complex(f"an array grows past {limits.MAX_VALUE_PIECES} elements", loc)


class _Shifted:
    """Offsets in a part of a text (a here-document body) mapped back to the whole."""

    def __init__(self, origin, base: int):
        self.origin, self.base = origin, base

    def location(self, offset: int) -> Location | None:
        return self.origin.location(self.base + offset)


class ScriptError(Exception):
    def __init__(self, message: str, loc: Location | None):
        super().__init__(message)
        self.message = message
        self.loc = loc


def _is_assignment(word: Word) -> bool:
    if not word.parts or word.parts[0].kind != "lit" or word.parts[0].quoted:
        return False
    return _ASSIGN.match(word.parts[0].text) is not None


def _after_eq(text: Text) -> Text:
    """The value part of a `NAME=value` Text."""
    out: list = []
    seen = False
    for s in text:
        if seen:
            out.append(s)
        elif isinstance(s, Lit) and "=" in s.text:
            k = s.text.index("=")
            if k + 1 < len(s.text):
                out.append(s.cut(k + 1))
            seen = True
    return tuple(out)


# --------------------------------------------------------------- images
_IMAGE = re.compile(r"^(?:(?P<registry>[^/]+\.[^/]+|localhost(?::\d+)?)/)?(?P<repo>[^:@]+)(?::(?P<tag>[^@]+))?(?:@.+)?$")
_NOT_SERVER_IMAGE = re.compile(r"router|sidecar|proxy|bench|gateway|scheduler|epp|operator|client")
# a PEP 440 version (pre/post/dev parts too: `v0.11.0rc1`, `v0.13.0.post1`), then the end or a
# build suffix (`-cu126`); api.choose_release maps it to the release it belongs to
_VERSION_TAG = re.compile(r"^v?(\d+\.\d+(?:\.\d+){0,2}(?:(?:a|b|rc|\.post|\.dev)\d+)*)(?:$|[-+_])")


def image_entrypoint(args: list[TWord], loc: Location | None) -> tuple[list[TWord], Assumption]:
    """The program a vLLM image runs before its args.

    vllm/vllm-openai's entrypoint moved from `python3 -m vllm.entrypoints.openai.api_server`
    to `vllm serve`; args that name the model with `--model` were written for the former,
    a positional model for the latter, so the args choose.
    """
    first = literal(args[0].text) if args else None
    if first is not None and first.startswith("-"):
        head = [TWord(lit("python3"), loc), TWord(lit("-m"), loc), TWord(lit(SERVER_MODULES[0]), loc)]
        return head, Assumption("entrypoint", "python3 -m " + SERVER_MODULES[0],
                                "the image's entrypoint, for args that start with a flag (`--model ...`)")
    head = [TWord(lit("vllm"), loc), TWord(lit("serve"), loc)]
    return head, Assumption("entrypoint", "vllm serve", "the image's entrypoint, for args that start with the model")


def is_vllm_image(image: str) -> bool:
    """An image whose entrypoint is the vLLM server (vllm/vllm-openai and its builds)."""
    m = _IMAGE.match(image.strip())
    if not m:
        return False
    last = m.group("repo").rsplit("/", 1)[-1].lower()
    return last.startswith("vllm") and not _NOT_SERVER_IMAGE.search(last)


def image_version(image: str) -> str | None:
    """The vLLM version in an upstream vLLM image tag (`vllm/vllm-openai:v0.22.1`), else None.

    Only images of the vLLM project (Docker Hub `vllm/...` or a mirror of `vllm-openai`)
    carry vLLM versions; tags of other products (llm-d, RHAIIS, ROCm builds) do not.
    """
    m = _IMAGE.match(image.strip())
    if not m or not m.group("tag"):
        return None
    repo = m.group("repo").lower()
    registry = (m.group("registry") or "docker.io").lower()
    upstream = (registry in ("docker.io", "index.docker.io", "registry-1.docker.io") and repo.startswith("vllm/")) \
        or repo.rsplit("/", 1)[-1] in ("vllm-openai", "vllm-openai-rocm", "vllm-tpu", "vllm-cpu")
    if not upstream:
        return None
    v = _VERSION_TAG.match(m.group("tag"))
    return v.group(1) if v else None
