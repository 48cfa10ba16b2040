"""docker-compose files: the vLLM servers among `services`.

Each service runs its `entrypoint` (when set) or its image's, with its `command`: a string is
split into words the way Compose does (quotes and backslashes, no expansion), a list is the
words. A vLLM image (`vllm/vllm-openai`) runs `vllm serve` (or the api_server module for args
that start with a flag) before the command, as `docker run` does; any other image runs the
command itself, and a `sh -c` script is read by the shell reader. `environment` (a mapping or
`K=V` items) is the container's environment, which such a script sees. Compose's own
interpolation is done first: `$$` is `$`, `${VAR:-default}` / `${VAR-default}` give the default
(the assumption stated), `${VAR:+alt}` and `${VAR?err}` as Compose reads them, and a variable
the file does not set (it comes from the shell or a `.env` file, which is not read) stays an
unknown value, reported under `depends_on` when it matters and pinned with `--assume`.
`env_file`, `extends` and `include` are not read (a finding says so where they matter).
Each server's source is `FILE:services.NAME`.
"""
from __future__ import annotations

import os
import re
from typing import Any

from vllm_preflight.findings import Finding
from vllm_preflight.load import limits
from vllm_preflight.load.images import image_entrypoint, image_version, is_vllm_image, version_source
from vllm_preflight.load.loaded import LoadedDeployment
from vllm_preflight.load.server import build
from vllm_preflight.load.shell import ScriptError, Shell
from vllm_preflight.load.shell_expand import RelexOrigin, TWord
from vllm_preflight.load.shell_words import ShellSyntaxError, lex
from vllm_preflight.load.source import fail
from vllm_preflight.load.symbols import Lit, Sym, Text, lit
from vllm_preflight.load.yaml_marks import YamlDoc
from vllm_preflight.model import Assumption

_DOLLAR = "\ue004"  # a `$` that is text, not an expansion, while a command string is split
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_VAR = re.compile(r"\$(?:(\$)|\{(" + _NAME + r")(?:(:?[-?+])([^{}]*(?:\{[^{}]*\}[^{}]*)*))?\}|(" + _NAME + "))")


def is_compose(data: Any) -> bool:
    """A Compose file: `services` mapping names to service mappings, no Kubernetes `kind`."""
    if not isinstance(data, dict) or "kind" in data or not isinstance(data.get("services"), dict):
        return False
    services = [s for s in data["services"].values() if isinstance(s, dict)]
    return bool(services) and any(k in s for s in services for k in ("image", "build", "command", "entrypoint"))


def interpolate(value: str, origin, pins: dict[str, str] | None, assumptions: list[Assumption],
                base: int = 0) -> Text:
    """Compose's variable interpolation of one string value."""
    out: list = []
    pos = 0
    for m in _VAR.finditer(value):
        if m.start() > pos:
            out.append(Lit(value[pos:m.start()], origin, base + pos))
        pos = m.end()
        if m.group(1):  # `$$`: a literal `$`
            out.append(Lit("$", origin, base + m.start()))
            continue
        name = m.group(2) or m.group(5)
        op, operand = m.group(3), m.group(4) or ""
        known = pins.get(name) if pins else None
        unset_or_empty = known is None or (op is not None and op.startswith(":") and known == "")
        if op in (":-", "-") and (known is None or (op == ":-" and known == "")):
            at = m.start(4) if m.group(4) is not None else m.end()
            default = interpolate(operand, origin, pins, assumptions, base + at)
            shown = "".join(s.text if isinstance(s, Lit) else s.source for s in default)
            a = Assumption(name, shown, f"not set in the input (Compose reads it from the shell or a .env file); "
                                        f"the default in `{m.group(0)}`")
            if a not in assumptions:
                assumptions.append(a)
            out.extend(default)
        elif op in (":+", "+"):
            if known is not None and not (op == ":+" and known == ""):
                out.extend(interpolate(operand, origin, pins, assumptions, base + m.start(4)))
            elif known is None:
                out.append(Sym("var", name, m.group(0), loc=origin.location(base + m.start())))
        elif known is not None and not (op in (":?",) and unset_or_empty):
            out.append(Lit(known))
        else:
            out.append(Sym("var", name, m.group(0), loc=origin.location(base + m.start())))
    if pos < len(value):
        out.append(Lit(value[pos:], origin, base + pos))
    return tuple(out)


def split_command(text: Text, loc) -> list[TWord]:
    """A command string split into words as Compose splits it: quotes and backslashes, no
    expansion (a `$` left after interpolation is text)."""
    protected = tuple(Lit(s.text.replace("$", _DOLLAR), s.origin, s.base) if isinstance(s, Lit) else s for s in text)
    origin = RelexOrigin(protected, loc)
    try:
        script = lex(origin.flat)
    except ShellSyntaxError as e:
        raise ScriptError(f"the command string cannot be split into words: {e.message}",
                          origin.location(e.offset) or loc) from None
    from vllm_preflight.load.shell_expand import Expansion

    words = []
    for cmd in script.commands:
        for w in cmd.words:
            pieces: list = []
            for p in w.parts:
                pieces.extend(Expansion._lits(p.source if p.kind != "lit" else p.text, origin, p.start))
            pieces = [Lit(s.text.replace(_DOLLAR, "$"), s.origin, s.base) if isinstance(s, Lit) else s
                      for s in pieces]
            words.append(TWord(tuple(pieces), origin.location(w.start) or loc))
    return words


def _words(doc: YamlDoc, path: tuple, value: Any, pins, assumptions: list[Assumption]) -> list[TWord] | None:
    """`command` / `entrypoint`: a list of words or a string to split; None when absent."""
    if value is None:
        return None
    loc = doc.location(path)
    if isinstance(value, str):
        return split_command(interpolate(value, doc.scalar_text(path), pins, assumptions), loc)
    if isinstance(value, list):
        out = []
        for k, item in enumerate(value):
            if isinstance(item, (dict, list)) or item is None:
                continue
            text = item if isinstance(item, str) else str(item)
            out.append(TWord(interpolate(text, doc.scalar_text(path + (k,)), pins, assumptions),
                             doc.location(path + (k,))))
        return out
    return None


def _environment(doc: YamlDoc, path: tuple, value: Any, pins, assumptions: list[Assumption]) -> dict[str, Text]:
    """`environment`: `{K: V}` or `[K=V, ...]`; a name alone (or `K:` with no value) comes from
    the shell that runs Compose: unknown here."""
    env: dict[str, Text] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            name = str(k)
            if v is None:
                env[name] = lit(pins[name]) if pins and name in pins else (Sym("var", name, f"${name}"),)
            else:
                text = v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)
                env[name] = interpolate(text, doc.scalar_text(path + (k,)), pins, assumptions)
    elif isinstance(value, list):
        for k, item in enumerate(value):
            if not isinstance(item, str):
                continue
            name, eq, v = item.partition("=")
            if not eq:
                env[name] = lit(pins[name]) if pins and name in pins else (Sym("var", name, f"${name}"),)
            else:
                env[name] = interpolate(v, doc.scalar_text(path + (k,)), pins, assumptions, base=len(name) + 1)
    return env


def service_servers(doc: YamlDoc, name: str, service: dict, variables: dict[str, str] | None
                    ) -> list[LoadedDeployment]:
    spath = ("services", name)
    assumptions: list[Assumption] = []
    findings: list[Finding] = []
    image = service.get("image") if isinstance(service.get("image"), str) else None
    image_text = None
    if image is not None:
        parts = interpolate(image, doc.scalar_text(spath + ("image",)), variables, assumptions)
        image_text = "".join(s.text if isinstance(s, Lit) else s.source for s in parts)
        image = image_text if all(isinstance(s, Lit) for s in parts) else None
    try:
        entrypoint = _words(doc, spath + ("entrypoint",), service.get("entrypoint"), variables, assumptions)
        command = _words(doc, spath + ("command",), service.get("command"), variables, assumptions)
    except ScriptError as e:
        fail(doc.source.path, f"service {name}: {e.message}", e.loc.line if e.loc else None,
             e.loc.column if e.loc else None)
    env = _environment(doc, spath + ("environment",), service.get("environment"), variables, assumptions)
    if service.get("env_file"):
        findings.append(Finding("VP112", "variables from env_file are not read; any vLLM setting they hold is "
                                         "treated as unset", doc.location(spath + ("env_file",))))
    image_loc = doc.location(spath + ("image",)) if "image" in service else doc.location(spath)
    vllm_image = image_text is not None and is_vllm_image(image_text)
    sh = Shell(pins=variables, env=env, positional=[])
    loc = doc.location(spath)
    try:
        if entrypoint:  # `entrypoint: []` or "" clears the image's: the command is the program
            sh.exec_words(entrypoint + (command or []), [], loc)
        elif vllm_image and entrypoint is None:
            head, note = image_entrypoint(command or [], image_loc)
            from vllm_preflight.load.shell import Found

            sh.add_server(Found(head + (command or []), len(head), list(env.items()), image_loc, assumptions=[note]))
        elif command:
            sh.exec_words(command, [], loc)
    except ScriptError as e:
        where = e.loc
        fail(doc.source.path, f"service {name}: {e.message}", where.line if where else None,
             where.column if where else None)
    version = image_version(image) if image else None
    out = []
    for k, found in enumerate(sh.found):
        source = f"{doc.source.path}:services.{name}" + (f"#{k + 1}" if len(sh.found) > 1 else "")
        ver = image_version(found.image) if found.image else version
        vsrc = version_source(found.image or image or "") if ver else None
        d = build(found, source=source, file=doc.source.path,
                  base_dir=os.path.dirname(os.path.abspath(doc.source.path)), fmt="compose",
                  assumptions=assumptions + sh.assumptions, findings=findings + list(sh.notes), vllm_version=ver,
                  version_source=vsrc, version_location=(found.image_loc if found.image else image_loc) if ver else None)
        from dataclasses import replace

        from vllm_preflight.identity import role_in_name

        said = role_in_name(str(name))
        out.append(replace(d, name=f"service {name}",
                           role_hints=((said, f"the service name {name}"),) if said else ()))
    return out


def load_docs(docs: list[YamlDoc], variables: dict[str, str] | None = None) -> list[LoadedDeployment]:
    out: list[LoadedDeployment] = []
    for doc in docs:
        if not is_compose(doc.data):
            continue
        for name, service in doc.data["services"].items():
            if isinstance(service, dict):
                out += service_servers(doc, str(name), service, variables)
                limits.check_servers(len(out), doc.source.path, doc.location(("services", name)))
    return out
