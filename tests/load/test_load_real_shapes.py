"""Issue 19: the shapes deployers write, read the way they run. Every input is written here."""
from __future__ import annotations

import textwrap

from vllm_preflight.load.shell_file import load
from vllm_preflight.load.source import Source


def servers(text: str, path: str = "run.sh", variables=None):
    return load(Source(path, textwrap.dedent(text)), variables)


def argvs(text: str, path: str = "run.sh", variables=None) -> list[str]:
    return [" ".join(d.argv) for d in servers(text, path, variables)]


# ------------------------------------------------------------------ phantom servers
def test_server_words_behind_a_program_that_is_no_launcher_are_its_arguments():
    # prose read as a script, and programs that take `vllm serve` as data
    assert argvs("""\
        Then run vllm serve Qwen/Qwen3-8B --tool-call-parser hermes to enable tools
        You can also use vllm serve m
        grep -r "vllm serve" .
        """) == []


def test_launchers_and_user_wrappers_still_run_the_server():
    assert argvs("""\
        CUDA_VISIBLE_DEVICES=0,1 nohup numactl -N 0 vllm serve a -tp 2 &
        srun --ntasks-per-node=1 --gpus-per-task=8 vllm serve b
        timeout 3600 python3 -u -m vllm.entrypoints.openai.api_server --model c
        ./with-env.sh vllm serve d
        $LAUNCHER vllm serve e
        uv run --with vllm vllm serve f
        """) == ["vllm serve a -tp 2", "vllm serve b", "python3 -m vllm.entrypoints.openai.api_server --model c",
                 "vllm serve d", "vllm serve e", "vllm serve f"]


def test_an_interactive_shell_entrypoint_is_no_server():
    assert argvs("""\
        docker run --gpus all --entrypoint /bin/bash -it vllm/vllm-openai:v0.22.0
        docker run --rm -it --entrypoint=bash vllm/vllm-openai:v0.22.0 -l
        """) == []


def test_an_entrypoint_override_runs_its_own_command():
    [d] = servers("""\
        IMAGE=vllm/vllm-openai:v0.22.0
        docker run --rm --entrypoint bash -e VLLM_LOGGING_LEVEL=DEBUG $IMAGE -c "vllm serve m -tp ${TP:-2}"
        """)
    assert d.argv == ("vllm", "serve", "m", "-tp", "2")
    assert d.vllm_version == "0.22.0" and dict(d.env) == {"VLLM_LOGGING_LEVEL": "DEBUG"}
    [d] = servers("docker run --entrypoint vllm vllm/vllm-openai:v0.22.0 serve m --port 8001\n")
    assert d.argv == ("vllm", "serve", "m", "--port", "8001")


def test_any_image_running_the_server_command_is_read_and_the_host_env_is_passed_by_name():
    [d] = servers("""\
        export HF_TOKEN=hf_x
        docker run --gpus all -e HF_TOKEN nvcr.io/nvidia/pytorch:25.01-py3 vllm serve m
        """)
    assert d.argv == ("vllm", "serve", "m") and dict(d.env) == {"HF_TOKEN": "hf_x"}
    assert servers("docker run --gpus all nvcr.io/nvidia/pytorch:25.01-py3 python train.py\n") == []


def test_an_image_with_a_variable_tag_is_still_the_vllm_image():
    [d] = servers("docker run --gpus all vllm/vllm-openai:${TAG} --model m\n")
    assert d.argv == ("python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m")
    assert d.vllm_version is None


def test_the_entrypoint_assumption_belongs_to_its_own_server():
    a, b = servers("""\
        docker run vllm/vllm-openai:v0.22.0 m1
        docker run vllm/vllm-openai:v0.22.0 --model m2
        """)
    assert [x.value for x in a.assumptions if x.fact == "entrypoint"] == ["vllm serve"]
    assert [x.value for x in b.assumptions if x.fact == "entrypoint"] == [
        "python3 -m vllm.entrypoints.openai.api_server"]


def test_commands_given_as_one_string_to_tmux_sbatch_and_su():
    assert argvs("""\
        tmux new-session -d -s serve "vllm serve a --port 8001"
        tmux send-keys -t serve 'vllm serve b' Enter
        sbatch --wrap="vllm serve c"
        su - svc -c 'vllm serve d'
        tmux ls
        """) == ["vllm serve a --port 8001", "vllm serve b", "vllm serve c", "vllm serve d"]


# ------------------------------------------------------------------ Markdown blocks
def md(text: str, skipped: list | None = None):
    from vllm_preflight.load.markdown import load_markdown

    return load_markdown(Source("GUIDE.md", textwrap.dedent(text)), None, skipped)


GUIDE = """\
    # Serving Qwen3

    Start it with `vllm serve Qwen/Qwen3-8B --tool-call-parser hermes` as shown below.

    ```
    INFO 03-01 12:00:01 api_server.py:1] vLLM's API server started
    ```

    ```python
    print("it's")
    ```

    ```bash
    export MODEL=Qwen/Qwen3-8B
    ```

    ```bash
    vllm serve $MODEL --port <port> -tp 2
    ```

    ```text
    You can run vllm serve Qwen/Qwen3-8B --tool-call-parser hermes to enable tools.
    ```

    1. Or in a virtual environment:

       ```sh
       (venv) $ vllm serve other \\
           --max-model-len 4096
       Loading weights took 3.2 s
       ```
    """


def test_each_markdown_block_stands_alone():
    skipped: list = []
    a, b = md(GUIDE, skipped)
    assert a.argv == ("vllm", "serve", "Qwen/Qwen3-8B", "--port", "<port>", "-tp", "2")
    assert (a.location.line, a.location.column) == (18, 1)
    assert b.argv == ("vllm", "serve", "other", "--max-model-len", "4096")
    assert (b.location.line, b.location.column) == (28, 13)  # after the list indent and the prompt
    # the log with an apostrophe is left out and said; prose, inline code and Python are not read
    assert skipped == ["GUIDE.md:6"] and "unterminated single quote" in skipped[0].reason


def test_a_placeholder_is_an_unknown_value_the_deployment_fills():
    from vllm_preflight.api import check_deployment

    [d] = md("```bash\nvllm serve <model> --port <port> -tp <tp>\n```\n")
    res = check_deployment(d).to_json()
    assert res["resolved"]["parallel_config"]["tensor_parallel_size"] == 1  # the least value, stated
    assert "<tp>" in res["depends_on"]
    assert any("--assume '<tp>=VALUE'" in f["message"] for f in res["findings"])


def test_a_markdown_file_whose_only_block_fails_says_it_holds_no_server(tmp_path):
    from vllm_preflight.load import load_paths

    p = tmp_path / "NOTES.md"
    p.write_text("```\nit's output\n```\n")
    skipped: list = []
    found, errors = load_paths([str(p)], skipped=skipped)
    assert found == [] and "no `vllm serve` command" in errors[0].message
    assert [str(s) for s in skipped] == [f"{p}:2"]


# ------------------------------------------------------------------ templated multi-document YAML
def yaml_file(tmp_path, text: str, name: str = "deploy.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


TEMPLATED = """\
    apiVersion: v1
    kind: Secret
    metadata:
      name: {{ .Release.Name }}-hf
      labels:
        {{- include "chart.labels" . | nindent 4 }}
    stringData:
      token: {{ .Values.hfToken | quote }}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: {{ .Release.Name }}-vllm
    spec:
      replicas: {{ .Values.replicas }}
      template:
        spec:
          containers:
            - name: vllm
              image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
              args:
                - --model
                - {{ .Values.model }}
                - --tensor-parallel-size
                - "{{ .Values.tp }}"
                - --max-num-seqs
                - "{{ .Values.maxSeqs | default 128 }}"
                - --max-model-len
                - "${MAX_LEN}"
              {{- if .Values.extraEnv }}
              env:
                {{- toYaml .Values.extraEnv | nindent 16 }}
              {{- end }}
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: broken}
    data:
      a: [unclosed
    """


def test_one_templated_document_does_not_sink_the_others(tmp_path):
    from vllm_preflight.load import load_paths

    skipped: list = []
    [d], errors = load_paths([str(yaml_file(tmp_path, TEMPLATED))], skipped=skipped)
    assert not errors
    assert d.argv == ("python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "{{ .Values.model }}",
                      "--tensor-parallel-size", "{{ .Values.tp }}", "--max-num-seqs", "128",
                      "--max-model-len", "${MAX_LEN}")
    assert d.name == "Deployment/{{ .Release.Name }}-vllm › vllm"
    facts = {a.fact: a for a in d.assumptions}
    assert facts[".Values.maxSeqs"].value == "128" and "default" in facts[".Values.maxSeqs"].source
    assert "vLLM image" in facts["image"].source
    # the third document does not parse: left out with its line, its neighbours read
    assert [str(s) for s in skipped] == [f"{tmp_path / 'deploy.yaml'}:34"]  # where the document starts
    assert "does not parse" in skipped[0].reason and "at line 40" in skipped[0].reason


def test_a_placeholder_that_matters_is_under_depends_on_and_pins_with_assume(tmp_path):
    from click.testing import CliRunner

    from vllm_preflight.cli import cli

    path = str(yaml_file(tmp_path, TEMPLATED))
    r = CliRunner().invoke(cli, ["check", "--format", "json", path])
    import json

    [res] = json.loads(r.stdout)["results"]
    assert ".Values.tp" in res["depends_on"]
    assert any("--assume .Values.tp=VALUE" in f["message"] for f in res["findings"])
    r = CliRunner().invoke(cli, ["check", "--format", "json", "--assume", ".Values.tp=4", path])
    [res] = json.loads(r.stdout)["results"]
    assert res["resolved"]["parallel_config"]["tensor_parallel_size"] == 4
    assert ".Values.tp" not in res["depends_on"]


def test_a_template_that_no_document_of_which_parses_is_still_one_error(tmp_path):
    from vllm_preflight.load import load_paths

    p = yaml_file(tmp_path, "apiVersion: v1\nkind: Pod\nspec:\n  containers: {{ .Values.c }\n")
    found, [err] = load_paths([str(p)])
    assert found == [] and "unrendered Helm template" in err.message


# ------------------------------------------------------------------ docker-compose
COMPOSE = """\
    x-common: &common
      restart: unless-stopped
      ipc: host
    services:
      vllm:
        <<: *common
        image: vllm/vllm-openai:${VLLM_TAG:-v0.22.0}
        command: >
          --model ${MODEL:-Qwen/Qwen3-8B}
          --tensor-parallel-size ${TP}
          --served-model-name "qwen 3"
        environment:
          - HF_TOKEN
          - VLLM_LOGGING_LEVEL=DEBUG
        env_file: .env
      embed:
        image: vllm/vllm-openai:v0.13.0
        entrypoint: ["/bin/sh", "-c"]
        command: ["vllm serve BAAI/bge-m3 --port 8001 --gpu-memory-utilization $${GPU_UTIL:-0.2}"]
        environment:
          GPU_UTIL: "0.3"
      tools:
        image: nvcr.io/nvidia/pytorch:25.01-py3
        command: vllm serve m --port 8002
      webui:
        image: ghcr.io/open-webui/open-webui:main
        environment:
          OPENAI_API_BASE_URL: http://vllm:8000/v1
    """


def test_compose_services_run_their_entrypoint_and_command(tmp_path):
    from vllm_preflight.load import load_paths

    p = yaml_file(tmp_path, COMPOSE, "docker-compose.yml")
    found, errors = load_paths([str(p)])
    assert not errors
    by = {d.source.rsplit(":", 1)[1]: d for d in found}
    assert sorted(by) == ["services.embed", "services.tools", "services.vllm"]
    vllm = by["services.vllm"]
    assert vllm.argv == ("python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-8B",
                         "--tensor-parallel-size", "${TP}", "--served-model-name", "qwen 3")
    assert vllm.vllm_version == "0.22.0" and vllm.name == "service vllm"
    assert dict(vllm.env) == {"HF_TOKEN": "$HF_TOKEN", "VLLM_LOGGING_LEVEL": "DEBUG"}
    assert {a.fact for a in vllm.assumptions} >= {"VLLM_TAG", "MODEL", "entrypoint"}
    assert any(f.rule == "VP112" and "env_file" in f.message for f in vllm.findings)
    # `$$` is Compose's `$`: the shell of the entrypoint reads ${GPU_UTIL:-0.2} with the service's env
    assert by["services.embed"].argv == ("vllm", "serve", "BAAI/bge-m3", "--port", "8001",
                                         "--gpu-memory-utilization", "0.3")
    assert by["services.tools"].argv == ("vllm", "serve", "m", "--port", "8002")
    assert (by["services.tools"].location.line, by["services.tools"].location.column) == (24, 14)


def test_a_compose_variable_that_matters_is_under_depends_on(tmp_path):
    import json

    from click.testing import CliRunner

    from vllm_preflight.cli import cli

    p = yaml_file(tmp_path, COMPOSE, "compose.yaml")
    out = json.loads(CliRunner().invoke(cli, ["check", "--format", "json", str(p)]).stdout)
    vllm = next(r for r in out["results"] if r["source"].endswith("services.vllm"))
    assert "TP" in vllm["depends_on"]
    out = json.loads(CliRunner().invoke(cli, ["check", "--format", "json", "--assume", "TP=4", str(p)]).stdout)
    vllm = next(r for r in out["results"] if r["source"].endswith("services.vllm"))
    assert vllm["resolved"]["parallel_config"]["tensor_parallel_size"] == 4


# ------------------------------------------------------------------ KServe runtimes, Ray-based fleets
RUNTIME = """\
    apiVersion: serving.kserve.io/v1alpha1
    kind: ServingRuntime
    metadata:
      name: vllm-runtime
    spec:
      supportedModelFormats:
        - name: vLLM
          autoSelect: true
      containers:
        - name: kserve-container
          image: vllm/vllm-openai:v0.22.0
          command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
          args: ["--port=8080", "--model=/mnt/models", "--served-model-name={{.Name}}"]
    """
SERVICE = """\
    ---
    apiVersion: serving.kserve.io/v1beta1
    kind: InferenceService
    metadata:
      name: qwen
    spec:
      predictor:
        model:
          modelFormat: {name: vLLM}
          storageUri: hf://Qwen/Qwen3-8B
          args: ["--tensor-parallel-size=2"]
    """


def test_an_inference_service_runs_its_serving_runtime_with_its_own_args(tmp_path):
    from vllm_preflight.load import load_paths

    [d], errors = load_paths([str(yaml_file(tmp_path, textwrap.dedent(RUNTIME) + textwrap.dedent(SERVICE)))])
    assert not errors
    assert d.argv == ("python3", "-m", "vllm.entrypoints.openai.api_server", "--port=8080", "--model=Qwen/Qwen3-8B",
                      "--served-model-name=qwen", "--tensor-parallel-size=2")
    assert d.vllm_version == "0.22.0" and d.source.endswith(":1:spec.predictor.kserve-container")
    assert {a.fact: a.value for a in d.assumptions}["model"] == "Qwen/Qwen3-8B"


def test_a_serving_runtime_no_service_uses_is_read_with_its_placeholders(tmp_path):
    from vllm_preflight.load import load_paths

    [d], _ = load_paths([str(yaml_file(tmp_path, RUNTIME))])
    assert d.argv[-1] == "--served-model-name={{.Name}}"


FLEET = """\
    apiVersion: orchestration.aibrix.ai/v1alpha1
    kind: RayClusterFleet
    metadata: {name: r1}
    spec:
      template:
        spec:
          headGroupSpec:
            template:
              spec:
                containers:
                  - name: ray-head
                    image: vllm/vllm-openai:v0.22.0
                    command: ["/bin/bash", "-lc", "--"]
                    args: ["ulimit -n 65536; $KUBERAY_GEN_RAY_START_CMD; vllm serve m -tp 8 -pp 2 --distributed-executor-backend ray"]
          workerGroupSpecs:
            - groupName: worker
              template:
                spec:
                  containers:
                    - name: ray-worker
                      image: vllm/vllm-openai:v0.22.0
                      command: ["/bin/bash", "-lc", "--"]
                      args: ["ulimit -n 65536; $KUBERAY_GEN_RAY_START_CMD;"]
    ---
    apiVersion: orchestration.aibrix.ai/v1alpha1
    kind: StormService
    metadata: {name: pd}
    spec:
      template:
        spec:
          roles:
            - name: prefill
              template:
                spec:
                  containers:
                    - name: prefill
                      image: vllm/vllm-openai:v0.22.0
                      command: ["sh", "-c", "vllm serve m --port 8000"]
            - name: routing
              template:
                spec:
                  containers:
                    - {name: router, image: aibrix/router:v1, args: ["--port", "8080"]}
    ---
    apiVersion: ray.io/v1
    kind: RayJob
    metadata: {name: job}
    spec:
      entrypoint: vllm serve q --tensor-parallel-size 4 --distributed-executor-backend ray
      rayClusterSpec:
        headGroupSpec:
          template:
            spec:
              containers: [{name: ray-head, image: "vllm/vllm-openai:v0.13.0"}]
    ---
    apiVersion: ray.io/v1
    kind: RayService
    metadata: {name: serve}
    spec:
      serveConfigV2: |
        applications: [{name: llm, import_path: "ray.serve.llm:build_openai_app"}]
      rayClusterConfig:
        headGroupSpec:
          template:
            spec:
              containers: [{name: ray-head, image: "rayproject/ray-llm:2.46.0"}]
    """


def test_ray_fleets_and_storm_services_are_read_and_ray_serve_is_said_not_read(tmp_path):
    from vllm_preflight.load import load_paths

    skipped: list = []
    found, errors = load_paths([str(yaml_file(tmp_path, FLEET))], skipped=skipped)
    assert not errors
    by = {d.name: d for d in found}
    assert sorted(by) == ["RayClusterFleet/r1 › Ray head › ray-head", "RayJob/job › entrypoint",
                          "StormService/pd › prefill › prefill"]
    assert by["StormService/pd › prefill › prefill"].role_hints[0] == ("prefill", "role prefill")
    head = next(d for d in found if "ray-head" in d.source)
    assert head.argv == ("vllm", "serve", "m", "-tp", "8", "-pp", "2", "--distributed-executor-backend", "ray")
    assert ("ray", True) in head.node_facts and any(a.fact == "node.ray" for a in head.assumptions)
    job = next(d for d in found if d.source.endswith("spec.entrypoint"))
    assert job.argv[:3] == ("vllm", "serve", "q") and job.vllm_version == "0.13.0" and ("ray", True) in job.node_facts
    prefill = next(d for d in found if "prefill" in d.source)
    assert prefill.source.endswith(":1:roles.prefill.prefill") and not prefill.node_facts
    assert len(found) == 3  # the Ray workers, the router and the Ray Serve app are no servers
    [note] = skipped
    assert "RayService serve" in note.reason and "not read" in note.reason


def test_a_script_that_starts_ray_runs_its_server_where_ray_is_installed():
    [d] = servers("""\
        ray start --head --port=6379
        vllm serve m -tp 8 -pp 2 --distributed-executor-backend ray
        """)
    assert ("ray", True) in d.node_facts
    assert [a.value for a in d.assumptions if a.fact == "node.ray"] == [True]
    [d] = servers("vllm serve m --distributed-executor-backend ray\n")
    assert d.node_facts == ()


# ------------------------------------------------------------------ control flow
def test_a_condition_over_a_value_the_environment_sets_reads_every_branch():
    # LWS_WORKER_INDEX, ROLE: set per pod; the script's default is not what every pod sees
    found = argvs("""\
        ROLE=${ROLE:-prefill}
        if [ "$ROLE" = prefill ]; then
          vllm serve m --kv-role producer
        else
          vllm serve m --kv-role consumer
        fi
        """)
    assert found == ["vllm serve m --kv-role producer", "vllm serve m --kv-role consumer"]


def test_a_function_runs_where_it_is_called_and_an_argument_loop_of_a_bare_run_never_runs():
    found = argvs("""\
        TP=2
        while [[ $# -gt 0 ]]; do
          case $1 in
            --tp) TP=$2; shift 2 ;;
          esac
        done
        launch() { vllm serve "$1" -tp "$TP"; }
        unused() { vllm serve never-called; }
        launch a
        launch b
        """)
    assert found == ["vllm serve a -tp 2", "vllm serve b -tp 2"]


def test_a_slurm_here_document_run_by_srun_bash_and_a_getopts_loop_without_arguments():
    found = servers("""\
        #!/bin/bash
        #SBATCH --nodes=1
        MODEL=meta-llama/Llama-3.1-8B-Instruct
        srun --ntasks=1 bash <<EOF
        export VLLM_LOGGING_LEVEL=INFO
        vllm serve $MODEL --port 8000
        EOF
        while getopts "m:" opt; do
          case $opt in
            m) MODEL=$OPTARG ;;
          esac
        done
        vllm serve $MODEL
        """, "job.sbatch")
    assert [d.argv for d in found] == [("vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--port", "8000"),
                                       ("vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct")]
    assert dict(found[0].env) == {"VLLM_LOGGING_LEVEL": "INFO"}  # not the script's unexported variables


def test_a_manifest_in_a_markdown_yaml_block_is_read_at_its_lines():
    [d] = md("""\
        # Deploy on Kubernetes

        ```yaml
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: vllm}
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.22.0
                  args: ["Qwen/Qwen3-8B", "--tensor-parallel-size", "{{ .Values.tp }}"]
        ```

        ```yaml
        tensor-parallel-size: 2
        ```
        """)
    assert d.argv == ("vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "{{ .Values.tp }}")
    assert d.vllm_version == "0.22.0" and d.source == "GUIDE.md:0:spec.template.vllm"
    assert d.template[2].loc.line == 13  # the model word, in its block
