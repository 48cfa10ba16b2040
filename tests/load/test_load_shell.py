"""Shell scripts and README snippets: the server commands a shell would run, as written."""
from __future__ import annotations

import textwrap

import pytest

from conftest import INPUTS, by_source, rel
from vllm_preflight.load import load_path
from vllm_preflight.load.shell_file import load
from vllm_preflight.load.source import Source


def load_text(text: str, path: str = "script.sh", variables=None):
    return load(Source(path, textwrap.dedent(text)), variables)


def test_plain_command_file_keeps_issue2_semantics(in_root):
    [d] = load_path("examples/deepep-ht-dp8.sh")
    assert d.source == "examples/deepep-ht-dp8.sh"
    assert d.argv == ("vllm", "serve", "deepseek-ai/DeepSeek-V3", "--all2all-backend", "deepep_high_throughput",
                      "-dp", "8", "--enable-expert-parallel", "--port", "8000")
    assert d.env == (("VLLM_USE_DEEP_GEMM", "1"),)
    assert (d.location.line, d.location.column) == (6, 1)  # after the shebang and 3 comment lines


def test_load_command_file_still_works(in_root):
    from vllm_preflight.load import load_command_file

    [d] = load_command_file("examples/deepep-ht-dp8-piecewise.sh")
    assert d.argv[-3:] == ("-cc.cudagraph_mode=PIECEWISE", "--port", "8000")


def test_variables_arrays_exports_and_wrappers(in_root):
    found = by_source(load_path(rel(INPUTS / "shell" / "multinode-dp-ep.sh")))
    assert sorted(found) == ["tests/fixtures/inputs/shell/multinode-dp-ep.sh:29",
                             "tests/fixtures/inputs/shell/multinode-dp-ep.sh:32"]
    leader = found["tests/fixtures/inputs/shell/multinode-dp-ep.sh:29"]
    assert leader.argv == ("vllm", "serve", "deepseek-ai/DeepSeek-V3", "--enable-expert-parallel",
                           "--all2all-backend", "deepep_high_throughput", "--data-parallel-size", "16",
                           "--data-parallel-size-local", "8", "--data-parallel-address", "$MASTER_ADDR",
                           "--data-parallel-rpc-port", "13345", "--port", "8000")
    assert dict(leader.env) == {"VLLM_USE_DEEP_GEMM": "1", "NVSHMEM_IB_ENABLE_IBGDA": "1", "GLOO_SOCKET_IFNAME": "eth0"}
    assert (leader.location.line, leader.location.column) == (29, 5)  # the `vllm` word after numactl
    facts = {a.fact: a for a in leader.assumptions}
    assert facts["MODEL"].value == "deepseek-ai/DeepSeek-V3" and "default" in facts["MODEL"].source
    worker = found["tests/fixtures/inputs/shell/multinode-dp-ep.sh:32"]
    assert worker.argv[-4:] == ("--data-parallel-start-rank", "$((NODE_RANK * GPUS_PER_NODE))", "--headless")[-4:] \
        or worker.argv[-3:] == ("--data-parallel-start-rank", "$((NODE_RANK * GPUS_PER_NODE))", "--headless")


def test_commented_out_commands_and_clients_are_not_servers(in_root):
    deployments = load_path(rel(INPUTS / "shell" / "multinode-dp-ep.sh"))
    assert all("bench" not in d.argv for d in deployments)
    assert all("--tensor-parallel-size" not in d.argv for d in deployments)
    assert load_text("vllm bench serve --model m\npython benchmarks/benchmark_serving.py --backend vllm\n"
                     "echo vllm serve m\n# vllm serve commented\ncurl localhost:8000\n") == []


def test_comment_after_continuation_follows_the_shell_and_is_reported(in_root):
    [d] = load_path(rel(INPUTS / "shell" / "comment-after-continuation.sh"))
    assert d.argv == ("vllm", "serve", "deepseek-ai/DeepSeek-V3", "--data-parallel-size", "8", "--enable-expert-parallel")
    [f] = d.findings
    assert f.rule == "VP101" and f.severity == "warning"
    assert (f.location.line, f.location.column) == (7, 5)
    assert "--all2all-backend deepep_low_latency --port 8000" in f.message and "lines 8-9" in f.message


def test_wrappers_env_and_api_server_module(in_root):
    [d] = load_path(rel(INPUTS / "shell" / "wrappers-and-vars.sh"))
    assert d.argv[:3] == ("python3", "-m", "vllm.entrypoints.openai.api_server")  # `-u` dropped
    assert d.argv[3:7] == ("--model", "Qwen/Qwen3-30B-A3B", "--tensor-parallel-size", "2")
    assert "$DP" in d.argv and "$A2A_BACKEND" in d.argv and "$USER_FLAGS" in d.argv
    assert d.argv[d.argv.index("$USER_FLAGS") - 4:d.argv.index("$USER_FLAGS")] == (
        "--max-num-seqs", "256", "--gpu-memory-utilization", "0.92")  # EXTRA_FLAGS split into words
    assert dict(d.env) == {"VLLM_LOGGING_LEVEL": "DEBUG", "TORCH_COMPILE_DISABLE": "0"}
    assert {a.fact: a.value for a in d.assumptions}["TP"] == "2"  # `: "${TP:=2}"`


def test_docker_run_takes_the_image_tag_and_its_env(in_root):
    [d] = load_path(rel(INPUTS / "shell" / "docker-run.sh"))
    assert d.vllm_version == "0.11.0" and d.version_source == "image vllm/vllm-openai:v0.11.0"
    assert d.argv[:4] == ("python3", "-m", "vllm.entrypoints.openai.api_server", "--model")
    assert dict(d.env)["VLLM_ALL2ALL_BACKEND"] == "deepep_high_throughput"
    assert d.version_location.line == 6


def test_eval_and_bash_c_are_followed_with_places():
    text = """\
    ARGS='--enable-expert-parallel --compilation-config "{\\"cudagraph_mode\\": \\"PIECEWISE\\"}"'
    bash -c 'exec vllm serve "$0" -dp 8 '"$ARGS" deepseek-ai/DeepSeek-V3
    """
    [d] = load_text(text)
    assert d.argv == ("vllm", "serve", "deepseek-ai/DeepSeek-V3", "-dp", "8", "--enable-expert-parallel",
                      "--compilation-config", '{"cudagraph_mode": "PIECEWISE"}')
    words = {w.text[0].text if len(w.text) == 1 else None: w.loc for w in d.template}
    assert (words["--enable-expert-parallel"].line, words["--enable-expert-parallel"].column) == (1, 7)
    [e] = load_text('X="--tp 2"\neval "vllm serve m $X"\n')
    assert e.argv == ("vllm", "serve", "m", "--tp", "2")


def test_variables_pinned_with_assume_win():
    [d] = load_text("DP=8\nvllm serve m -dp $DP --x $((N*2))\n", variables={"DP": "16", "N": "3"})
    assert d.argv == ("vllm", "serve", "m", "-dp", "16", "--x", "6")


def test_unknown_values_stay_symbolic_with_their_source():
    [d] = load_text("vllm serve m -dp $((NODES * 8)) --port ${PORT}\n")
    assert d.argv == ("vllm", "serve", "m", "-dp", "$((NODES * 8))", "--port", "${PORT}")
    sym = d.template[4].text[0]
    assert sym.kind == "arith" and sym.names == ("NODES",)


def test_markdown_snippets_at_their_lines(in_root):
    [d] = load_path(rel(INPUTS / "markdown" / "README.md"))
    assert d.argv == ("vllm", "serve", "deepseek-ai/DeepSeek-V3", "--data-parallel-size", "8",
                      "--enable-expert-parallel", "--all2all-backend", "deepep_low_latency")
    assert (d.location.line, d.location.column) == (6, 1)
    assert d.format == "markdown"


def test_console_blocks_take_prompt_lines_only():
    from vllm_preflight.load.markdown import load_markdown

    text = "```console\n$ vllm serve m -tp 2\nINFO vllm serve is up\n```\n"
    [d] = load_markdown(Source("x.md", text))
    assert d.argv == ("vllm", "serve", "m", "-tp", "2")
    assert (d.location.line, d.location.column) == (2, 3)


@pytest.mark.parametrize("text,argv0", [
    ("exec vllm serve m\n", ("vllm", "serve", "m")),
    ("nohup numactl -N 0 -m 0 taskset -c 0-7 vllm serve m &\n", ("vllm", "serve", "m")),
    ("uv run --with vllm vllm serve m\n", ("vllm", "serve", "m")),
    ("timeout 3600 python -m vllm.entrypoints.cli.main serve m\n", ("vllm", "serve", "m")),
    ("if true; then vllm serve m; fi\n", ("vllm", "serve", "m")),
    ("start() {\n  vllm serve m\n}\nstart\n", ("vllm", "serve", "m")),
])
def test_servers_behind_wrappers_and_keywords(text, argv0):
    [d] = load_text(text)
    assert d.argv == argv0
