"""Loaders: files of the formats deployers write, turned into Deployments.

Each loader knows its format, not vLLM. The format of a file is detected from its content
(a shebang, Kubernetes `apiVersion`/`kind`, Compose `services`, a mapping of vLLM option
names, our deployment file's keys), with the file name as a hint; `--input-format`
overrides it. Parts of a file read and left out (a Markdown block that is no command, a YAML
document that does not parse, a resource the tool does not read) are listed with why. Folders are
walked (hidden folders skipped, links followed only inside the folder, loops and nesting
past MAX_DEPTH reported); in a folder, files that
hold no vLLM server are skipped quietly, while a file named on the command line must hold
one. Unreadable input raises InputFailure (one InputError, or several for a deployment
file failing its schema).
"""
from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from vllm_preflight.errors import InputError, InputFailure
from vllm_preflight.load import source as source_mod
from vllm_preflight.load.command import deployment_from_words, load_command_file
from vllm_preflight.load.loaded import Skipped
from vllm_preflight.model import Deployment

if TYPE_CHECKING:
    from vllm_preflight.load.loaded import LoadedDeployment

_D = TypeVar("_D", bound=Deployment)

__all__ = [
    "INPUT_FORMATS",
    "deployment_from_words",
    "detect_format",
    "load_command_file",
    "load_file",
    "load_path",
    "load_paths",
]

INPUT_FORMATS = ("auto", "shell", "markdown", "vllm-config", "kubernetes", "compose", "preflight")
YAML_FORMATS = ("vllm-config", "kubernetes", "compose", "preflight")
_YAML_EXT = (".yaml", ".yml")
_SHELL_EXT = (".sh", ".bash", ".zsh", ".ksh", ".command", ".sbatch", ".slurm")  # Slurm job scripts too
_MD_EXT = (".md", ".markdown")
_SHEBANG = re.compile(r"^#!\S*(?:/|\s)(?:env\s+)?(?:ba|z|k|da|a)?sh\b")
_YAMLISH = re.compile(r"^(?:---\s*$|apiVersion\s*:|kind\s*:)", re.MULTILINE)
_SKIP_DIRS = {"node_modules", "__pycache__", "venv"}
MAX_FILES = 10_000
MAX_DIRS = 10_000
MAX_DEPTH = 64  # folder levels below a named folder (deployment repos nest a handful)


def detect_format(source) -> str:
    """`shell`, `markdown`, `preflight`, or `yaml` (refined after parsing)."""
    p = source.path.lower()
    if p.endswith((".preflight.yaml", ".preflight.yml")):
        return "preflight"
    if p.endswith(_MD_EXT):
        return "markdown"
    if _SHEBANG.match(source.text):
        return "shell"
    if p.endswith(_SHELL_EXT):
        return "shell"
    if p.endswith(_YAML_EXT) or p.endswith(".json") or _YAMLISH.search(source.text[:4096]):
        return "yaml"
    return "shell"


def _classify_yaml(path: str, docs) -> str | None:
    from vllm_preflight.load.compose import is_compose
    from vllm_preflight.load.kubernetes import is_manifest
    from vllm_preflight.load.preflight_file import is_deployment_file
    from vllm_preflight.load.vllm_yaml import looks_like_config

    datas = [d.data for d in docs if d.data is not None]
    if any(is_manifest(d) for d in datas):
        return "kubernetes"
    if any(is_compose(d) for d in datas):
        return "compose"
    if len(datas) == 1 and is_deployment_file(path, datas[0]):
        return "preflight"
    if len(datas) == 1 and looks_like_config(datas[0]):
        return "vllm-config"
    return None


def _parse_yaml(source, skipped: list | None = None):
    """Every document of a YAML stream that parses (templates read with placeholders); each
    that does not is a part left out, unless none parses (InputFailure)."""
    from vllm_preflight.load.source import fail
    from vllm_preflight.load.yaml_stream import parse_stream

    try:
        docs, failures = parse_stream(source)
        if skipped is not None:
            for first, f in failures:
                at = f" at line {f.location.line}" if f.location and f.location.line else ""
                skipped.append(Skipped(f"{source.path}:{first}", f"a YAML document that does not parse "
                                       f"({f.message}{at}); the other documents are read"))
        return docs
    except InputFailure as e:
        if "{{" in source.text and "invalid YAML" in e.error.message:
            fail(source.path, e.error.message + " (an unrendered Helm template? render it with `helm template`)",
                 e.error.location.line if e.error.location else None,
                 e.error.location.column if e.error.location else None)
        raise


def load_vllm_config(docs, variables=None) -> list[LoadedDeployment]:
    """A standalone `--config` file: `vllm serve [MODEL]` with the file's options."""
    from vllm_preflight.load.loaded import LoadedDeployment
    from vllm_preflight.load.server import as_written
    from vllm_preflight.load.shell import TWord
    from vllm_preflight.load.source import fail
    from vllm_preflight.load.symbols import lit
    from vllm_preflight.load.vllm_yaml import items_from_doc

    doc = docs[0]
    path = doc.source.path
    if not isinstance(doc.data, dict):
        fail(path, "a vLLM --config file holds a mapping of option names")
    items, model = items_from_doc(doc, path)
    first_loc = items[0].key_loc if items else doc.location(())
    head = [TWord(lit("vllm"), first_loc), TWord(lit("serve"), first_loc)]
    if model is not None:
        head.append(TWord(lit(str(model.value)), model.value_loc))
        items = [i for i in items if i is not model]
    template = (*head, *items)
    return [LoadedDeployment(argv=as_written(template), source=path, location=model.key_loc if model else first_loc,
                             base_dir=os.path.dirname(os.path.abspath(path)), template=template, prefix=2,
                             format="vllm-config", config_files=(os.path.realpath(path),))]


def load_source(source, fmt: str, variables: dict[str, str] | None = None, *, depth: int = 0,
                input_format: str | None = None) -> list[LoadedDeployment]:
    return _load_source(source, fmt, variables, depth=depth, input_format=input_format)[0]


def _load_source(source, fmt: str, variables: dict[str, str] | None = None, *, depth: int = 0,
                 input_format: str | None = None, skipped: list | None = None
                 ) -> tuple[list[LoadedDeployment], str]:
    """The servers of one input, and the format it was read as; parts of it that were read and
    left out (a Markdown block that is no command, ...) are appended to `skipped`."""
    from vllm_preflight.load.source import fail

    if fmt == "shell":  # each format's loader (and yaml) imported only for a file of that format
        from vllm_preflight.load import shell_file

        return shell_file.load(source, variables), fmt
    if fmt == "markdown":
        from vllm_preflight.load.markdown import load_markdown

        return load_markdown(source, variables, skipped), fmt
    docs = _parse_yaml(source, skipped)
    if not any(d.data is not None for d in docs):
        fail(source.path, "no YAML documents")
    if fmt == "yaml":
        fmt = _classify_yaml(source.path, docs) or "yaml"
        if fmt == "yaml":
            return [], fmt
    if fmt == "kubernetes":
        from vllm_preflight.load import manifests

        return manifests.load_docs(docs, variables, skipped), fmt
    if fmt == "compose":
        from vllm_preflight.load import compose

        return compose.load_docs(docs, variables), fmt
    if fmt == "preflight":
        from vllm_preflight.load import preflight_file

        return preflight_file.load(docs, variables, depth=depth, input_format=input_format, load_file=load_file), fmt
    if fmt == "vllm-config":
        return load_vllm_config(docs, variables), fmt
    fail(source.path, f"unknown input format {fmt!r}")
    return [], fmt


def load_file(path: str, variables: dict[str, str] | None = None, *, input_format: str | None = None,
              depth: int = 0, walking: bool = False, skipped: list | None = None) -> list[LoadedDeployment]:
    """Deployments in one file; InputFailure when it cannot be read (or, named on the command
    line, holds no vLLM server)."""
    from vllm_preflight.load import confine

    with confine.default_for(path):
        return _load_file(path, variables, input_format=input_format, depth=depth, walking=walking, skipped=skipped)


def _load_file(path: str, variables: dict[str, str] | None, *, input_format: str | None, depth: int,
               walking: bool, skipped: list | None) -> list[LoadedDeployment]:
    from vllm_preflight.load import limits
    from vllm_preflight.load.source import fail, read_source

    source = read_source(path)
    fmt = input_format if input_format and input_format != "auto" else detect_format(source)
    if walking and fmt in ("shell", "markdown") and "vllm" not in source.text.lower():
        return []
    parts: list = []
    found, fmt = _load_source(source, fmt, variables, depth=depth, input_format=input_format, skipped=parts)
    if len(found) > limits.max_servers():  # the loaders stop early; this counts a file's shapes together
        limits.check_servers(len(found), path, found[limits.max_servers()].location)
    if skipped is not None:
        skipped.extend(parts)
    if not found and not walking and parts and fmt in ("kubernetes", "compose", "yaml"):
        # what the file holds is a shape the tool does not read, or a document that does not parse: say it
        fail(path, f"no vLLM server the tool reads: {parts[0].reason}")
    if not found and not walking:
        what = {"yaml": "YAML that is neither a Kubernetes manifest, a vLLM --config file nor a deployment file",
                "shell": "no `vllm serve` (or api_server) command", "markdown": "no `vllm serve` command in its "
                "shell code blocks", "kubernetes": "no container running a vLLM server",
                "compose": "no Compose service running a vLLM server"}.get(fmt, "no vLLM server")
        fail(path, f"{what}; nothing to check")
    return found


def load_path(path: str, *, input_format: str | None = None, variables: dict[str, str] | None = None
              ) -> list[Deployment]:
    """Deployments found in one file or folder. Raises InputFailure when a file cannot be read."""
    deployments, errors = load_paths([path], input_format=input_format, variables=variables)
    if errors and not deployments:
        if len(errors) == 1:
            raise InputFailure(errors[0])
        from vllm_preflight.load.preflight_file import InputFailures

        raise InputFailures(errors)
    return deployments


def _walk(top: str, errors: list[InputError], skipped: list[str]) -> list[str]:
    """Candidate files below `top`, in name order, in time linear in what is walked.

    A link is followed only when its target lies inside `top`'s real folder tree; one that
    leads out (to `/`, `..`, `/etc`) is skipped, and said. Folders nest at most MAX_DEPTH
    levels; a link back to a folder being walked is a loop. Each is `top`'s input error."""
    from vllm_preflight.load.confine import inside

    root = os.path.realpath(top)
    files: list[str] = []
    seen: set[str] = set()  # real paths of folders walked (two links to one folder: walked once)
    on_path: set[str] = set()  # real paths of the folders from `top` down to the current one
    too_deep = False
    # ("enter", path, real path, depth) and ("exit", real path): a depth-first walk without recursion
    stack: list[tuple] = [("enter", top, root, 0)]
    while stack:
        step = stack.pop()
        if step[0] == "exit":
            on_path.discard(step[1])
            continue
        _, d, real, depth = step
        if real in seen:
            continue
        seen.add(real)
        if len(seen) > MAX_DIRS:  # a huge tree must not walk for ever
            errors.append(InputError(top, f"more than {MAX_DIRS} folders; the rest are not checked"))
            return files
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError as e:
            errors.append(InputError(d, f"cannot read folder: {e.strerror or e}"))
            continue
        on_path.add(real)
        stack.append(("exit", real))
        subdirs = []
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _SKIP_DIRS:
                continue
            try:
                link = entry.is_symlink()
                if link:
                    target = os.path.realpath(entry.path)
                    if not inside(target, root):
                        skipped.append(Skipped(entry.path, f"a link to {target}, outside {top}; not followed",
                                               always=True))
                        continue
                    is_dir = os.path.isdir(target)
                else:
                    target = os.path.join(real, entry.name)
                    is_dir = entry.is_dir(follow_symlinks=False)
            except (OSError, ValueError) as e:
                errors.append(InputError(entry.path, f"cannot read: {getattr(e, 'strerror', None) or e}"))
                continue
            if is_dir:
                if target in on_path:
                    errors.append(InputError(entry.path, f"directory loop: links back to {target}; not followed"))
                    continue
                if depth >= MAX_DEPTH:
                    if not too_deep:
                        too_deep = True
                        errors.append(InputError(entry.path, limits_too_deep(top)))
                    continue
                subdirs.append(("enter", entry.path, target, depth + 1))
            elif _candidate(entry.path):
                files.append(entry.path)
                if len(files) > MAX_FILES:
                    errors.append(InputError(top, f"more than {MAX_FILES} files; the rest are not checked"))
                    return files
        stack.extend(reversed(subdirs))
    return files


def limits_too_deep(top: str) -> str:
    from vllm_preflight.load.limits import too_complex

    return too_complex(f"folders nest more than {MAX_DEPTH} levels below {top}; the deeper ones are not checked")


def _candidate(path: str) -> bool:
    name = os.path.basename(path).lower()
    if name.endswith(_YAML_EXT + _SHELL_EXT + _MD_EXT):
        return True
    if "." in name:
        return False
    try:
        # a FIFO or device found in a folder is no script: never open it (an open or read blocks)
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        try:
            head = os.read(fd, 128) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
        finally:
            os.close(fd)
    except OSError:
        return True  # let the reader report it
    return head.startswith(b"#!") and bool(_SHEBANG.match(head.decode("utf-8", "replace")))


def _within_limits(found: list[_D], errors: list[InputError]) -> list[_D]:
    """The deployments no limit rejects; an error for each other (the file's others still count)."""
    from vllm_preflight.load.limits import check_words

    kept = []
    for d in found:
        try:
            check_words(d.argv, d.source, d.location)
        except InputFailure as e:
            errors.append(e.error)
            continue
        kept.append(d)
    return kept


def load_paths(paths: list[str], *, input_format: str | None = None, variables: dict[str, str] | None = None,
               skipped: list[str] | None = None, require_servers: bool = True,
               allow_paths: Sequence[str] = (), max_servers: int | None = None,
               ) -> tuple[list[Deployment], list[InputError]]:
    """Every Deployment in files and folders, and an error for each input that could not be read.

    Files that hold no vLLM server are appended to `skipped` when it is given (as `Skipped`,
    with why; links a walk did not follow and parts of files left out too). With `require_servers` (the default) a file
    or folder named in `paths` that holds none is an error; without it (pre-commit passes
    every YAML and shell file of a commit) such a file is skipped like one found in a folder.
    A file an input names (`--config`, `source`, `from:`) is read only inside the input's
    folder tree or a folder of `allow_paths` (load.confine); a file holds at most
    `max_servers` servers (load.limits.MAX_SERVERS_PER_FILE)."""
    from vllm_preflight.load import confine, limits

    if isinstance(paths, (str, bytes, os.PathLike)):  # not a list: would be walked character by character
        raise TypeError(f"paths must be a list of paths, not {type(paths).__name__}")
    deployments: list[Deployment] = []
    errors: list[InputError] = []
    passed: list[str] = skipped if skipped is not None else []
    done: set[str] = set()
    holding: set[str] = set()  # files that held a server
    walked: list[tuple[str, list[LoadedDeployment]]] = []
    parts: list[str] = []  # parts of files read and left out (Markdown blocks, YAML documents)

    def one(f: str, tree: str, walking: bool) -> list[LoadedDeployment] | None:
        """Deployments of one file under its input's confinement; None when it failed."""
        try:
            with confine.within(tree, allow_paths), limits.servers_per_file(max_servers):
                return _within_limits(load_file(f, variables, input_format=input_format, walking=walking,
                                                skipped=parts), errors)
        except InputFailure as e:
            errors.extend(getattr(e, "errors", [e.error]))
        except Exception as e:  # noqa: BLE001 - a bug on one input must not cost the others
            errors.append(InputError.from_bug(f, e))
        return None

    for p in paths:
        if os.path.isdir(p):
            held, failed = False, len(errors)
            for f in _walk(p, errors, passed):
                real = os.path.realpath(f)
                if real in done:
                    held = held or real in holding
                    continue
                done.add(real)
                found = one(f, p, True)
                if found is None:
                    continue
                walked.append((real, found))
                deployments.extend(found)
                if found:
                    held = True
                    holding.add(real)
                else:
                    passed.append(Skipped(f))
            if require_servers and not held and len(errors) == failed:
                errors.append(InputError(p, "no vLLM server in this folder (shell scripts, Markdown guides, vLLM "
                                            "--config YAML, Kubernetes manifests, Compose files, "
                                            "*.preflight.yaml); nothing to check"))
            continue
        if p.endswith(("/", os.sep)) and p != source_mod.STDIN:  # `a.sh/`: not the file a.sh
            errors.append(InputError(p, "cannot read: Not a directory" if os.path.exists(p.rstrip("/" + os.sep))
                                     else "cannot read: No such file or directory"))
            continue
        real = os.path.realpath(p)
        if real in done and os.path.exists(p):
            continue
        done.add(real)
        found = one(p, confine.tree_of(p, False), not require_servers)
        if found is None:
            continue
        if found:
            holding.add(real)
        else:
            passed.append(Skipped(p))
        deployments.extend(found)
    passed.extend(parts)
    # a --config file found in a folder and folded into another file's command is not a server of its own
    folded = {f for d in deployments for f in getattr(d, "config_files", ()) if getattr(d, "format", "") != "vllm-config"}
    if folded:
        drop = {id(d) for real, found in walked if real in folded for d in found
                if getattr(d, "format", "") == "vllm-config"}
        deployments = [d for d in deployments if id(d) not in drop]
    return deployments, errors
