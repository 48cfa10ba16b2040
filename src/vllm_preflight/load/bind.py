"""Finishing a loaded deployment for one release: render its words, bind its symbols.

The binder walks the command as that release's parser would (which word is a flag, which
a flag's value, which the model) to decide what each unresolved symbol stands for:

* a number (the value of an int option, or arithmetic): resolved at the least value its
  expression implies, each unknown variable taken as 1 (`$((X*8))` -> 8), and probed at 2
  and 8;
* one of an option's choices: resolved at the first choice, probed at the others;
* an unknown variable standing where flags go (`vllm serve M $EXTRA_ARGS`): assumed to add
  no flags;
* anything else (a model name, an address): kept as written.

Every such choice is an Assumption and a VP102/VP111 finding. The probes let the caller
resolve the deployment under other values and report `depends_on` (VP103) where the
outcome differs; nothing is guessed silently.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace
from typing import Any, TypeGuard

from vllm_preflight.differences import outcome_differences
from vllm_preflight.findings import Finding
from vllm_preflight.load.loaded import RESOLUTION_ENV, LoadedDeployment
from vllm_preflight.model import Assumption, Deployment, Location

NUMERIC_CONVERTERS = {"int", "opt:int", "hint", "opt:hint", "hint_auto", "opt:hint_auto"}
PROBE_VALUES = (2, 8)


@dataclass
class Word:
    """One rendered command word and its place."""

    text: str
    loc: Location | None
    sublocs: tuple = ()  # ((json path), Location) inside a JSON word
    tag: str = ""  # "config" for words from a --config YAML file
    # (text, Location) of its parts from files the input named (LoadedDeployment.private_files)
    private: tuple = ()


@dataclass
class Bound:
    """A deployment rendered for one release, with its words' places."""

    deployment: Deployment  # argv/env ready for the resolver
    words: list[Word]  # parallel to deployment.argv
    prefix: int
    findings: list[Finding] = field(default_factory=list)
    assumptions: list[Assumption] = field(default_factory=list)
    space: dict = field(default_factory=dict)  # symbol name -> [assumed value, other values...]
    fed: dict = field(default_factory=dict)  # symbol name -> option dests it is a value of
    release: object = None
    release_label: str = ""
    _items: list = field(default_factory=list, repr=False)
    _flag_words: set = field(default_factory=set, repr=False)
    _binding: dict = field(default_factory=dict, repr=False)


# a variable, a model fact, a script argument, a Markdown `<placeholder>`, a template value (`.Values.tp`)
_PINNABLE = re.compile(r"(?:model\.)?[A-Za-z_][A-Za-z0-9_]*|[1-9][0-9]*|<[A-Za-z][A-Za-z0-9_.:/-]*>|"
                       r"[.$][A-Za-z_][A-Za-z0-9_.]*")


def assume_hint(name: str, value: str = "VALUE") -> str | None:
    """`--assume NAME=VALUE`, shell-quoted, for a name `--assume` pins (a shell or Kubernetes
    variable, `model.FACT`); None for anything else, e.g. a command substitution's text, which
    comes from the input and must never be printed as a shell word to paste."""
    if not isinstance(name, str) or not _PINNABLE.fullmatch(name):
        return None
    return "--assume " + shlex.quote(f"{name}={value}")


def pin_text(name: str, value: str = "VALUE") -> str:
    hint = assume_hint(name, value)
    return f"pin it with {hint}" if hint else "its value is only known when the deployment runs (--assume cannot pin it)"


def _lookup(word: str, table):
    name = word.split("=", 1)[0]
    if name in table.options:
        return table.options[name]
    if name.startswith("--"):
        dashed = "--" + name[2:].split(".", 1)[0].replace("_", "-")
        if dashed in table.options:
            return table.options[dashed]
        matches = table.prefixed(dashed)
        if len(matches) == 1:
            return table.options[matches[0]]
    elif name.startswith("-") and "." in name:
        base = name.split(".", 1)[0]
        return table.options.get(base)
    return None


def _is_flag(text: str | None) -> TypeGuard[str]:
    return text is not None and text.startswith("-") and len(text) > 1 and not re.fullmatch(r"-\d+(\.\d+)?", text)


def bind(dep: Deployment, release) -> Bound:
    """Render a (Loaded)Deployment for `release` (a releases.Release)."""
    if not isinstance(dep, LoadedDeployment) or not dep.template:
        words = [Word(w, dep.location if i == 0 else None) for i, w in enumerate(dep.argv)]
        prefix = 3 if len(dep.argv) > 1 and dep.argv[1] == "-m" else 2
        return Bound(dep, words, prefix, release=release, release_label=getattr(release, "label", release.version))
    from vllm_preflight.load.shell import TWord
    from vllm_preflight.load.symbols import Sym, literal, render, render_sym
    from vllm_preflight.load.vllm_yaml import ConfigItem, render_item

    table = release.options
    findings: list[Finding] = []
    # 1. config items become words for this release
    items: list[tuple[TWord | str, Location | None, tuple, str]] = []  # (word, loc, sublocs, tag)
    for t in dep.template:
        if isinstance(t, ConfigItem):
            words_, f = render_item(t, release, table.options)
            findings += f
            repr_ = any(x.rule == "VP106" for x in f)
            items += [(text, loc, subl, "config-repr" if repr_ and k == 1 else "config")
                      for k, (text, loc, subl) in enumerate(words_)]
        else:
            items.append((t, t.loc, (), ""))
    prefix = dep.prefix
    # 2. roles: which symbol is the value of which option
    numeric: dict[str, list[Sym]] = {}
    choices: dict[str, tuple] = {}
    fed: dict[str, set] = {}
    flag_words: set[int] = set()
    first_loc: dict[str, Location | None] = {}
    pending: tuple[Any, int | str] | None = None  # (option, remaining count or "+")
    model_seen = False
    for idx in range(prefix, len(items)):
        t = items[idx][0]
        text = t if isinstance(t, str) else literal(t.text)
        head = text if text is not None else _head_literal(t)
        if pending is not None and not (_is_flag(text) or (text is None and _is_flag(head) and "=" not in (head or ""))):
            opt, left = pending
            _note(t, opt, numeric, choices, fed, first_loc)
            if isinstance(left, str):  # "+": every value word up to the next flag
                continue
            pending = None if left <= 1 else (opt, left - 1)
            continue
        pending = None
        if _is_flag(head):
            opt = _lookup(head, table)
            name_part = head.split("=", 1)[0]
            if opt is not None and "." in name_part:  # `-cc.cudagraph_mode=$MODE`: the field's own domain
                opt = _dotted_field(name_part.rsplit(".", 1)[-1].rstrip("+"), release, opt)
            if opt is not None and opt.takes_value:
                if "=" in head or (text is None and head and head.endswith("=")):
                    _note(t, opt, numeric, choices, fed, first_loc)
                elif opt.nargs in (None, "?"):
                    pending = (opt, 1)
                elif isinstance(opt.nargs, int):
                    pending = (opt, opt.nargs)
                else:
                    pending = (opt, "+")
            elif opt is None and head.startswith("-") and "." in head and "=" not in head:
                pending = (None, 1)  # dotted `-cc.x v` takes the next word
            continue
        if isinstance(t, TWord) and t.fields and text is None and (model_seen or prefix != 2):
            flag_words.add(idx)
            continue
        if isinstance(t, TWord) and text is None:
            for s in t.text:
                if isinstance(s, Sym):
                    first_loc.setdefault(s.name, s.loc)
        model_seen = True
    # 3. the binding: least values for numbers, first choice for choices
    binding: dict[str, object] = {}
    assumptions: list[Assumption] = []
    for name, symlist in sorted(numeric.items()):
        binding[name] = 1
    for name, ch in sorted(choices.items()):
        if name not in binding and ch:
            binding[name] = ch[0]
    str_binding = {k: str(v) for k, v in binding.items()}
    for name, symlist in sorted(numeric.items()):
        sym = symlist[0]
        if sym.kind == "arith":
            least = render_sym(sym, str_binding)
            how = (f"`{sym.source}` is at least {least} with {name} ≥ 1"
                   if least != sym.source else f"`{sym.source}`")
        else:
            how = f"`{sym.source}` stands for a number of at least 1"
        dests = ", ".join(sorted(fed.get(name, ())))
        assumptions.append(Assumption(name, 1, f"not set in the input; {how} ({dests}); {pin_text(name)}"))
        findings.append(Finding("VP102", f"{name} has no value in the input; resolved with {name}=1, "
                                         f"the least value {sym.source} allows; {pin_text(name)}",
                                first_loc.get(name) or sym.loc))
    for name, ch in sorted(choices.items()):
        if name in numeric or not ch:
            continue
        assumptions.append(Assumption(name, ch[0], f"not set in the input; the first choice of "
                                                   f"{', '.join(sorted(fed.get(name, ())))}"))
        findings.append(Finding("VP102", f"{name} has no value in the input; resolved with {name}={ch[0]} "
                                         f"(the first of its choices); {pin_text(name)}",
                                first_loc.get(name)))
    # 4. render
    files = frozenset(getattr(dep, "private_files", ()) or ())
    out_words: list[Word] = []
    for idx, (t, loc, subl, tag) in enumerate(items):
        if idx in flag_words and isinstance(t, TWord):  # flag_words holds TWords only
            sym = t.text[0]
            assumptions.append(Assumption(sym.name, "", f"not set in the input; `{sym.source}` stands where flags "
                                                        f"go and is assumed to add none"))
            findings.append(Finding("VP111", f"{sym.name} has no value in the input and stands where flags go; "
                                             f"assumed to add no flags ({pin_text(sym.name, '...')})",
                                    sym.loc or loc))
            continue
        text = t if isinstance(t, str) else render(t.text, str_binding)
        out_words.append(Word(text, loc, subl, tag, _private_parts(t, loc, files) if files else ()))
    env, env_findings = _render_env(dep, str_binding)
    findings += env_findings
    argv = tuple(w.text for w in out_words)
    bound_dep = replace(dep, argv=argv, env=env, assumptions=tuple(dep.assumptions) + tuple(assumptions)) \
        if hasattr(dep, "template") else Deployment(argv, env, dep.source, dep.location, dep.vllm_version,
                                                     tuple(dep.assumptions) + tuple(assumptions), dep.base_dir)
    bound = Bound(bound_dep, out_words, prefix, findings, assumptions, fed={k: sorted(v) for k, v in fed.items()},
                  release=release, release_label=getattr(release, "label", release.version))
    # 5. probes: the values each bound symbol could also take
    for name in sorted(binding):
        alternatives = ([v for v in PROBE_VALUES if v != binding[name]] if name in numeric
                        else [c for c in choices.get(name, ()) if c != binding[name]])
        if alternatives:
            bound.space[name] = [binding[name]] + alternatives
    bound._items, bound._flag_words, bound._binding = items, flag_words, str_binding
    return bound


def _private_parts(t, loc: Location | None, files: frozenset) -> tuple:
    """(text, place) of the parts of a word written in one of `files`."""
    if isinstance(t, str):  # a --config item's word
        return ((t, loc),) if loc is not None and loc.file in files else ()
    from vllm_preflight.load.symbols import Lit

    out = []
    for piece in t.text:
        if isinstance(piece, Lit) and piece.text:
            where = piece.location() if piece.origin is not None else loc  # a spliced `model:` has no origin
            if where is not None and where.file in files:
                out.append((piece.text, where))
    return tuple(out)


def variant(bound: Bound, values: dict[str, object]) -> Deployment:
    """The bound deployment with some symbols at other values."""
    from vllm_preflight.load.symbols import render

    other = dict(bound._binding)
    other.update({k: str(v) for k, v in values.items()})
    words = [t if isinstance(t, str) else render(t.text, other)
             for idx, (t, _loc, _subl, _tag) in enumerate(bound._items) if idx not in bound._flag_words]
    env, _ = _render_env(bound.deployment, other)
    return replace(bound.deployment, argv=tuple(words), env=env)


@dataclass(frozen=True)
class _Field:
    """A config field set through a dotted flag, standing in for an option."""

    dest: str
    converter: str
    choices: tuple | None
    nargs: object = None
    takes_value: bool = True


def _dotted_field(name: str, release, base) -> _Field:
    facts = release.facts
    if name == "cudagraph_mode":
        return _Field(name, "str", tuple(facts.get("cudagraph_modes") or ()) or None)
    if name == "mode":
        return _Field(name, "str", tuple(facts.get("compilation_modes") or ()) or None)
    if name in ("level", "max_cudagraph_capture_size", "cudagraph_num_of_warmups"):
        return _Field(name, "int", None)
    return _Field(f"{base.dest}.{name}", "str", None)


def _head_literal(t) -> str | None:
    """The literal start of a word with symbols (`--tp=$X` -> `--tp=`)."""
    from vllm_preflight.load.symbols import Lit

    text = getattr(t, "text", ())
    if text and isinstance(text[0], Lit):
        return text[0].text
    return None


def _note(t, opt, numeric: dict, choices: dict, fed: dict, first_loc: dict) -> None:
    from vllm_preflight.load.symbols import Sym

    if isinstance(t, str) or opt is None:
        return
    for s in t.text:
        if not isinstance(s, Sym):
            continue
        names = s.names if s.kind == "arith" else (s.name,)
        for name in names:
            first_loc.setdefault(name, s.loc)
            fed.setdefault(name, set()).add(opt.dest)
            if s.kind == "arith" or opt.converter in NUMERIC_CONVERTERS:
                numeric.setdefault(name, []).append(s)
            elif opt.choices:
                choices.setdefault(name, tuple(c for c in opt.choices if c != "None"))


def _render_env(dep: Deployment, binding: dict[str, str]):
    from vllm_preflight.load.symbols import is_literal, render, syms

    template = getattr(dep, "env_template", ())
    if not template:
        return dep.env, []
    out = []
    findings = []
    for name, text in template:
        if not is_literal(text):
            unbound = [s for s in syms(text) if s.kind != "arith" and s.name not in binding]
            if unbound and name in RESOLUTION_ENV:
                findings.append(Finding("VP112", f"{name} depends on {unbound[0].source}, unknown here; "
                                                 f"it is treated as unset", unbound[0].loc))
                continue
        out.append((name, render(text, binding)))
    return tuple(out), findings


MAX_COMBINATIONS = 64


def depends(bound: Bound, base_resolution, resolve) -> tuple[list[str], list[Finding]]:
    """Resolve the deployment under the other values of its unresolved symbols (all
    combinations when there are few, else one symbol at a time); the names whose value
    changes the outcome, and a VP103 finding for each."""
    import itertools

    names = sorted(bound.space)
    if not names:
        return [], []
    sizes = [len(bound.space[n]) for n in names]
    total = 1
    for n in sizes:
        total *= n
    if total <= MAX_COMBINATIONS:
        combos = [dict(zip(names, values)) for values in itertools.product(*(bound.space[n] for n in names))]
    else:
        base = {n: bound.space[n][0] for n in names}
        combos = [base] + [dict(base, **{n: v}) for n in names for v in bound.space[n][1:]]
    base_combo = {n: bound.space[n][0] for n in names}
    results = {}
    for combo in combos:
        key = tuple(combo[n] for n in names)
        results[key] = base_resolution if combo == base_combo else resolve(variant(bound, combo))
    depends_on: list[str] = []
    example: dict[str, tuple[dict, list[str]]] = {}
    for combo in combos:
        key = tuple(combo[n] for n in names)
        for i, n in enumerate(names):
            if combo[n] == bound.space[n][0]:
                continue
            ref_key = key[:i] + (bound.space[n][0],) + key[i + 1:]
            if ref_key not in results:
                continue
            ignore = set(bound.fed.get(n, ()))
            diffs = outcome_differences(results[ref_key], results[key], ignore)
            if diffs and n not in example:
                example[n] = (combo, diffs)
    findings = []
    assumed = {a.fact: a.value for a in bound.assumptions}
    for n in names:
        if n not in example:
            continue
        depends_on.append(n)
        combo, diffs = example[n]
        changed = {k: v for k, v in combo.items() if v != bound.space[k][0]}
        others = [f"{k}={v}" for k, v in changed.items() if k != n]
        cond = f"with {n}={combo[n]}" + (f" (and {', '.join(others)})" if others else "")
        more = f" (and {len(diffs) - 3} more)" if len(diffs) > 3 else ""
        loc = next((f.location for f in bound.findings if f.rule == "VP102" and f.message.startswith(n + " ")), None)
        findings.append(Finding("VP103", f"the outcome depends on {n} (resolved with {n}={assumed.get(n)}): "
                                         f"{cond}, " + "; ".join(diffs[:3]) + more, loc))
    return depends_on, findings
