"""Kubernetes manifests: each vLLM container one Deployment, sidecars none, places kept."""
from __future__ import annotations

from conftest import INPUTS, by_source, rel
from vllm_preflight.load import load_path
from vllm_preflight.load.manifests import load_docs
from vllm_preflight.load.source import Source
from vllm_preflight.load.yaml_marks import parse_documents

K8S = INPUTS / "kubernetes"


def load_yaml(text: str, path: str = "m.yaml", variables=None):
    return load_docs(parse_documents(Source(path, text)), variables)


def test_lws_prefill_decode_pairs_with_bash_scripts(in_root):
    path = rel(K8S / "lws-wide-ep-pd.yaml")
    found = by_source(load_path(path))
    decode_leader = f"{path}:0:leaderWorkerTemplate.workerTemplate.vllm#1"
    decode_worker = f"{path}:0:leaderWorkerTemplate.workerTemplate.vllm#2"
    prefill = f"{path}:1:leaderWorkerTemplate.workerTemplate.vllm"
    assert sorted(found) == sorted([decode_leader, decode_worker, prefill])  # the routing sidecar is no server
    d = found[decode_leader]
    i = d.argv.index("--data-parallel-size")
    assert d.argv[i + 1] == "16"  # $((LWS_GROUP_SIZE * DP_SIZE_LOCAL)): size 2 x env DP_SIZE_LOCAL=8
    # LWS sets LWS_WORKER_INDEX on every pod, so `${LWS_WORKER_INDEX:-0}`'s default never applies:
    # the rank is the pod's (0 on the leader, 8 on the worker), not 0 (issue 19)
    assert d.argv[d.argv.index("--data-parallel-start-rank") + 1] == "$(( ${LWS_WORKER_INDEX:-0} * DP_SIZE_LOCAL ))"
    assert d.argv[-2:] == ("--kv_transfer_config", '{"kv_connector":"NixlConnector", "kv_role":"kv_both"}')
    assert "--headless" in found[decode_worker].argv and "--headless" not in d.argv
    env = dict(d.env)
    assert env["VLLM_ALL2ALL_BACKEND"] == "deepep_low_latency" and env["DP_SIZE_LOCAL"] == "8"
    assert "VLLM_NIXL_SIDE_CHANNEL_HOST" not in env and "HF_TOKEN" not in env  # valueFrom stays unknown
    assert (d.location.line, d.location.column) == (48, 24)  # `vllm` inside the block scalar
    facts = {a.fact: a for a in d.assumptions}
    assert facts["LWS_GROUP_SIZE"].value == 2
    assert "LWS_WORKER_INDEX" not in facts  # not taken at its default
    p = found[prefill]
    assert p.argv[p.argv.index("--all2all-backend") + 1] == "deepep_high_throughput"
    assert p.argv[p.argv.index("--data-parallel-start-rank") + 1] == "$(( LWS_WORKER_INDEX * DP_SIZE_LOCAL ))"


def test_word_places_inside_block_scalars(in_root):
    found = load_path(rel(K8S / "lws-wide-ep-pd.yaml"))
    prefill = [d for d in found if d.source.endswith(":1:leaderWorkerTemplate.workerTemplate.vllm")][0]
    by_text = {w.text[0].text: w.loc for w in prefill.template if len(w.text) == 1 and hasattr(w.text[0], "text")}
    loc = by_text["--all2all-backend"]
    assert (loc.line, loc.column) == (127, 19)
    line = (K8S / "lws-wide-ep-pd.yaml").read_text().splitlines()[126]
    assert line[18:].startswith("--all2all-backend")


def test_kserve_preset_flags_from_parallelism_and_additional_args(in_root):
    path = rel(K8S / "kserve-dp-ep-deepep-ht.yaml")
    found = by_source(load_path(path))
    assert sorted(found) == [f"{path}:0:spec.template.main", f"{path}:0:spec.worker.main"]
    leader = found[f"{path}:0:spec.template.main"]
    a = leader.argv
    assert a[:3] == ("vllm", "serve", "deepseek-ai/DeepSeek-V3")
    assert a[a.index("--data-parallel-size") + 1] == "16" and a[a.index("--data-parallel-size-local") + 1] == "8"
    assert "--enable-expert-parallel" in a and a[a.index("--tensor-parallel-size") + 1] == "1"
    # VLLM_ADDITIONAL_ARGS, read by the shell (eval): the quoted JSON stays one word
    assert a[a.index("--all2all-backend") + 1] == "deepep_high_throughput"
    assert a[a.index("--compilation-config") + 1] == '{"cudagraph_mode": "FULL_AND_PIECEWISE"}'
    w = [t for t in leader.template if t.text and getattr(t.text[0], "text", "") == "--all2all-backend"][0]
    assert (w.loc.line, w.loc.column) == (28, 21)  # inside the env value string
    assert found[f"{path}:0:spec.worker.main"].argv[a.index("--data-parallel-start-rank") + 2] == "--headless"
    assert {x.fact for x in leader.assumptions} >= {"command", "model"}


def test_helm_rendered_deployment_with_configmap_config(in_root):
    path = rel(K8S / "helm-rendered-deployment.yaml")
    [d] = load_path(path)
    assert d.source == f"{path}:3:spec.template.vllm"  # init container and exporter are no servers
    assert d.vllm_version == "0.13.0"  # from the image, not from the comment above it
    assert (d.version_location.line, d.version_location.column) == (71, 18)
    assert d.argv[:3] == ("vllm", "serve", "meta-llama/Llama-3.3-70B-Instruct")
    assert d.argv[3:7] == ("--tensor-parallel-size", "8", "--max_model_len", "32768")  # config first, CLI after
    assert d.argv[-4:] == ("--port", "8000", "--max-num-seqs", "256")
    item = [t for t in d.template if getattr(t, "key", None) == "compilation-config"][0]
    assert (item.key_loc.file, item.key_loc.line, item.key_loc.column) == (path, 23, 5)


def test_role_lists_pods_jobs_and_statefulsets(in_root):
    roles = by_source(load_path(rel(K8S / "disaggregated-roles.yaml")))
    base = rel(K8S / "disaggregated-roles.yaml")
    assert sorted(roles) == [f"{base}:0:roles.decode.vllm", f"{base}:0:roles.prefill.vllm"]
    assert all(d.vllm_version == "0.20.2" for d in roles.values())
    mixed = by_source(load_path(rel(K8S / "pod-job-statefulset.yaml")))
    base = rel(K8S / "pod-job-statefulset.yaml")
    assert sorted(mixed) == [f"{base}:0:spec.server", f"{base}:1:spec.template.server", f"{base}:2:spec.template.vllm"]
    pod = mixed[f"{base}:0:spec.server"]
    assert pod.argv[pod.argv.index("--tensor-parallel-size") + 1] == "4"  # $(TP_SIZE) from env, as Kubernetes does
    job = mixed[f"{base}:1:spec.template.server"]  # bash -lc with a folded script: nsys + numactl wrappers
    assert job.argv == ("vllm", "serve", "deepseek-ai/DeepSeek-V3", "-dp", "8", "--enable-expert-parallel",
                        "--all2all-backend", "deepep_high_throughput")
    assert mixed[f"{base}:2:spec.template.vllm"].vllm_version == "0.40.0"


def test_image_tags_of_other_products_are_not_vllm_versions():
    from vllm_preflight.load.shell import image_version, is_vllm_image

    assert image_version("vllm/vllm-openai:v0.22.1") == "0.22.1"
    assert image_version("docker.io/vllm/vllm-openai:v0.10.1.1") == "0.10.1.1"
    assert image_version("quay.io/mirror/vllm-openai:v0.13.0") == "0.13.0"
    for other in ("ghcr.io/llm-d/llm-d:v0.2.0", "registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.2.1",
                  "rocm/vllm:rocm6.4.1_vllm_0.9.1_20250715", "vllm/vllm-openai:latest", "vllm/vllm-openai"):
        assert image_version(other) is None, other
    assert is_vllm_image("vllm/vllm-openai:v0.13.0") and is_vllm_image("rocm/vllm:latest")
    assert not is_vllm_image("ghcr.io/llm-d/llm-d-routing-sidecar:v0.2.0")
    assert not is_vllm_image("vllm/vllm-router:latest")


def test_args_only_vllm_image_is_a_server_and_sidecars_are_not():
    text = """\
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      initContainers:
        - name: warmup
          image: busybox
          args: ["--data-parallel-size", "8"]
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.20.2
          args: ["--model", "m", "-dp", "$(DP)"]
          env:
            - {name: DP, valueFrom: {configMapKeyRef: {name: cfg, key: dp}}}
        - name: proxy
          image: envoyproxy/envoy:v1.31
          args: ["--data-parallel-size", "8"]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data: {dp: "4"}
"""
    [d] = load_yaml(text)
    assert d.source == "m.yaml:0:spec.template.vllm"
    assert d.argv == ("python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m", "-dp", "4")


def test_value_from_stays_symbolic_in_args():
    text = """\
apiVersion: v1
kind: Pod
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.20.2
      args: ["m", "-dp", "$(DP)", "--x", "$(UNDEFINED)", "--y", "$$(escaped)"]
      env:
        - {name: DP, valueFrom: {fieldRef: {fieldPath: metadata.labels.dp}}}
"""
    [d] = load_yaml(text)
    assert d.argv == ("vllm", "serve", "m", "-dp", "$(DP)", "--x", "$(UNDEFINED)", "--y", "$(escaped)")
    assert d.template[4].text[0].kind == "var" and d.template[4].text[0].name == "DP"


def test_variables_pin_lws_values(in_root):
    found = load_path(rel(K8S / "lws-wide-ep-pd.yaml"), variables={"LWS_GROUP_SIZE": "4"})
    assert all(d.argv[d.argv.index("--data-parallel-size") + 1] == "32" for d in found)


def test_lws_leader_and_worker_templates_get_their_own_worker_index():
    text = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
spec:
  leaderWorkerTemplate:
    size: 4
    leaderTemplate:
      spec:
        containers:
          - name: vllm-leader
            image: vllm/vllm-openai:v0.20.2
            command: [sh, -c, "vllm serve m -dp $((LWS_GROUP_SIZE*8)) --data-parallel-start-rank $((LWS_WORKER_INDEX*8))"]
    workerTemplate:
      spec:
        containers:
          - name: vllm-worker
            image: vllm/vllm-openai:v0.20.2
            command: [sh, -c, "vllm serve m -dp $((LWS_GROUP_SIZE*8)) --data-parallel-start-rank $((LWS_WORKER_INDEX*8)) --headless"]
"""
    found = {d.source: d for d in load_yaml(text)}
    leader = found["m.yaml:0:leaderWorkerTemplate.leaderTemplate.vllm-leader"]
    worker = found["m.yaml:0:leaderWorkerTemplate.workerTemplate.vllm-worker"]
    assert leader.argv[4] == "32" and leader.argv[6] == "0"
    assert worker.argv[4] == "32" and worker.argv[6] == "$((LWS_WORKER_INDEX*8))"


def test_kserve_prefill_section_and_a_command_of_its_own():
    text = """\
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata: {name: pd}
spec:
  model: {uri: "hf://Qwen/Qwen3-30B-A3B", name: qwen}
  parallelism: {tensor: 2}
  template:
    containers:
      - name: main
        image: vllm/vllm-openai:v0.24.0
        command: ["vllm", "serve", "/mnt/models", "-tp", "2", "--kv-transfer-config", '{"kv_role":"kv_consumer"}']
  prefill:
    parallelism: {tensor: 4}
    template:
      containers:
        - name: main
          env:
            - {name: VLLM_ADDITIONAL_ARGS, value: "--enforce-eager"}
"""
    found = {d.source: d for d in load_yaml(text)}
    decode = found["m.yaml:0:spec.template.main"]
    assert decode.argv[:5] == ("vllm", "serve", "/mnt/models", "-tp", "2") and decode.vllm_version == "0.24.0"
    prefill = found["m.yaml:0:spec.prefill.template.main"]
    assert prefill.argv == ("vllm", "serve", "Qwen/Qwen3-30B-A3B", "--served-model-name", "qwen", "--port", "8000",
                            "--tensor-parallel-size", "4", "--enforce-eager")
    assert prefill.format == "kserve"
