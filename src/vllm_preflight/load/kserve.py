"""KServe LLMInferenceService: the servers its well-known presets start.

KServe's controller fills the pod from presets (`config-llm-template`, and
`config-llm-worker-data-parallel` when `spec.worker` is set) whose script runs
`eval "exec vllm serve /mnt/models --served-model-name NAME --port 8000 [PARALLELISM FLAGS]
${VLLM_ADDITIONAL_ARGS}"`. So the server's flags are: `spec.parallelism` (tensor; with a
worker also expert, data, dataLocal, dataRPCPort and the start rank), then the words of
`VLLM_ADDITIONAL_ARGS` as the shell reads them (quotes honoured, via `eval`). A container
that sets its own `command` replaces the preset and is read like any other container.
`spec.prefill` has its own template/worker/parallelism. WHERE is `spec.template.main`,
`spec.worker.main`, `spec.prefill.template.main`, `spec.prefill.worker.main`.
"""
from __future__ import annotations

import os
from dataclasses import replace

from vllm_preflight.findings import Finding
from vllm_preflight.load import kubernetes as k8s
from vllm_preflight.load.images import version_source
from vllm_preflight.load.loaded import LoadedDeployment
from vllm_preflight.load.server import build
from vllm_preflight.load.shell import Found, RelexOrigin, ScriptError, Shell, TWord, image_version
from vllm_preflight.load.shell_words import ShellSyntaxError, lex
from vllm_preflight.load.source import fail
from vllm_preflight.load.symbols import Sym, lit, parse_arith
from vllm_preflight.load.yaml_marks import YamlDoc
from vllm_preflight.model import Assumption

ADDITIONAL_ARGS = "VLLM_ADDITIONAL_ARGS"


def _int(value, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _map(data: dict, key: str) -> dict:
    """data[key] when it is a mapping, else an empty one (a manifest may leave it out)."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _main_container(pod: dict) -> tuple[int, dict] | None:
    containers = pod.get("containers") if isinstance(pod, dict) else None
    if not isinstance(containers, list):
        return None
    for i, c in enumerate(containers):
        if isinstance(c, dict) and c.get("name") == "main":
            return i, c
    return None


def service_servers(doc: YamlDoc, data: dict, prefix: tuple, variables, configmaps: k8s.ConfigMaps,
                    where_prefix: str = "") -> list[LoadedDeployment]:
    spec = _map(data, "spec")
    model = _map(spec, "model")
    meta = _map(data, "metadata")
    raw_uri = model.get("uri")
    uri = raw_uri if isinstance(raw_uri, str) else ""
    served = str(model.get("name") or meta.get("name") or "model")
    hub = uri[len("hf://"):] if uri.startswith("hf://") else None
    top_par = _map(spec, "parallelism")
    roles = [("spec", spec, prefix + ("spec",), top_par, prefix + ("spec", "parallelism"))]
    prefill = spec.get("prefill")
    if isinstance(prefill, dict):
        own = prefill.get("parallelism") if isinstance(prefill.get("parallelism"), dict) else None
        roles.append(("spec.prefill", prefill, prefix + ("spec", "prefill"), own if own is not None else top_par,
                      prefix + (("spec", "prefill", "parallelism") if own is not None else ("spec", "parallelism"))))
    out: list[LoadedDeployment] = []
    for role_where, role, rpath, par, ppath in roles:
        has_worker = isinstance(role.get("worker"), dict)
        for part in ("template", "worker") if has_worker else ("template",):
            pod = _map(role, part)
            found = _main_container(pod)
            cidx, container = found if found else (None, {})
            where = f"{where_prefix}{role_where}.{part}"
            source = f"{doc.source.path}:{doc.index}:{where}.main"
            cpath = rpath + (part, "containers", cidx) if cidx is not None else rpath + (part,)
            lws_env = {"LWS_LEADER_ADDRESS": None, "LWS_GROUP_SIZE": None,
                       "LWS_WORKER_INDEX": lit("0") if part == "template" else None} if has_worker else {}
            pod_path = rpath[len(prefix):] + (part,)
            # the main workload of a service with spec.prefill is its decode pool
            hints = (("decode", "KServe: the main workload of a service with spec.prefill"),) \
                if isinstance(prefill, dict) and role_where == "spec" else ()
            if container.get("command"):
                found_here = k8s.container_servers(doc, cpath, container, source=source, where=where,
                                                   base_env=lws_env, assumptions=[], configmaps=configmaps,
                                                   variables=variables)
            else:
                found_here = [_preset_server(doc, cpath, container, source=source, part=part, has_worker=has_worker,
                                             par=par, ppath=ppath, served=served, hub=hub, uri=uri,
                                             model_loc=doc.location(prefix + ("spec", "model")),
                                             lws_env=lws_env, configmaps=configmaps, variables=variables)]
            out += [replace(d, pod_path=pod_path, role_hints=hints) for d in found_here]
    return out


def _preset_server(doc: YamlDoc, cpath: tuple, container: dict, *, source: str, part: str, has_worker: bool,
                   par: dict, ppath: tuple, served: str, hub: str | None, uri: str, model_loc,
                   lws_env: dict, configmaps: k8s.ConfigMaps, variables) -> LoadedDeployment:
    findings: list[Finding] = []
    env = k8s.container_env(doc, cpath, container, lws_env, configmaps, findings, variables)
    here = doc.location(cpath)
    assumptions = [Assumption("command", "KServe preset", "LLMInferenceService without its own command: the "
                              "server runs KServe's preset script (`vllm serve` with spec.parallelism flags, "
                              "then VLLM_ADDITIONAL_ARGS)")]
    model_word = hub or "/mnt/models"
    if hub:
        assumptions.append(Assumption("model", hub, f"KServe serves /mnt/models, downloaded from {uri}"))

    def w(text: str, path: tuple | None = None) -> TWord:
        return TWord(lit(text), doc.location(path) if path else here)

    words = [w("vllm"), w("serve"), TWord(lit(model_word), model_loc), w("--served-model-name"), w(served),
             w("--port"), w("8000")]
    if has_worker and par.get("expert") is True:
        words.append(w("--enable-expert-parallel", ppath + ("expert",)))
    if _int(par.get("tensor"), 0):
        words += [w("--tensor-parallel-size", ppath + ("tensor",)), w(str(par["tensor"]), ppath + ("tensor",))]
    if has_worker:
        local = _int(par.get("dataLocal"), 1)
        words += [w("--data-parallel-size", ppath + ("data",)), w(str(_int(par.get("data"), 1)), ppath + ("data",)),
                  w("--data-parallel-size-local", ppath + ("dataLocal",)), w(str(local), ppath + ("dataLocal",)),
                  w("--data-parallel-address"),
                  TWord((Sym("opaque", "$DP_ADDRESS", "$DP_ADDRESS", loc=here),), here),
                  w("--data-parallel-rpc-port"), w(str(_int(par.get("dataRPCPort"), 5555)), ppath + ("dataRPCPort",)),
                  w("--data-parallel-start-rank")]
        if part == "template":
            words.append(w("0"))
        else:
            expr = parse_arith(f"LWS_WORKER_INDEX*{local}")
            words.append(TWord((Sym("arith", f"(LWS_WORKER_INDEX*{local})", f"$((LWS_WORKER_INDEX*{local}))",
                                    expr, loc=here),), here))
            words.append(w("--headless"))
    sh = Shell(pins=variables, env={k: v for k, v in env.items() if v is not None},
               runtime={k: k8s.RUNTIME_VARS.get(k, "set from valueFrom when the pod runs") for k, v in env.items() if v is None})
    extra = env.get(ADDITIONAL_ARGS)
    if extra:
        origin = RelexOrigin(extra, doc.location(cpath))
        try:
            script = lex(origin.flat)
        except ShellSyntaxError as e:
            loc = origin.location(e.offset)
            fail(doc.source.path, f"{ADDITIONAL_ARGS} cannot be read by the shell: {e.message}",
                 loc.line if loc else None, loc.column if loc else None)
        try:
            for cmd in script.commands:
                for word in cmd.words:
                    words.extend(sh.expand(word, origin))
        except ScriptError as e:
            fail(doc.source.path, e.message)
    image = container.get("image") if isinstance(container.get("image"), str) else None
    version = image_version(image) if image else None
    env_items = [(k, v) for k, v in env.items() if v is not None]
    found = Found(words, 2, env_items, here)
    return build(found, source=source, file=doc.source.path, base_dir=os.path.dirname(os.path.abspath(doc.source.path)),
                 fmt="kserve", assumptions=assumptions + sh.assumptions, findings=findings,
                 resolve_file=configmaps.file, vllm_version=version,
                 version_source=version_source(image) if version else None,
                 version_location=doc.location(cpath + ("image",)) if version else None)


# ------------------------------------------------------------- InferenceService + ServingRuntime
RUNTIME_KINDS = ("ServingRuntime", "ClusterServingRuntime")


def _predictor_model(data: dict) -> dict | None:
    predictor = _map(_map(data, "spec"), "predictor")
    model = predictor.get("model")
    return model if isinstance(model, dict) else None


def has_model(data: dict) -> bool:
    return _predictor_model(data) is not None


class Runtimes:
    """The ServingRuntimes of a file, and which InferenceService uses each.

    KServe runs an InferenceService's `predictor.model` with the runtime it names
    (`model.runtime`), else one whose `supportedModelFormats` lists the model's format with
    `autoSelect`. A runtime's args hold KServe's own placeholders (`{{.Name}}` is the service's
    name). A runtime some service of the file uses is read through that service; one no
    service uses is read on its own, its placeholders unknown."""

    def __init__(self, found: list):
        self.by_name: dict[str, tuple] = {}
        services = []
        for doc, data, prefix, where_prefix in found:
            name = _map(data, "metadata").get("name")
            if data["kind"] in RUNTIME_KINDS and isinstance(name, str):
                self.by_name.setdefault(name, (doc, data, prefix))
            elif data["kind"] == "InferenceService":
                services.append(data)
        self._used = {id(rt[1]) for s in services if (rt := self.pick(s)) is not None}

    def pick(self, service: dict) -> tuple | None:
        model = _predictor_model(service)
        if model is None:
            return None
        if isinstance(model.get("runtime"), str):
            return self.by_name.get(model["runtime"])
        fmt = _map(model, "modelFormat").get("name")
        for rt in self.by_name.values():
            for f in _map(rt[1], "spec").get("supportedModelFormats") or []:
                if isinstance(f, dict) and str(f.get("name", "")).lower() == str(fmt).lower() and f.get("autoSelect"):
                    return rt
        return None

    def used(self, data: dict) -> bool:
        return id(data) in self._used


def inference_servers(doc: YamlDoc, data: dict, prefix: tuple, variables, configmaps: k8s.ConfigMaps,
                      runtimes: Runtimes, where_prefix: str = "") -> list[LoadedDeployment]:
    """An InferenceService's `predictor.model` run by a ServingRuntime of the same file: the
    runtime's container with the model's args after its own, `{{.Name}}` the service's name."""
    model = _predictor_model(data)
    rt = runtimes.pick(data) if model is not None else None
    if model is None or rt is None:
        return []
    rdoc, rdata, rprefix = rt
    containers = _map(rdata, "spec").get("containers")
    if not isinstance(containers, list):
        return []
    picked = next(((i, c) for i, c in enumerate(containers) if isinstance(c, dict) and c.get("name") == "kserve-container"),
                  next(((i, c) for i, c in enumerate(containers) if isinstance(c, dict)), None))
    if picked is None:
        return []
    cidx, container = picked
    cpath = rprefix + ("spec", "containers", cidx)
    mpath = prefix + ("spec", "predictor", "model")
    name = str(_map(data, "metadata").get("name") or "")
    pins = {**(variables or {}), ".Name": name}
    findings: list[Finding] = []
    assumptions: list[Assumption] = [Assumption("command", "KServe ServingRuntime " + str(_map(rdata, "metadata").get(
        "name")), "the InferenceService's model runs its runtime's container, with the model's args after the "
                  "runtime's own")]
    env = k8s.container_env(rdoc, cpath, container, {}, configmaps, findings, pins, assumptions)
    env.update(k8s.container_env(doc, mpath, model, {}, configmaps, findings, pins, assumptions))
    words = k8s.container_words(rdoc, cpath, ("command", "args"), container, env, pins, assumptions)
    words += k8s.container_words(doc, mpath, ("args",), model, env, pins, assumptions)
    uri: str = model["storageUri"] if isinstance(model.get("storageUri"), str) else ""
    if uri.startswith("hf://"):
        hub = uri[len("hf://"):]
        words = [_mounted_model(w, hub) for w in words]
        assumptions.append(Assumption("model", hub, f"KServe serves /mnt/models, downloaded from {uri}"))
    image = container.get("image") if isinstance(container.get("image"), str) else None
    if image and isinstance(model.get("runtimeVersion"), str):
        image = image.rsplit(":", 1)[0] + ":" + model["runtimeVersion"]  # the model picks the runtime's tag
    if not container.get("command"):
        if not image or not k8s.is_vllm_image(image):
            return []
        from vllm_preflight.load.images import image_entrypoint

        head, note = image_entrypoint(words, rdoc.location(cpath))
        words = head + words
        assumptions.append(note)
    sh = Shell(pins=pins, env={k: v for k, v in env.items() if v is not None},
               runtime={k: "set from valueFrom when the pod runs" for k, v in env.items() if v is None})
    try:
        sh.exec_words(words, [], doc.location(mpath))
    except ScriptError as e:
        fail(doc.source.path, f"InferenceService {name}: {e.message}", e.loc.line if e.loc else None,
             e.loc.column if e.loc else None)
    version = image_version(image) if image else None
    out = []
    cname = container.get("name") if isinstance(container.get("name"), str) else str(cidx)
    for k, found in enumerate(sh.found):
        source = f"{doc.source.path}:{doc.index}:{where_prefix}spec.predictor.{cname}" + (
            f"#{k + 1}" if len(sh.found) > 1 else "")
        out.append(build(found, source=source, file=doc.source.path,
                         base_dir=os.path.dirname(os.path.abspath(doc.source.path)), fmt="kserve",
                         assumptions=assumptions + sh.assumptions, findings=findings, resolve_file=configmaps.file,
                         vllm_version=version, version_source=version_source(image) if version else None,
                         version_location=rdoc.location(cpath + ("image",)) if version else None))
    return out


def _mounted_model(word: TWord, hub: str) -> TWord:
    """`/mnt/models` (alone or as `--model=/mnt/models`) as the hub model KServe downloads there."""
    from vllm_preflight.load.symbols import Lit, literal

    text = literal(word.text)
    if text is not None and (text == "/mnt/models" or text.endswith("=/mnt/models")):
        return TWord((Lit(text[:-len("/mnt/models")] + hub, *(word.text[0].origin, word.text[0].base)),), word.loc,
                     word.fields, word.tag)
    return word
