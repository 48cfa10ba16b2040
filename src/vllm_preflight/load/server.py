"""From a server command found by a loader to a LoadedDeployment.

Shared by every format: folds a `--config FILE` into the words the way vLLM does, renders
the command as written (symbols as their source) for `Deployment.argv`, and carries the
environment, findings and assumptions along.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace

from vllm_preflight.errors import InputFailure
from vllm_preflight.findings import Finding
from vllm_preflight.load.loaded import LoadedDeployment
from vllm_preflight.load.shell import Found, TWord
from vllm_preflight.load.source import read_source
from vllm_preflight.load.symbols import Text, literal, location_of, source_of
from vllm_preflight.load.vllm_yaml import ConfigItem, find_config_word, items_from_doc, resolve_path, splice_config
from vllm_preflight.model import Assumption, Location

# resolve_file(path) -> (label for locations, text) or None; lets manifests serve ConfigMap data
FileResolver = Callable[[str], "tuple[str, str] | None"]


def read_config_items(path_text: Text, base_dir: str | None, resolve_file: FileResolver | None,
                      loc: Location | None) -> tuple[list[ConfigItem] | None, list[Finding], str | None]:
    """Config items of the file a `--config` names, or findings saying why not.

    A file on disk is read only where the input's confinement allows (load.confine); read
    because an input named it (not the user's own command line), its items are `private`:
    findings name their places, never their text."""
    path = literal(path_text) if path_text is not None else None
    if not path:
        shown = source_of(path_text) if path_text else "?"
        return None, [Finding("VP107", f"the --config path `{shown}` is not known until the deployment runs; "
                                       f"its settings are not included", loc)], None
    from vllm_preflight.load import confine
    from vllm_preflight.load.source import Source

    got = resolve_file(path) if resolve_file is not None else None
    full = None
    private = False
    if got is None:
        if resolve_file is not None:
            return None, [Finding("VP107", f"the --config file `{path}` is a path on the machine that runs vLLM, "
                                           f"not found in the manifest's ConfigMaps; its settings are not included",
                                  loc)], None
        full = resolve_path(path, base_dir)
        conf = confine.current(base_dir)
        if not conf.allows(full):
            what = "a path on the machine that runs vLLM" if os.path.isabs(path) else "a file"
            return None, [Finding("VP107", f"the --config file `{path}` is {what}; {conf.refusal()}; "
                                           f"its settings are not included", loc)], None
        private = not conf.user_words
        # an absolute path is read when it exists here (check run on the node, or a test); else
        # it names the machine that runs vLLM
        if os.path.isabs(path) and not os.path.isfile(path):
            return None, [Finding("VP107", f"the --config file `{path}` is a path on the machine that runs vLLM, "
                                           f"not found here; its settings are not included", loc)], None
        if not os.path.isfile(full):
            return None, [Finding("VP107", f"cannot read the --config file `{path}` (looked at {_shown(full)}); "
                                           f"its settings are not included", loc)], None
        try:
            source = read_source(full)
        except InputFailure as e:
            return None, [Finding("VP107", f"cannot read the --config file `{path}`: {e.error.render()}", loc)], None
        label = _shown(full)
        source = Source(label, source.text)
    else:
        label, text = got
        source = Source(label, text)
    from vllm_preflight.load.yaml_marks import parse_documents  # yaml: only for a --config file

    try:
        docs = parse_documents(source)
    except InputFailure as e:
        why = e.error.render() if not private else _place_only(e.error)
        return None, [Finding("VP107", f"cannot read the --config file `{path}`: {why}", loc)], None
    if not docs or not isinstance(docs[0].data, dict):
        return None, [Finding("VP107", f"the --config file `{path}` is not a mapping of options", loc)], None
    items, _model = items_from_doc(docs[0], label)
    if private:
        items = [replace(i, private=True) for i in items]
    return items, [], (os.path.realpath(full) if full else None)


def _place_only(error) -> str:
    """A parse error of a file the input named: where, not the parser's words (they quote the text)."""
    where = error.location
    at = f" at {where.file}:{where.line}:{where.column}" if where and where.line else ""
    return f"not valid YAML{at} (the file's text is not quoted)"


def _shown(path: str) -> str:
    """A path relative to the working directory when it lies below it, else absolute."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def fold_config(words: list, prefix: int, base_dir: str | None, resolve_file: FileResolver | None
                ) -> tuple[list, list[Finding], list[str]]:
    found = find_config_word(words, prefix)
    if found is None:
        return words, [], []
    i, _n, path_text = found
    items, findings, full = read_config_items(path_text, base_dir, resolve_file, words[i].loc)
    if items is None:
        return words, findings, []
    return splice_config(words, prefix, items), findings, [full] if full else []


def as_written(template: tuple) -> tuple[str, ...]:
    """The command words as written: symbols as their source, config items as flags."""
    out: list[str] = []
    for w in template:
        if isinstance(w, TWord):
            out.append(source_of(w.text))
        elif isinstance(w, ConfigItem):
            out.append("--" + w.key)
            if isinstance(w.value, bool):
                if not w.value:
                    out.pop()
            elif isinstance(w.value, list):
                out.extend(str(v) for v in w.value)
            elif isinstance(w.value, dict):
                import json

                out.append(json.dumps(w.value, default=str))
            else:
                out.append(str(w.value))
    return tuple(out)


def env_as_written(env: list[tuple[str, Text]]) -> tuple[tuple[str, str], ...]:
    seen: dict[str, str] = {}
    for name, value in env:
        seen[name] = source_of(value)
    return tuple(seen.items())


def build(found: Found, *, source: str, file: str, base_dir: str | None, fmt: str,
          assumptions: Sequence[Assumption] = (), findings: Sequence[Finding] = (),
          resolve_file: FileResolver | None = None, vllm_version: str | None = None,
          version_source: str | None = None, version_location: Location | None = None,
          extra_env: Sequence[tuple[str, Text]] = ()) -> LoadedDeployment:
    words, cfg_findings, cfg_files = fold_config(list(found.words), found.prefix, base_dir, resolve_file)
    env = list(found.env) + list(extra_env)
    # keep the last value of each name, in first-seen order
    merged: dict[str, Text] = {}
    for name, value in env:
        merged[name] = value
    env = list(merged.items())
    template = tuple(words)
    private = tuple(dict.fromkeys([*found.read_files, *(w.file for w in words if isinstance(w, ConfigItem) and w.private)]))
    loc = found.loc or (location_of(found.words[0].text) if found.words else None) or Location(file, 1, 1)
    return LoadedDeployment(
        argv=as_written(template), env=env_as_written(env), source=source, location=loc,
        vllm_version=vllm_version, assumptions=_unique([*assumptions, *found.assumptions]), base_dir=base_dir,
        template=template, prefix=found.prefix, env_template=tuple(env),
        findings=tuple(list(findings) + list(found.findings) + cfg_findings),
        version_source=version_source, version_location=version_location,
        config_files=tuple(cfg_files), format=fmt, private_files=private, node_facts=tuple(found.node_facts))


def _unique(items: list) -> tuple:
    """Items in first-seen order, each once (assumptions may hold unhashable values)."""
    out: list = []
    for a in items:
        if a not in out:
            out.append(a)
    return tuple(out)
