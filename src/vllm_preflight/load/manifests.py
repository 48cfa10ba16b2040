"""Kubernetes manifests, read resource by resource: pod specs (kubernetes.py), KServe
LLMInferenceServices and InferenceServices with their ServingRuntimes (kserve.py), Ray-based
fleets (ray.py), each server named after its resource and container. Serving resources whose
server is no command the tool reads (NOT_READ) are said not read: a part left out."""
from __future__ import annotations

from vllm_preflight.load import kserve, limits, ray
from vllm_preflight.load.kubernetes import ConfigMaps, is_manifest, named, pod_servers, shown
from vllm_preflight.load.loaded import LoadedDeployment, Skipped
from vllm_preflight.load.yaml_marks import YamlDoc

# Serving resources whose server is not a command the tool can read: said, not passed over
NOT_READ = {
    "RayService": "Ray Serve starts vLLM from Python (serveConfigV2 and its engine_kwargs), not from a command; "
                  "not read",
    "VLLMRuntime": "the production-stack operator builds the vLLM command from spec.vllmConfig; not read",
    "InferenceService": "its predictor runs a KServe runtime that is not in this file (a built-in one, such as the "
                        "Hugging Face server); not read",
}
# resources that run their pods on a Ray cluster: ray is installed on those nodes
RAY_KINDS = frozenset({"RayCluster", "RayService", "RayJob", "RayClusterFleet"})


def resources(docs: list[YamlDoc]):
    """(doc, resource, path prefix, where prefix) of every manifest, `kind: List` items included."""
    for doc in docs:
        data = doc.data
        if not is_manifest(data):
            continue
        if data["kind"] == "List" and isinstance(data.get("items"), list):
            for i, item in enumerate(data["items"]):
                if is_manifest(item):
                    yield doc, item, ("items", i), f"items.{i}."
            continue
        yield doc, data, (), ""


def load_docs(docs: list[YamlDoc], variables: dict[str, str] | None = None, skipped: list | None = None
              ) -> list[LoadedDeployment]:
    """The servers of every resource; past the file's limit (load.limits) the input is too complex."""
    configmaps = ConfigMaps(docs)
    runtimes = kserve.Runtimes(list(resources(docs)))
    out: list[LoadedDeployment] = []
    for doc, data, prefix, where_prefix in resources(docs):
        kind = data["kind"]
        if kind == "LLMInferenceService":
            found = kserve.service_servers(doc, data, prefix, variables, configmaps, where_prefix)
        elif kind in kserve.RUNTIME_KINDS and runtimes.used(data):
            found = []  # read through the InferenceServices that use it
        else:
            found = pod_servers(doc, data, kind, prefix, variables, configmaps, where_prefix, already=len(out))
            if kind == "InferenceService":
                found += kserve.inference_servers(doc, data, prefix, variables, configmaps, runtimes, where_prefix)
            elif kind == "RayJob":
                found += ray.job_servers(doc, data, prefix, variables, configmaps, where_prefix)
            if kind in RAY_KINDS:
                found = [ray.on_ray_cluster(d, kind) for d in found]
        if not found and kind in NOT_READ and skipped is not None and not (
                kind == "InferenceService" and not kserve.has_model(data)):
            name = (data.get("metadata") or {}).get("name") if isinstance(data.get("metadata"), dict) else None
            skipped.append(Skipped(f"{doc.location(prefix).file}:{doc.location(prefix).line}",
                                   f"{kind} {shown(doc, str(name)) if name else ''}: {NOT_READ[kind]}".replace("  ", " ")))
        out += named(found, data, doc, prefix)
        limits.check_servers(len(out), doc.source.path, doc.location(prefix))
    return out
