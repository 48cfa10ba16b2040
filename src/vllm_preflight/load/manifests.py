"""Kubernetes manifests, read resource by resource: pod specs (kubernetes.py) and KServe
LLMInferenceServices (kserve.py), each server named after its resource and container."""
from __future__ import annotations

from vllm_preflight.load import kserve, limits
from vllm_preflight.load.kubernetes import ConfigMaps, is_manifest, named, pod_servers
from vllm_preflight.load.loaded import LoadedDeployment
from vllm_preflight.load.yaml_marks import YamlDoc


def load_docs(docs: list[YamlDoc], variables: dict[str, str] | None = None) -> list[LoadedDeployment]:
    configmaps = ConfigMaps(docs)
    out: list[LoadedDeployment] = []
    for doc in docs:
        data = doc.data
        if not is_manifest(data):
            continue
        kind = data["kind"]
        if kind == "List" and isinstance(data.get("items"), list):
            for i, item in enumerate(data["items"]):
                if is_manifest(item):
                    if item["kind"] == "LLMInferenceService":
                        out += named(kserve.service_servers(doc, item, ("items", i), variables, configmaps,
                                                            f"items.{i}."), item)
                    else:
                        out += named(pod_servers(doc, item, item["kind"], ("items", i), variables, configmaps,
                                                 f"items.{i}.", len(out)), item)
                    limits.check_servers(len(out), doc.source.path, doc.location(("items", i)))
            continue
        if kind == "LLMInferenceService":
            out += named(kserve.service_servers(doc, data, (), variables, configmaps), data)
        else:
            out += named(pod_servers(doc, data, kind, (), variables, configmaps, already=len(out)), data)
        limits.check_servers(len(out), doc.source.path, doc.location(()))
    return out
