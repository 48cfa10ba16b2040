"""Ray-based fleets: KubeRay (RayCluster, RayJob, RayService) and AIBrix RayClusterFleet.

Their head and worker pods are pod templates like any other (`headGroupSpec`,
`workerGroupSpecs[]`): a container whose command starts a server is read, usually the head's
`bash -lc "...; $KUBERAY_GEN_RAY_START_CMD; vllm serve ..."`. A RayJob's `spec.entrypoint`
is a command Ray runs on the head: read as a script with the head container's environment
and image. Servers of these resources run on a Ray cluster, so ray is installed on their
nodes (the `node.ray` assumption). A RayService's Ray Serve application (serveConfigV2) starts
vLLM from Python and is not read.
"""
from __future__ import annotations

import os
from dataclasses import replace

from vllm_preflight.load import kubernetes as k8s
from vllm_preflight.load.images import image_version, version_source
from vllm_preflight.load.loaded import LoadedDeployment
from vllm_preflight.load.server import build
from vllm_preflight.load.shell import ScriptError, Shell
from vllm_preflight.load.source import fail
from vllm_preflight.load.yaml_marks import YamlDoc
from vllm_preflight.model import Assumption


def _head(data: dict, prefix: tuple) -> tuple[tuple, dict] | None:
    """(path, container) of the first container of the RayJob's head pod."""
    spec: dict = data["spec"] if isinstance(data.get("spec"), dict) else {}
    cluster = spec.get("rayClusterSpec")
    head = cluster.get("headGroupSpec") if isinstance(cluster, dict) else None
    pod = ((head or {}).get("template") or {}).get("spec") if isinstance(head, dict) else None
    containers = pod.get("containers") if isinstance(pod, dict) else None
    if not isinstance(containers, list) or not containers or not isinstance(containers[0], dict):
        return None
    return prefix + ("spec", "rayClusterSpec", "headGroupSpec", "template", "spec", "containers", 0), containers[0]


def job_servers(doc: YamlDoc, data: dict, prefix: tuple, variables, configmaps: k8s.ConfigMaps,
                where_prefix: str = "") -> list[LoadedDeployment]:
    spec: dict = data["spec"] if isinstance(data.get("spec"), dict) else {}
    entrypoint = spec.get("entrypoint")
    if not isinstance(entrypoint, str) or "vllm" not in entrypoint:
        return []
    path = prefix + ("spec", "entrypoint")
    head = _head(data, prefix)
    env: dict = {}
    image = None
    findings: list = []
    if head is not None:
        cpath, container = head
        env = k8s.container_env(doc, cpath, container, {}, configmaps, findings, variables)
        image = container.get("image") if isinstance(container.get("image"), str) else None
    sh = Shell(pins=variables, env={k: v for k, v in env.items() if v is not None}, positional=[])
    scalar = doc.scalar_text(path)
    try:
        sh.run_text(entrypoint, scalar, fallback=doc.location(path))
    except ScriptError as e:
        fail(doc.source.path, f"RayJob entrypoint: shell syntax error: {e.message}", e.loc.line if e.loc else None,
             e.loc.column if e.loc else None)
    version = image_version(image) if image else None
    out = []
    for k, found in enumerate(sh.found):
        source = f"{doc.source.path}:{doc.index}:{where_prefix}spec.entrypoint" + (
            f"#{k + 1}" if len(sh.found) > 1 else "")
        out.append(build(found, source=source, file=doc.source.path,
                         base_dir=os.path.dirname(os.path.abspath(doc.source.path)), fmt="kubernetes",
                         assumptions=sh.assumptions, findings=findings + list(sh.notes), vllm_version=version,
                         version_source=version_source(image) if version else None,
                         version_location=doc.location(head[0] + ("image",)) if version and head else None))
    return out


def on_ray_cluster(d: LoadedDeployment, kind: str) -> LoadedDeployment:
    """A server of a Ray-based resource: ray is installed where it runs."""
    if ("ray", True) in d.node_facts:
        return d  # its script starts Ray itself: said once
    fact = Assumption("node.ray", True, f"the server runs on a Ray cluster ({kind}): ray is installed on its nodes")
    return replace(d, assumptions=d.assumptions + (fact,), node_facts=d.node_facts + (("ray", True),))
