"""Finding vLLM servers in shell scripts, the way the shell would run them.

The interpreter follows a script line by line without running anything: variables and
`export`s (container env included) feed later expansions, arrays and `eval` are followed,
`bash -c SCRIPT ARGS...` runs a nested script with `$@`, wrappers (`exec`, `env K=V`,
`numactl ...`, `nsys profile ...`, `docker run IMAGE ...`) are looked through. Control flow
is not evaluated: a server in either branch of an `if` is found. Unknown values stay
symbols (`load.symbols`). Expansion is `load.shell_expand`; images and their entrypoints
`load.images`.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vllm_preflight.findings import Finding
from vllm_preflight.load import limits
from vllm_preflight.load.images import SERVER_MODULES, image_entrypoint, image_version, is_vllm_image
from vllm_preflight.load.shell_expand import (
    PLACE_CLOSE,
    PLACE_OPEN,
    CommandAborted,
    Expansion,
    FixedOrigin,
    RelexOrigin,
    TWord,
    _bounded_list,
    _too_complex,
    text_size,
)
from vllm_preflight.load.shell_flow import Block, both, either, structure, test_value
from vllm_preflight.load.shell_words import Command, Part, ShellSyntaxError, Word, lex
from vllm_preflight.load.symbols import Lit, Text, concat, lit, literal, source_of
from vllm_preflight.model import Assumption, Location

# re-exported: other loaders and tests import these from here
__all__ = ["PLACE_CLOSE", "PLACE_OPEN", "FixedOrigin", "Found", "RelexOrigin", "ScriptError", "Shell", "TWord",
           "basename", "image_entrypoint", "image_version", "is_vllm_image", "program_prefix", "text_size"]

_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=")
CLI_MODULE = "vllm.entrypoints.cli.main"
SHELLS = ("bash", "sh", "zsh", "dash", "ksh", "ash")
SKIP_KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}",
                 "time", "esac", "in"}
HEADER_KEYWORDS = {"for", "case", "select", "function"}
NOT_SERVERS = {"echo", "printf", "grep", "egrep", "fgrep", "pgrep", "pkill", "kill", "killall", "which",
               "type", "cat", "tee", "sed", "awk", "curl", "wget", "test", "[", "[[", "ps", "man",
               "pip", "uv pip", "git", "read", "logger", "jq", "yq", "wc", "head", "tail"}
MAX_DEPTH = 8
MAX_LOOP = 64  # a `for` over more known words is read once, as one with unknown words is
COMMAND_STEPS = 256  # what running one command again costs in the expansion budget (load.limits)
# programs that run the rest of their words as a command (`nohup vllm serve ...`, `srun -N 2 vllm
# serve ...`). Server words behind any other program are that program's arguments, never a command
# that runs: prose read as a script ("Then run vllm serve ...") starts no server.
WRAPPERS = frozenset({
    "exec", "env", "command", "builtin", "nohup", "time", "timeout", "nice", "ionice", "numactl", "taskset",
    "stdbuf", "sudo", "doas", "setsid", "chrt", "nsys", "ncu", "srun", "salloc", "mpirun", "mpiexec", "orterun",
    "uv", "uvx", "conda", "mamba", "micromamba", "pixi", "poetry", "pipenv", "hatch", "apptainer", "singularity",
    "docker", "podman", "nerdctl", "kubectl", "ray", "xargs", "strace", "ltrace", "valgrind", "gdb", "py-spy",
    "perf", "dumb-init", "tini", "catatonit", "unbuffer", "screen", "ssh", "flock", "runuser", "systemd-run",
    "prlimit", "gosu", "su-exec", "chroot", "opentelemetry-instrument", "ddtrace-run", "bsub", "pdsh", "clush",
    "caffeinate", "watch", "parallel", "with-contenv", "s6-setuidgid", "chpst",
})
# programs that take the command as one string: (program, subcommands or None, option naming it or None)
STRING_COMMANDS = {
    "tmux": ({"new", "new-session", "new-window", "neww", "split-window", "splitw", "respawn-pane", "send-keys",
              "send"}, None),
    "sbatch": (None, "--wrap"),
    "su": (None, "-c"),
    "script": (None, "-c"),
}
# docker/podman run options that take no value
_DOCKER_FLAGS = {"--rm", "-d", "--detach", "-i", "--interactive", "-t", "--tty", "-it", "-ti", "-itd",
                 "--privileged", "--init", "-P", "--publish-all", "--read-only", "--sig-proxy",
                 "--no-healthcheck", "-q", "--quiet", "--oom-kill-disable"}


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
    assumptions: list[Assumption] = field(default_factory=list)  # about this server alone
    node_facts: list[tuple[str, bool]] = field(default_factory=list)  # optional packages known on its node


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


class Shell(Expansion):
    """One shell's state while a script is read; results are shared with nested shells."""

    def __init__(self, *, pins: dict[str, str] | None = None, env: Mapping[str, Text | list[Text]] | None = None,
                 positional: list[Text] | None = None, arg0: Text = (), depth: int = 0,
                 results: Shell | None = None, runtime: dict[str, str] | None = None):
        self.pins = dict(pins or {})
        # variables set when the deployment runs, value unknown here: name -> who sets it
        self.runtime = dict(runtime or {})
        self.vars: dict[str, Text | list[Text]] = dict(env or {})  # arrays are lists
        self.exported: set[str] = set(env or {})
        # a script's own arguments: `--assume 1=A --assume 2=B` runs it as `script A B`
        self.positional = list(positional) if positional is not None else _pinned_args(self.pins)
        self.arg0 = arg0
        self.depth = depth
        self.placeholders = False  # Markdown: `<name>` is an unknown value (load.markdown)
        self.functions: dict[str, tuple[_Run, Block]] = {}  # functions defined so far
        self.tainted: set[str] = set()  # variables assigned from values the environment may change
        self.looping = 0  # loops being run (`break` and `continue` end a pass of the innermost)
        if results is None:
            self.found: list[Found] = []
            self.assumptions: list[Assumption] = []
            self.findings: list[Finding] = []
            self.steps = [0]  # pieces expanded so far, over every nested shell (load.limits)
            self.notes: list[Finding] = []  # what the script does that the tool does not follow
            self.sourcing: set[str] = set()  # files being sourced (a loop is not followed)
            self.read_files: list[str] = []  # sourced files read (as locations name them)
            self.node: dict[str, Assumption] = {}  # what the script shows about the node (`ray start`: ray)
        else:
            self.found, self.assumptions, self.findings = results.found, results.assumptions, results.findings
            self.steps, self.notes, self.sourcing = results.steps, results.notes, results.sourcing
            self.read_files = results.read_files
            self.node = results.node
        # bash's default IFS: `vllm${IFS}serve` is two words, as in the shell
        self.vars.setdefault("IFS", lit(" \t\n"))

    # -------------------------------------------------------------- scripts
    def run_text(self, text: str, origin, *, fallback: Location | None = None) -> None:
        """Lex and run a script; a syntax error becomes ShellSyntaxError with a Location."""
        try:
            script = lex(text, self.placeholders)
        except ShellSyntaxError as e:
            raise ScriptError(e.message, origin.location(e.offset) or fallback) from None
        cmds = script.commands
        run = _Run(cmds, text, origin, structure(cmds))
        self._run_range(run, 0, len(cmds))

    def _run_one(self, run: _Run, idx: int) -> None:
        cmds = run.cmds
        if idx in run.fed:
            return
        cmd = cmds[idx]
        if cmd.heredoc is not None and self._heredoc(cmds, idx, run.text, run.origin, run.fed):
            return
        before = len(self.found)
        self.run_command(cmd, run.origin)
        if cmd.comment_after_continuation is not None and len(self.found) > before:
            self._comment_finding(cmds, idx, run.origin)
        if cmd.escaped_break is not None and len(self.found) > before:
            self._escaped_break_finding(cmds, idx, run.origin)

    def _run_range(self, run: _Run, a: int, b: int) -> None:
        """Run commands a..b-1, compound commands as bash would where their values are known."""
        i = a
        while i < b:
            block = run.blocks.get(i)
            if block is not None and block.end < b:
                i = self._run_block(run, block)
                continue
            self._run_one(run, i)
            i += 1

    def _run_block(self, run: _Run, block: Block) -> int:
        """Run one compound command; the index after it."""
        after = block.end + 1
        if block.kind == "function":
            self.functions[block.name] = (run, block)
            return after
        if block.kind == "if":
            clauses = block.clauses
            for k, (kw, first, then) in enumerate(clauses):
                end = clauses[k + 1][1] if k + 1 < len(clauses) else block.end
                value = True if kw == "else" else self._condition(run, first, then)
                if value is False:
                    continue
                self._run_range(run, then, end)
                if value is True:
                    break
            return after
        if block.kind in ("while", "until"):
            for _ in range(MAX_LOOP):
                value = self._condition(run, block.start, block.body)
                if block.kind == "until" and value is not None:
                    value = not value
                if value is False:
                    break
                before = self._state()
                if not self._loop_body(run, block) or value is None or self._state() == before:
                    break  # unknown, or nothing changes: the servers it starts, not how often
            return after
        if block.kind == "for":
            header = _after_keyword(run.cmds[block.start], ("for", "select"))
            items = self._for_items(header, run.origin)
            name = header[0].literal() if header else None
            if items is None or name is None:
                self._loop_body(run, block)
                return after
            for item in items[:MAX_LOOP]:
                self.vars[name] = item
                self.tainted.discard(name)
                if not self._loop_body(run, block):
                    break
            return after
        if block.kind == "case":
            self._run_case(run, block)
            return after
        return block.start + 1

    def _loop_body(self, run: _Run, block: Block) -> bool:
        """One pass of a loop's body; False when it ran `break`."""
        self._charge(run, block)
        self.looping += 1
        try:
            self._run_range(run, block.body, block.end)
        except _Break:
            return False
        except _Continue:
            pass
        finally:
            self.looping -= 1
        return True

    def _charge(self, run: _Run, block: Block) -> None:
        """Commands run again (a loop's pass, a function call) count against the input's
        expansion budget (load.limits): nested calls cannot multiply the work without end."""
        self.steps[0] += COMMAND_STEPS * max(block.end - block.body, 1)
        if self.steps[0] > limits.MAX_EXPANSION_STEPS:
            _too_complex(f"more than {limits.MAX_EXPANSION_STEPS} expansion steps (a command run again by a loop "
                         f"or a function call counts {COMMAND_STEPS})", run.origin.location(run.cmds[block.start].start))

    def _state(self) -> tuple:
        return tuple(self.positional), tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                                                    for k, v in self.vars.items()))

    def _condition(self, run: _Run, a: int, b: int) -> bool | None:
        """The value of the condition commands a..b-1 (`if`/`while` list): True or False when
        it is known here, else None (and commands that are not tests are run, as commands)."""
        value: bool | None = None
        joiner = ""
        k = a
        while k < b:
            cmd = run.cmds[k]
            words = list(cmd.words)
            negate = False
            while words and words[0].literal() in ("if", "elif", "while", "until", "!", "then", "do", "else", "{") \
                    and not words[0].is_quoted_anywhere:
                negate ^= words.pop(0).literal() == "!"
            sep = cmd.separator
            head = words[0].literal() if words else None
            if head == "[[" and words[-1].literal() != "]]":  # `[[ a && b ]]`: the lexer split it
                while k + 1 < b and not (run.cmds[k].words and run.cmds[k].words[-1].literal() == "]]"):
                    k += 1
                    words += [Word([Part("lit", run.cmds[k - 1].separator, False, 0)], 0, 0)] + list(run.cmds[k].words)
                sep = run.cmds[k].separator
            v = self._test(words, run.origin, cmd, run)
            if negate and v is not None:
                v = not v
            value = v if joiner not in ("&&", "||") else (both(value, v) if joiner == "&&" else either(value, v))
            joiner = sep
            k += 1
        return value

    def _test(self, words: list[Word], origin, cmd: Command, run: _Run) -> bool | None:
        head = words[0].literal() if words else None
        if head in ("true", ":"):
            return True
        if head == "false":
            return False
        if head == "getopts" and not self.positional:
            return False  # no arguments: the option loop never runs
        if head in ("[", "[[", "test"):
            body = words[1:-1] if head != "test" else words[1:]
            tokens: list[str | None] = []
            self.uncertain = False
            for w in body:
                lit_text = w.literal()
                if lit_text is not None and not w.is_quoted_anywhere and lit_text in ("(", ")", "!", "&&", "||"):
                    tokens.append(lit_text)
                    continue
                try:
                    tokens.append(literal(self.expand_scalar(w, origin)))
                except CommandAborted:
                    return None
            return None if self.uncertain else test_value(tokens)
        if words:  # a command: run it as one; its status is not known here
            self.run_command(Command(words, cmd.start, cmd.end, cmd.separator), origin)
        return None

    def _for_items(self, header: list[Word], origin) -> list[Text] | None:
        """The words a `for NAME in WORDS` runs over (`header`: NAME and what follows), or None
        when they are not all known."""
        words = header[1:]
        if not words or words[0].literal() != "in":
            items: list = list(self.positional)  # `for NAME` alone: "$@"
        else:
            items = []
            for w in words[1:]:
                items += [tw.text for tw in self.expand(w, origin)]
        if any(literal(t) is None for t in items) or len(items) > MAX_LOOP:
            return None
        return items

    def _run_case(self, run: _Run, block: Block) -> None:
        header = _after_keyword(run.cmds[block.start], ("case",))
        self.uncertain = False
        word = literal(self.expand_scalar(header[0], run.origin)) if header else None
        if self.uncertain:  # a word the environment may change: every clause is read
            word = None
        for patterns, body, end in block.clauses:
            if end < 0:
                continue
            if word is not None:
                hit = self._case_match(run, patterns, word, block.start)
                if hit is False:
                    continue
            stop = end + 1 if run.cmds[end].separator in (";;", ";&", ";;&") else end  # `cmd ;;` is in the clause
            self._run_range(run, body, stop)
            if word is not None and hit is True:
                return

    def _case_match(self, run: _Run, patterns: list[int], word: str, start: int) -> bool | None:
        from vllm_preflight.load.shell_expand import _glob

        unknown = False
        for k in patterns:
            words = run.cmds[k].words
            if k == start:  # the header's own command: its pattern words come after `in`
                words = _after_keyword(run.cmds[k], ("in",))
            for w in words:
                text = w.literal() if not w.is_quoted_anywhere else None
                if text is None:
                    value = literal(self.expand_scalar(w, run.origin))
                    if value is None:
                        unknown = True
                        continue
                    if value == word:
                        return True
                    continue
                if re.fullmatch(_glob(text.lstrip("(")), word, re.DOTALL):
                    return True
        return None if unknown else False

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
        # the shell reading stdin may stand behind launchers (`srun bash <<EOF`, `ssh node bash -s <<EOF`)
        k = 0
        if first in WRAPPERS:
            k = next((j for j, w in enumerate(words) if w and basename(w) in SHELLS), 0)
            first = basename(words[k] or "") if k else first
        if first in SHELLS and not any(w and w[:1] == "-" and "c" in w[1:] for w in words[k + 1:]):
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
                      positional=[], depth=self.depth + 1, results=self,
                      runtime={k: v for k, v in self.runtime.items() if k not in self.vars})
        child.exported = set(self.exported)  # the child's environment: what this shell exports
        child.run_text(body, Shifted(origin, start), fallback=loc)
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

    def _orphans(self, cmds: list[Command], idx: int) -> list[Command]:
        """The option-only commands after a command the shell ended too early (they never reach vLLM)."""
        orphans: list[Command] = []
        for nxt in cmds[idx + 1:]:
            first = nxt.words[0].literal() if nxt.words else None
            if first is None or not first.startswith("-"):
                break
            orphans.append(nxt)
            if nxt.comment_after_continuation is None and nxt.escaped_break is None:
                break
        return orphans

    def _escaped_break_finding(self, cmds: list[Command], idx: int, origin) -> None:
        """VP101 (an error: vLLM gets an argument it rejects) for a `\\ #...` or a space after a `\\`."""
        cmd = cmds[idx]
        loc = origin.location(cmd.escaped_break)
        start_loc = origin.location(cmd.start)
        line = loc.line if loc else "?"
        words = " ".join(repr(w.removeprefix("\\")) for w in cmd.escaped_words)
        blank = "a tab" if cmd.escaped_words[0].startswith("\\\t") else "a space"
        what = (f"{blank} follows this `\\`" if cmd.escaped_words[0] in ("\\ ", "\\\t")
                else f"this `\\` is followed by {blank} and `#`")
        msg = (f"{what}, so it escapes the {blank.split()[1]} instead of continuing the line: bash passes {words} to vLLM as "
               f"argument{'s' if len(cmd.escaped_words) > 1 else ''} (vLLM rejects "
               f"{'them' if len(cmd.escaped_words) > 1 else 'it'}: unrecognized arguments) and the command "
               f"started at line {start_loc.line if start_loc else '?'} really ends at line {line}")
        orphans = self._orphans(cmds, idx)
        if orphans:
            rest = " ".join(" ".join(w.literal() or "…" for w in o.words) for o in orphans)
            first, last = origin.location(orphans[0].start), origin.location(orphans[-1].end)
            lines = (f"line {first.line}" if first and last and first.line == last.line
                     else f"lines {first.line if first else '?'}-{last.line if last else '?'}")
            msg += f"; `{rest}` ({lines}) runs as a separate command and never reaches vLLM"
        msg += ". Put the `\\` last on the line, and a comment on a line of its own above the command"
        finding = Finding("VP101", msg, loc, severity="error")
        self.findings.append(finding)
        self.found[-1].findings.append(finding)

    def run_command(self, cmd: Command, origin) -> None:
        try:
            self._run_command(cmd, origin)
        except CommandAborted:
            pass  # bash reports the expansion error and goes on with the next command

    def _run_command(self, cmd: Command, origin) -> None:
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
        self.uncertain = False
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
                k = int(n or "1")
            except ValueError:
                return
            if 0 <= k <= len(self.positional):  # bash: shifting past $# fails and changes nothing
                self.positional = self.positional[k:]
            return
        if first in ("source", "."):
            self._source(words[1:], words[0].loc or loc)
            return
        if first is not None and first in self.functions and self.depth < MAX_DEPTH:
            self._call(first, words[1:])
            return
        if first in ("break", "continue") and self.looping:
            raise _Break() if first == "break" else _Continue()
        if first in ("cd", "exit", "return", "sleep", "wait", "trap", "ulimit", "umask", "break", "continue"):
            return
        if first is not None and basename(first) in NOT_SERVERS:
            return
        plain = [literal(w.text) for w in words]
        if any(p is not None and basename(p) == "ray" and plain[k + 1:k + 2] == ["start"]
               for k, p in enumerate(plain[:-1])):
            self.node["ray"] = Assumption("node.ray", True, "the script starts a Ray node (`ray start`): ray is "
                                                            "installed where its server runs")
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
        if plain and plain[0] is not None and basename(plain[0]) in STRING_COMMANDS:
            self._string_command(words, loc)
            return
        if span is None:
            return
        start, length = span
        if start > 0 and not _runs_a_command(plain[0]):
            return
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
        self.add_server(Found(server_words, length, env, server_words[0].loc or loc,
                        assumptions=list(self.node.values()), node_facts=[(k, True) for k in self.node]))

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
        from_outside = self.uncertain  # its words were expanded from values the environment may change
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
                    if from_outside:
                        self.tainted.add(name)
                    else:
                        self.tainted.discard(name)
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

    def _call(self, name: str, args: list[TWord]) -> None:
        """A function call: its body runs here with the call's words as `$@`."""
        run, block = self.functions[name]
        self._charge(run, block)
        saved = self.positional
        self.positional = [w.text for w in args]
        self.depth += 1
        try:
            first = block.body
            if first == block.start:  # `function f { cmd ...`: the body starts in the header's command
                header = run.cmds[first]
                body = _after_keyword(header, ("{",))
                if body:
                    self.run_command(Command(body, body[0].start, header.end, header.separator), run.origin)
                first += 1
            self._run_range(run, first, block.end + 1)
        finally:
            self.depth -= 1
            self.positional = saved

    def _string_command(self, words: list[TWord], loc: Location | None) -> None:
        """`tmux new-session -d -s NAME "vllm serve ..."`, `sbatch --wrap "..."`, `su -c "..."`:
        the string is a script its shell runs."""
        plain = [literal(w.text) for w in words]
        subcommands, option = STRING_COMMANDS[basename(plain[0] or "")]
        script: TWord | None = None
        if subcommands is not None:
            if not any(p in subcommands for p in plain[1:3]):
                return
            keys = {"Enter", "C-m", "KPEnter", "C-j"}
            script = next((w for w, p in zip(reversed(words), reversed(plain)) if p not in keys), None)
            if script is None or script is words[0] or (literal(script.text) or "").startswith("-"):
                return
        else:
            for k, p in enumerate(plain):
                if p is not None and p.startswith(f"{option}="):
                    script = TWord(_after_eq(words[k].text), words[k].loc)
                elif p == option and k + 1 < len(words):
                    script = words[k + 1]
        if script is None or self.depth >= MAX_DEPTH:
            return
        child = Shell(pins=self.pins, env=dict(self.exported_env()), positional=[], depth=self.depth + 1,
                      results=self, runtime={k: v for k, v in self.runtime.items() if k not in self.vars})
        origin = RelexOrigin(script.text, script.loc or loc)
        child.run_text(origin.flat, origin, fallback=script.loc or loc)

    def _container_run(self, words: list[TWord], loc: Location | None) -> None:
        """`docker run [OPTIONS] IMAGE [ARGS...]`: what the container runs, with its own environment
        (`-e K=V`, `-e K` from this shell); `--entrypoint` replaces the image's program."""
        plain = [literal(w.text) for w in words]
        try:
            i = plain.index("run") + 1
        except ValueError:
            return
        cenv: list[tuple[str, Text]] = []
        entrypoint: TWord | None = None
        while i < len(plain):
            w = plain[i]
            if w is None:
                if not words[i].fields:  # `vllm/vllm-openai:${TAG}`: the image (`$DOCKER_OPTS` alone: options)
                    break
                i += 1
                continue
            if not w.startswith("-"):
                break
            name, eq, _value = w.partition("=")
            if name in _DOCKER_FLAGS or (not eq and re.fullmatch(r"-[a-zA-Z]{2,}", w)):
                i += 1
                continue
            val_text = _after_eq(words[i].text) if eq else (words[i + 1].text if i + 1 < len(words) else ())
            if name in ("-e", "--env"):
                vs = literal(val_text)
                m = _ASSIGN.match(vs) if vs else None
                if m is None and val_text and isinstance(val_text[0], Lit):
                    m = _ASSIGN.match(val_text[0].text)
                if m:
                    cenv.append((m.group(1), _after_eq(val_text)))
                elif vs and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", vs):  # `-e NAME`: this shell's value
                    host = self.lookup(vs)
                    if host is not None and not isinstance(host, list):
                        cenv.append((vs, host))
            elif name == "--entrypoint":
                entrypoint = TWord(val_text, words[i].loc)
            i += 1 if eq else 2
        if i >= len(words):
            return
        image_word = words[i]
        shown = source_of(image_word.text)
        image = literal(image_word.text)
        rest = words[i + 1:]
        if entrypoint is not None:
            program = literal(entrypoint.text)
            # `--entrypoint ""` leaves the args as the command; a shell without -c is interactive
            rest = ([entrypoint] if program != "" else []) + rest
        vllm_image = is_vllm_image(shown)
        span = program_prefix([literal(w.text) for w in rest])
        before = len(self.found)
        if entrypoint is not None or (span is not None and span[0] == 0) or not vllm_image:
            # the container runs a command of its own: read it in the container's environment
            child = Shell(pins=self.pins, env=dict(cenv), positional=[], depth=self.depth + 1, results=self)
            if self.depth < MAX_DEPTH and rest:
                child.exec_words(rest, [], image_word.loc or loc)
        else:
            head, note = image_entrypoint(rest, image_word.loc)
            self.add_server(Found(head + rest, len(head), cenv, image_word.loc or loc, assumptions=[note]))
        for found in self.found[before:]:
            if found.image is None:
                found.image, found.image_loc = image or shown, image_word.loc

    def add_server(self, found: Found) -> None:
        """One more server; past the file's limit (load.limits) the input is too complex."""
        if len(self.found) >= limits.max_servers():
            raise ScriptError(limits.servers_message(limits.max_servers()), found.loc)
        found.read_files = tuple(self.read_files)
        self.found.append(found)

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
        saved, self.uncertain = self.uncertain, False
        name, plus, value = self._assignment_value(word, origin)
        if self.uncertain:
            self.tainted.add(name)
        else:
            self.tainted.discard(name)
        self.uncertain = saved or self.uncertain
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


@dataclass
class _Run:
    """One script being run: its commands, text, origin and compound commands."""

    cmds: list[Command]
    text: str
    origin: Any
    blocks: dict
    fed: set[int] = field(default_factory=set)  # commands whose stdin is a here-document run here


def _after_keyword(cmd: Command, keywords: tuple[str, ...]) -> list[Word]:
    """The words of a compound command's header after its keyword (`do for i in ...`: `i in ...`)."""
    for k, w in enumerate(cmd.words):
        if w.literal() in keywords and not w.is_quoted_anywhere:
            return list(cmd.words[k + 1:])
    return []


class _Break(Exception):
    """`break` in a loop the interpreter runs."""


class _Continue(Exception):
    """`continue` in a loop the interpreter runs."""


class Shifted:
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


def _runs_a_command(word: str | None) -> bool:
    """Whether a command's first word runs the words after it: a known wrapper, a script of the
    user's (a path), or a value not known here (`$LAUNCHER vllm serve ...`)."""
    if word is None:
        return True
    return basename(word) in WRAPPERS or word.startswith(("/", "./", "../", "~/")) or word.endswith(".sh")


def _pinned_args(pins: Mapping[str, str]) -> list[Text]:
    """Pins named 1, 2, ... (consecutive from 1) as the script's arguments."""
    out: list[Text] = []
    while str(len(out) + 1) in pins:
        out.append(lit(pins[str(len(out) + 1)]))
    return out


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

