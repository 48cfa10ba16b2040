"""Kubernetes manifests: every vLLM server container in a multi-document YAML stream.

Pod, Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, CronJob, LeaderWorkerSet
(leader and worker templates, with the LWS_* variables the controller injects), role
lists (`spec.roles[]`, DisaggregatedSet style, AIBrix StormService), `kind: List`,
Helm-rendered output and unrendered templates (`load.templates`), and any other resource
holding pod specs (KubeRay and AIBrix Ray fleets: `load.ray`); manifests.py reads each
resource. KServe LLMInferenceService, and InferenceService with a ServingRuntime of the file,
are read by `kserve.py`; the serving resources in manifests.NOT_READ are said not read (a
part left out, `--verbose`).

A container is a vLLM server when its command runs one (directly, behind wrappers, or in a
`bash -c` script), or when it runs a vLLM image with only `args:` (the image's entrypoint
is `vllm serve`). Sidecars and init containers that do not are no results, whatever flags
they take. Container env feeds the script's variables; `valueFrom` stays unknown; `$(VAR)`
in command, args and env is expanded as Kubernetes does. Each server's source is
`FILE:DOC:WHERE` (WHERE like `spec.template.vllm`, `leaderWorkerTemplate.workerTemplate.vllm`,
`roles.prefill.vllm`).
"""
from __future__ import annotations

import os
import re
from dataclasses import replace
from typing import Any

from vllm_preflight.findings import Finding
from vllm_preflight.load import limits
from vllm_preflight.load.images import version_source
from vllm_preflight.load.loaded import RESOLUTION_ENV, LoadedDeployment
from vllm_preflight.load.server import build
from vllm_preflight.load.shell import (
    ScriptError,
    Shell,
    TWord,
    image_entrypoint,
    image_version,
    is_vllm_image,
    text_size,
)
from vllm_preflight.load.source import fail
from vllm_preflight.load.symbols import Lit, Sym, Text, lit
from vllm_preflight.load.templates import envsubst, has_tokens, untoken
from vllm_preflight.load.yaml_marks import ScalarText, YamlDoc
from vllm_preflight.model import Assumption

_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
MAX_SEARCH_DEPTH = 12
RUNTIME_VARS = {
    "LWS_WORKER_INDEX": "set by the LeaderWorkerSet controller when the pod runs (0 on the leader, 1..size-1 on workers)",
    "LWS_LEADER_ADDRESS": "set by the LeaderWorkerSet controller when the pod runs",
    "LWS_GROUP_SIZE": "set by the LeaderWorkerSet controller when the pod runs",
}


def is_manifest(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("apiVersion"), str) and isinstance(data.get("kind"), str)


def k8s_expand(value: str, origin, env: dict[str, Text | None]) -> Text:
    """Kubernetes' `$(VAR)` expansion: defined variables are replaced, `$$` is `$`, others stay."""
    out: list = []
    pos = 0
    for m in _REF.finditer(value):
        if m.start() > pos:
            out.append(Lit(value[pos:m.start()], origin, pos))
        if m.group(0) == "$$":
            out.append(Lit("$", origin, m.start()))
        else:
            name = m.group(1)
            if name in env:
                v = env[name]
                if v is None:
                    loc = origin.location(m.start()) if origin is not None else None
                    out.append(Sym("var", name, m.group(0), loc=loc))
                else:
                    out.extend(v)
            else:
                out.append(Lit(m.group(0), origin, m.start()))
        pos = m.end()
        if len(out) > limits.MAX_VALUE_PIECES:  # `$(A)$(A)` doubling down the env list
            _too_complex(origin, m.start())
    if pos < len(value):
        out.append(Lit(value[pos:], origin, pos))
    if len(value) > limits.MAX_VALUE_CHARS or text_size(out) > limits.MAX_VALUE_CHARS:
        _too_complex(origin, 0)
    return tuple(out)


def _too_complex(origin, offset: int):
    from vllm_preflight.errors import InputError, InputFailure

    loc = origin.location(offset) if origin is not None else None
    raise InputFailure(InputError(loc.file if loc else "<manifest>",
                                  limits.too_complex(f"a `$(VAR)` expansion grows past "
                                                     f"{limits.MAX_VALUE_CHARS >> 20} MiB or "
                                                     f"{limits.MAX_VALUE_PIECES} pieces"), loc))


class ConfigMaps:
    """ConfigMaps of the same file: `envFrom`, `configMapKeyRef`, mounted `--config` files."""

    def __init__(self, docs: list[YamlDoc]):
        self.data: dict[str, dict[str, tuple[YamlDoc, tuple]]] = {}
        for doc in docs:
            d = doc.data
            if is_manifest(d) and d["kind"] == "ConfigMap" and isinstance(d.get("data"), dict):
                meta = d.get("metadata")
                name = str(meta.get("name", "")) if isinstance(meta, dict) else ""
                self.data[name] = {str(k): (doc, ("data", k)) for k, v in d["data"].items() if isinstance(v, str)}

    def value(self, name: str, key: str) -> Text | None:
        entry = self.data.get(name, {}).get(key)
        if entry is None:
            return None
        doc, path = entry
        return lit(doc.data["data"][path[1]], doc.scalar_text(path), 0)

    def all(self, name: str) -> dict[str, Text] | None:
        if name not in self.data:
            return None
        return {k: self.value(name, k) or () for k in self.data[name]}

    def file(self, path: str) -> tuple[str, str] | None:
        """A mounted file by name: the ConfigMap key equal to its base name (unique)."""
        base = os.path.basename(path)
        hits = [(doc, p) for entries in self.data.values() for k, (doc, p) in entries.items() if k == base]
        if len(hits) != 1:
            return None
        doc, p = hits[0]
        node = doc.nodes.get(p)
        text = doc.data["data"][p[1]]
        if hasattr(doc.source, "restored"):  # a template: its actions as written (load.templates)
            text = doc.source.restored(text)
        st = ScalarText(doc.source, node)
        if st.line_starts and node is not None and node.style == "|":
            # keep the file's lines and columns: pad to where the block scalar sits
            first_line, indent = st.line_starts[0][1], st.line_starts[0][2] - 1
            padded = "\n" * (first_line - 1) + "\n".join((" " * indent + ln) if ln else ln for ln in text.split("\n"))
            return doc.source.path, padded
        return doc.source.path, text


# ------------------------------------------------------------------ pod specs
def _pod_specs(data: Any, path: tuple, depth: int = 0):
    """(path, pod spec) for every mapping holding a `containers` list, outside-in."""
    if depth > MAX_SEARCH_DEPTH:
        return
    if isinstance(data, dict):
        if isinstance(data.get("containers"), list) or isinstance(data.get("initContainers"), list):
            yield path, data
            return
        for k, v in data.items():
            if k in ("status", "metadata"):
                continue
            yield from _pod_specs(v, path + (k,), depth + 1)
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _pod_specs(v, path + (i,), depth + 1)


def where_of(kind: str, data: dict, path: tuple) -> str:
    parts = list(path)
    if len(parts) >= 2 and parts[-1] == "spec" and str(parts[-2]).endswith(("emplate", "Template")):
        parts.pop()
    k = next((i for i in range(len(parts) - 1) if parts[i] == "roles" and isinstance(parts[i + 1], int)), None)
    if k is not None:  # `spec.roles[]` (DisaggregatedSet), `spec.template.spec.roles[]` (StormService): by name
        node: Any = data
        for p in parts[:k + 2]:
            node = node[p]
        name = node.get("name", parts[k + 1]) if isinstance(node, dict) else parts[k + 1]
        rest = parts[k + 2:]
        if rest and rest[0] in ("template", "podTemplate"):
            rest = rest[1:]
        parts = [p for p in parts[:k] if p not in ("spec", "template")] + ["roles", name] + rest
    elif kind == "LeaderWorkerSet" and parts and parts[0] == "spec":
        parts = parts[1:]
    return ".".join(str(p) for p in parts)


def _lws_context(data: dict, path: tuple) -> tuple[dict[str, Text | None], list[Assumption]] | None:
    """The LWS_* variables the LeaderWorkerSet controller injects into this template's pods."""
    if "leaderWorkerTemplate" not in path:
        return None
    k = path.index("leaderWorkerTemplate")
    node: Any = data
    for p in path[:k + 1]:
        node = node[p]
    size = node.get("size", 1) if isinstance(node, dict) else 1
    env: dict[str, Text | None] = {"LWS_LEADER_ADDRESS": None}
    assumptions = []
    if isinstance(size, int) and not isinstance(size, bool):
        env["LWS_GROUP_SIZE"] = lit(str(size))
        assumptions.append(Assumption("LWS_GROUP_SIZE", size, "LeaderWorkerSet injects leaderWorkerTemplate.size"))
    else:
        env["LWS_GROUP_SIZE"] = None
    role = path[k + 1] if k + 1 < len(path) else None
    # workers are 1..size-1 (and 0 too when the worker template also serves as the leader)
    env["LWS_WORKER_INDEX"] = lit("0") if role == "leaderTemplate" else None
    return env, assumptions


# ----------------------------------------------------------------- containers
def container_env(doc: YamlDoc, cpath: tuple, container: dict, env: dict[str, Text | None],
                  configmaps: ConfigMaps, findings: list[Finding], pins: dict[str, str] | None = None,
                  assumptions: list[Assumption] | None = None) -> dict[str, Text | None]:
    env = _container_env(doc, cpath, container, env, configmaps, findings)
    return {k: untoken(v, doc.source, pins, assumptions) if v else v for k, v in env.items()}


def _container_env(doc: YamlDoc, cpath: tuple, container: dict, env: dict[str, Text | None],
                   configmaps: ConfigMaps, findings: list[Finding]) -> dict[str, Text | None]:
    env = dict(env)
    for key in ("envFrom", "env"):
        if container.get(key) is not None and not isinstance(container[key], list):
            # Kubernetes rejects such a manifest: a list of entries is the only form it takes
            fail(doc.source.path, f"`{key}` must be a list of entries, not {_yaml_kind(container[key])}",
                 *_line_col(doc.location(cpath + (key,))))
    for k, ef in enumerate(container.get("envFrom") or []):
        if not isinstance(ef, dict):
            continue
        ref = ef.get("configMapRef") or {}
        prefix = str(ef.get("prefix") or "")
        if not isinstance(ref, dict) or not ref:
            continue  # secrets: tokens and credentials, never vLLM settings worth a word
        values = configmaps.all(str(ref.get("name", "")))
        if values is not None:
            for name, mapped in values.items():
                env[prefix + name] = mapped
        else:
            findings.append(Finding("VP112", "variables from this envFrom source are not in the file; any vLLM "
                                             "setting they hold is treated as unset", doc.location(cpath + ("envFrom", k))))
    for k, e in enumerate(container.get("env") or []):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            continue
        name = e["name"]
        epath = cpath + ("env", k)
        if "value" in e and e["value"] is not None:
            raw = e["value"]
            text = raw if isinstance(raw, str) else str(raw).lower() if isinstance(raw, bool) else str(raw)
            env[name] = k8s_expand(text, doc.scalar_text(epath + ("value",)), env)
        elif isinstance(e.get("valueFrom"), dict):
            ref = e["valueFrom"].get("configMapKeyRef")
            v = configmaps.value(str(ref.get("name", "")), str(ref.get("key", ""))) if isinstance(ref, dict) else None
            env[name] = v
            if v is None and name in RESOLUTION_ENV:
                findings.append(Finding("VP112", f"{name} comes from valueFrom, which the file does not hold; "
                                                 f"it is treated as unset", doc.location(epath)))
        else:
            env[name] = lit("")
    return env


def _yaml_kind(value) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", dict: "a mapping"}.get(
        type(value), type(value).__name__)


def _line_col(loc) -> tuple:
    return (loc.line, loc.column) if loc is not None else (None, None)


def container_servers(doc: YamlDoc, cpath: tuple, container: dict, *, source: str, where: str,
                      base_env: dict[str, Text | None], assumptions: list[Assumption], configmaps: ConfigMaps,
                      variables: dict[str, str] | None) -> list[LoadedDeployment]:
    findings: list[Finding] = []
    assumptions = list(assumptions)
    env = container_env(doc, cpath, container, base_env, configmaps, findings, variables, assumptions)
    image = container.get("image") if isinstance(container.get("image"), str) else None
    command = container.get("command") or []
    args = container.get("args") or []
    if not isinstance(command, list) or not isinstance(args, list):
        return []
    words = container_words(doc, cpath, ("command", "args"), container, env, variables, assumptions)
    image_loc = doc.location(cpath + ("image",)) if image else None
    if image and has_tokens(image):
        image, vllm_image = _templated_image(image, doc, container, assumptions)
    else:
        vllm_image = bool(image) and is_vllm_image(image or "")
    if not command:
        if not args or not vllm_image:
            return []
        head, note = image_entrypoint(words, image_loc)
        words = head + words
        assumptions.append(note)
    known_env = {k: v for k, v in env.items() if v is not None}
    runtime = {k: RUNTIME_VARS.get(k, "set from valueFrom when the pod runs") for k, v in env.items() if v is None}
    sh = Shell(pins=variables, env=known_env, runtime=runtime)
    try:
        sh.exec_words(words, [], doc.location(cpath))
    except ScriptError as e:
        loc = e.loc
        what = e.message if e.message.startswith("input too complex") else \
            f"shell syntax error in container {where}: {e.message}"
        fail(doc.source.path, what, loc.line if loc else None, loc.column if loc else None)
    version = image_version(image) if image else None
    out = []
    for k, found in enumerate(sh.found):
        # `${NAME}` left in words no shell read (exec form): an envsubst placeholder, not text for vLLM
        found.words = [TWord(envsubst(w.text, variables), w.loc, w.fields, w.tag) for w in found.words]
        name = source if len(sh.found) == 1 else f"{source}#{k + 1}"
        if found.image:  # `docker run IMAGE` inside the container: its tag, not ours
            v2 = image_version(found.image)
            ver, vsrc, vloc = v2, version_source(found.image), found.image_loc
        else:
            ver, vsrc, vloc = version, version_source(image or ""), image_loc
        out.append(build(found, source=name, file=doc.source.path,
                         base_dir=os.path.dirname(os.path.abspath(doc.source.path)), fmt="kubernetes",
                         assumptions=list(assumptions) + sh.assumptions, findings=findings,
                         resolve_file=configmaps.file, vllm_version=ver,
                         version_source=vsrc if ver else None, version_location=vloc if ver else None))
    return out


def container_words(doc: YamlDoc, cpath: tuple, keys: tuple, container: dict, env: dict[str, Text | None],
                    pins: dict[str, str] | None, assumptions: list[Assumption]) -> list[TWord]:
    """The words of a container's `command` and `args` (the lists named by `keys`), `$(VAR)`
    expanded as Kubernetes does and template placeholders as symbols."""
    words: list[TWord] = []
    for key in keys:
        items = container.get(key) or []
        if not isinstance(items, list):
            continue
        for k, item in enumerate(items):
            p = cpath + (key, k)
            if isinstance(item, (dict, list)) or item is None:
                continue
            s = item if isinstance(item, str) else str(item)
            text = untoken(k8s_expand(s, doc.scalar_text(p), env), doc.source, pins, assumptions)
            # an item that is one template value may stand for several (`{{- range }}` over args)
            alone = len(text) == 1 and isinstance(text[0], Sym) and text[0].source.startswith("{{")
            words.append(TWord(text, doc.location(p), fields=alone))
    return words


def _templated_image(image: str, doc: YamlDoc, container: dict, assumptions: list[Assumption]) -> tuple[str, bool]:
    """An image named by template values (`{{ .Values.image.repository }}:{{ .Values.image.tag }}`):
    the image as written, and whether it runs vLLM, which the container's name or the template's
    own words tell ("vllm")."""
    restored = doc.source.restored(image) if hasattr(doc.source, "restored") else image
    name = container.get("name") if isinstance(container.get("name"), str) else ""
    vllm = is_vllm_image(restored) or "vllm" in f"{restored} {name}".lower()
    if vllm and not is_vllm_image(restored):
        assumptions.append(Assumption("image", restored, "a template value: taken as a vLLM image (its entrypoint "
                                                         "`vllm serve`) from the container's name"))
    return restored, vllm


def pod_servers(doc: YamlDoc, data: dict, kind: str, prefix: tuple, variables, configmaps: ConfigMaps,
                where_prefix: str = "", already: int = 0) -> list[LoadedDeployment]:
    """The servers of one resource (`already`: how many the file has yielded before it, for the limit)."""
    out: list[LoadedDeployment] = []
    for path, pod in _pod_specs(data, ()):
        where = where_prefix + where_of(kind, data, path)
        ctx = _lws_context(data, path)
        base_env, assumptions = ctx if ctx else ({}, [])
        for key in ("initContainers", "containers"):
            for i, c in enumerate(pod.get(key) or []):
                if not isinstance(c, dict):
                    continue
                cname = shown(doc, c["name"]) if isinstance(c.get("name"), str) else str(i)
                source = f"{doc.source.path}:{doc.index}:{where}.{cname}" if where else f"{doc.source.path}:{doc.index}:{cname}"
                out += [replace(d, pod_path=path) for d in container_servers(
                    doc, prefix + path + (key, i), c, source=source, where=where, base_env=base_env,
                    assumptions=assumptions, configmaps=configmaps, variables=variables)]
                limits.check_servers(already + len(out), doc.source.path, doc.location(prefix + path + (key, i)))
    return out


# how the parts of a server's place in a manifest read to a person (None: left out)
_PLACE_WORDS = {"leaderWorkerTemplate": None, "spec": None, "template": None, "podTemplate": None,
                "leaderTemplate": "leader", "workerTemplate": "worker", "worker": "worker",
                "roles": None, "items": None, "headGroupSpec": "Ray head", "workerGroupSpecs": "Ray workers",
                "rayClusterConfig": None, "rayClusterSpec": None, "predictor": "predictor", "jobTemplate": None}
IGNORE_ANNOTATION = "vllm-preflight.io/ignore"
ROLE_LABELS = ("llm-d.ai/role", "role", "app.kubernetes.io/component")


def shown(doc: YamlDoc, value: str) -> str:
    """A string of a document as written (template actions instead of their tokens)."""
    restored = getattr(doc.source, "restored", None)
    return restored(value) if restored is not None and has_tokens(value) else value


def _along(data: Any, path: tuple) -> list:
    """The mappings from the resource down to the pod spec at `path`, innermost first."""
    nodes, node = [data], data
    for p in path:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            break
        nodes.append(node)
    return [n for n in reversed(nodes) if isinstance(n, dict)]


def _meta(node: dict, key: str) -> dict:
    meta = node.get("metadata")
    value = meta.get(key) if isinstance(meta, dict) else None
    return value if isinstance(value, dict) else {}


def role_hints(data: dict, path: tuple, container: str, resource: str) -> tuple:
    """What a manifest says of a server's role, strongest first: a role label (the pod template's,
    then the resource's), a role's name (`roles[].name`, KServe `spec.prefill`), the resource's
    name, the container's name."""
    from vllm_preflight.identity import ROLES, role_in_name

    hints: list[tuple[str, str]] = []
    for node in _along(data, path):
        labels = _meta(node, "labels")
        for key in ROLE_LABELS:
            value = labels.get(key)
            if isinstance(value, str) and value.lower() in ROLES:
                hints.append((value.lower(), f"label {key}: {value}"))
    for k, p in enumerate(path[:-1]):
        if p == "roles" and isinstance(path[k + 1], int):
            entry = _along(data, path[:k + 2])[0]
            name = entry.get("name") if isinstance(entry, dict) else None
            if isinstance(name, str) and role_in_name(name):
                hints.append((role_in_name(name) or "", f"role {name}"))
    for i, p in enumerate(path):  # a section of its own: KServe `spec.prefill`, llm-d ModelService `spec.decode`
        if p in ("prefill", "decode"):
            hints.append((p, ".".join(str(x) for x in path[:i + 1])))
            break
    name_role = role_in_name(resource)
    if name_role:
        hints.append((name_role, f"the name {resource}"))
    if role_in_name(container):
        hints.append((role_in_name(container) or "", f"container {container}"))
    return tuple(hints)


def ignore_annotation(doc: YamlDoc, data: dict, path: tuple, prefix: tuple):
    """(codes, location) of a `vllm-preflight.io/ignore` annotation on the pod template or the resource."""
    nodes = _along(data, path)
    for node in nodes:
        value = _meta(node, "annotations").get(IGNORE_ANNOTATION)
        if value is not None and not isinstance(value, str):  # Kubernetes takes strings only: a list
            here = _path_to(data, path, node)  # or number silences nothing, and VP391 says so (it was skipped)
            return (repr(value),), doc.location(prefix + here + ("metadata", "annotations", IGNORE_ANNOTATION))
        if isinstance(value, str):
            codes = tuple(dict.fromkeys(c.strip() for c in value.replace(" ", ",").split(",") if c.strip()))
            here = _path_to(data, path, node)  # the node's own path: the annotation's line
            return codes, doc.location(prefix + here + ("metadata", "annotations", IGNORE_ANNOTATION))
    return (), None


def _path_to(data: Any, path: tuple, target: dict) -> tuple:
    node = data
    if node is target:
        return ()
    for k, p in enumerate(path):
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            break
        if node is target:
            return path[:k + 1]
    return ()


def named(found: list[LoadedDeployment], data: dict, doc: YamlDoc | None = None,
          prefix: tuple = ()) -> list[LoadedDeployment]:
    """The servers of one resource, with their place in it (`KIND/NAME › [PART ›] CONTAINER`, which
    identity.server_name completes), what the manifest says of their role, and its ignore
    annotation. `source` stays the stable id."""
    raw_meta = data.get("metadata")
    meta = raw_meta if isinstance(raw_meta, dict) else {}
    rname = meta.get("name") if isinstance(meta.get("name"), str) else None
    resource = f"{data.get('kind')}/{rname}" if rname else str(data.get("kind"))
    both_templates = data.get("kind") == "LeaderWorkerSet" and "leaderTemplate" in str(data)
    out = []
    for d in found:
        where, _, branch = d.source.rsplit(":", 1)[-1].partition("#")
        parts = where.split(".")
        words = []
        for k, p in enumerate(parts[:-1]):
            if p.isdigit():
                continue
            w = _PLACE_WORDS.get(p, p)
            if p == "template" and data.get("kind") == "LLMInferenceService" and \
                    isinstance(_along(data, tuple(parts[:k]))[0].get("worker"), dict):
                w = "leader"  # KServe: a role with workers runs its template as the leader pod
            if w in ("leader", "worker") and data.get("kind") == "LeaderWorkerSet" and not both_templates:
                continue  # the worker template alone serves the leader too: one place
            if w:
                words.append(w)
        text = " › ".join([resource] + words + [parts[-1]])
        text = shown(doc, text) if doc is not None else text
        changes: dict[str, Any] = {"name": text + (f" › script branch {branch}" if branch else "")}
        path = tuple(getattr(d, "pod_path", ()) or ())
        hints = role_hints(data, path, parts[-1], rname or "")
        if hints:
            changes["role_hints"] = tuple(hints) + tuple(getattr(d, "role_hints", ()) or ())
        if doc is not None:
            codes, loc = ignore_annotation(doc, data, path, prefix)
            if codes:
                changes.update(ignore_codes=codes, ignore_location=loc)
        out.append(replace(d, **changes))
    return out
