"""`confirm` on the shapes real logs come in, and on hostile ones.

The messages are real vLLM 0.33.0 output (tests/fixtures/confirm); the decorations are those of
the collectors deployers paste from: vLLM's process prefixes, docker/kubectl timestamps,
kubectl's pod prefix, journald, Compose, CRLF, ANSI colour, terminal hard wraps, Markdown.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import logs

from cli_support import _runner


def run(*args: str, stdin: str | None = None):
    from vllm_preflight.cli import cli

    result = _runner().invoke(cli, ["confirm", *args], input=stdin)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    out = logs.recorded("0.33.0")
    for c in out:
        c["version"] = "0.33.0"
    return out


def _case(cases, cudagraph_mode: str, *, no_env: bool = True) -> dict:
    return next(c for c in cases if c["golden"]["oracle"]["cudagraph_mode"] == cudagraph_mode
                and (not no_env or not c["golden"]["env"]))


def _json(out: str) -> dict:
    return json.loads(out)


# ------------------------------------------------------------------ decorations
def _docker(lines):
    return [f"2026-12-02T14:43:{i % 60:02d}.{i:09d}Z {ln}" for i, ln in enumerate(lines)]


def _kubectl(lines):
    return [f"[pod/vllm-decode-0/vllm] 2026-12-02T14:43:37.000000001Z {ln}" for ln in lines]


def _journald(lines):
    return [f"Dec 02 14:43:37 gpu-node-7 vllm-serve[4021]: {ln}" for ln in lines]


def _compose(lines):
    return [f"vllm-1  | {ln}" for ln in lines]


def _ansi(lines):
    return [re.sub(r"^(\(\S+ pid=\d+\) )?(INFO)", "\\1\x1b[32m\\2\x1b[0m", ln) for ln in lines]


def _wrap(width):
    def wrap(lines):
        out = []
        for ln in lines:
            out += [ln[i:i + width] for i in range(0, len(ln), width)] or [""]
        return out
    return wrap


def _markdown(lines):
    return ["Here is my log, why are graphs off?", "", "```text", *lines, "```"]


def _quoted(lines):
    return ["> " + ln for ln in lines]


def _no_process_prefix(lines):
    return [re.sub(r"^\(\S+ pid=\d+\) ", "", ln) for ln in lines]


DECORATIONS = {
    "plain": lambda ls: ls, "docker": _docker, "kubectl": _kubectl, "journald": _journald, "compose": _compose,
    "ansi": _ansi, "wrap80": _wrap(80), "wrap203": _wrap(203), "markdown": _markdown, "quoted": _quoted,
    "no-prefix": _no_process_prefix, "quoted+wrap100": lambda ls: _quoted(_wrap(100)(ls)), "docker+ansi+wrap120": lambda ls: _wrap(120)(_ansi(_docker(ls))),
}


@pytest.mark.parametrize("name", sorted(DECORATIONS))
@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_decorated_start_reads_the_same(cases, tmp_path, name, crlf):
    case = _case(cases, "FULL_AND_PIECEWISE")
    lines = DECORATIONS[name](logs.start_log(case, finished=False))
    path = tmp_path / "server.log"
    path.write_bytes(("\r\n" if crlf else "\n").join(lines).encode() + b"\n")
    code, out, err = run("--format", "json", str(path))
    doc = _json(out)
    assert code == 0, (err, doc["starts"][0]["disagreements"] if doc["starts"] else doc)
    [start] = doc["starts"]
    assert start["logged_release"] == "0.33.0" and start["agrees"]
    settings = {s["setting"]: s for s in start["settings"]}
    assert settings["cudagraph_mode"]["logged"] == "FULL_AND_PIECEWISE"
    assert settings["splitting_ops"]["logged"] == case["golden"]["oracle"]["splitting_ops"]
    assert start["arguments"][2].endswith(case["golden"]["model"])


def test_two_starts_in_one_file_and_dp_ranks_as_one(cases, tmp_path):
    a, b = _case(cases, "FULL_DECODE_ONLY"), _case(cases, "FULL")
    first = logs.start_log(a, finished=False)
    rank1 = [ln.replace("EngineCore_DP0 pid=4190", "EngineCore_DP1 pid=4191") for ln in first if "core.py:93" in ln]
    second = logs.start_log(b, api="(APIServer pid=9000) ", engine="(EngineCore_DP0 pid=9100) ", finished=False)
    path = tmp_path / "two.log"
    path.write_text("\n".join(first + rank1 + ["INFO:     Shutting down"] + second) + "\n")
    code, out, _ = run("--format", "json", str(path))
    doc = _json(out)
    assert code == 0
    assert [s["settings"][1]["logged"] for s in doc["starts"]] == ["FULL_DECODE_ONLY", "FULL"]
    assert doc["starts"][0]["processes"] == ["EngineCore_DP0 pid=4190", "EngineCore_DP1 pid=4191"]


def test_no_engine_line_is_exit_2(tmp_path):
    path = tmp_path / "api.log"
    path.write_text("INFO 12-02 14:43:37 [api_server.py:1] vLLM API server version 0.33.0\n"
                    "INFO:     Started server process [1]\n")
    code, out, err = run(str(path))
    assert code == 2
    assert f"{path}: no vLLM engine start found" in err
    assert "Traceback" not in err + out


def test_crashed_start_compares_the_config_and_says_where_it_failed(cases, tmp_path):
    case = _case(cases, "FULL_DECODE_ONLY")
    lines = logs.start_log(case, finished=False) + [
        "(EngineCore_DP0 pid=4190) ERROR 12-02 14:44:01 [core.py:866] EngineCore failed to start.",
        "(EngineCore_DP0 pid=4190) ERROR 12-02 14:44:01 [core.py:866] Traceback (most recent call last):",
        "(EngineCore_DP0 pid=4190) ERROR 12-02 14:44:01 [core.py:866] torch.OutOfMemoryError: CUDA out of memory.",
    ]
    path = tmp_path / "crash.log"
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = run("--format", "json", str(path))
    start = _json(out)["starts"][0]
    assert code == 0 and start["agrees"]
    assert start["crashed"]["text"] == "EngineCore failed to start."
    assert start["runtime"] is None


def _runtime_of(case) -> tuple[str, list[str]]:
    from vllm_preflight.api import check_deployment
    from vllm_preflight.model import Deployment

    words = case["golden"]["argv"]
    words = [w.replace("{models}", str(logs.MODELS)) for w in words]
    res = check_deployment(Deployment(argv=tuple(words), env=tuple(case["golden"]["env"].items())),
                           vllm_version="0.33.0", gpu="H200")
    rt = res.resolved["runtime"]
    return rt["cudagraph_mode"], [a["backend"] for a in rt["attention"]]


def test_captures_against_the_runtime_stage(cases, tmp_path):
    case = _case(cases, "FULL_AND_PIECEWISE")
    mode, backends = _runtime_of(case)
    path = tmp_path / "ok.log"
    path.write_text("\n".join(logs.start_log(case, captures=logs.CAPTURES[mode])) + "\n")
    code, out, _ = run("--format", "json", str(path))
    start = _json(out)["starts"][0]
    assert code == 0 and start["runtime"]["logged"] == mode == start["runtime"]["predicted"]
    # captures of another mode: the prediction was wrong, with the command that reproduces it
    other = "PIECEWISE" if mode != "PIECEWISE" else "FULL"
    path.write_text("\n".join(logs.start_log(case, captures=logs.CAPTURES[other])) + "\n")
    code, out, _ = run("--format", "json", str(path))
    start = _json(out)["starts"][0]
    assert code == 1
    [d] = start["disagreements"]
    assert "a wrong prediction" in d and "vllm-preflight check --vllm-version 0.33.0 --gpu H200 -- vllm serve" in d
    # the node logged another attention backend: a node fact the tool assumed differently
    backend_line = "(EngineCore_DP0 pid=4190) INFO 12-02 14:43:59 [cuda.py:400] Using TRITON_ATTN_TEST backend."
    lines = logs.start_log(case, captures=logs.CAPTURES[other])
    lines.insert(4, backend_line)
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = run("--format", "json", str(path))
    [d] = _json(out)["starts"][0]["disagreements"]
    assert code == 1 and "a node fact the tool assumed differently" in d and backends[0] in d


def test_a_wrong_config_value_is_a_disagreement_with_its_reproduction(cases, tmp_path):
    case = _case(cases, "FULL_AND_PIECEWISE")
    case = dict(case, engine=case["engine"].replace("<CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>",
                                                    "<CUDAGraphMode.PIECEWISE: 1>"))
    path = tmp_path / "x.log"
    path.write_text("\n".join(logs.start_log(case, finished=False)) + "\n")
    code, out, _ = run(str(path))
    assert code == 1
    assert "≠ cudagraph_mode" in out and "logged PIECEWISE · predicted FULL_AND_PIECEWISE" in out
    assert "DISAGREES: cudagraph_mode: the node logged PIECEWISE, vllm-preflight predicted FULL_AND_PIECEWISE" in out
    code, out, _ = run("--format", "concise", str(path))
    assert code == 1 and re.search(r"x\.log:\d+:1: error confirm cudagraph_mode", out)


def test_dev_build_maps_to_the_release_it_precedes(cases, tmp_path):
    case = _case(cases, "FULL_DECODE_ONLY")
    case = dict(case, engine=case["engine"].replace("(v0.33.0)", "(v0.32.1rc1.dev339+g1a2b3c4)"))
    path = tmp_path / "dev.log"
    path.write_text("\n".join(logs.start_log(case, finished=False, version_line=False)) + "\n")
    code, out, _ = run("--format", "json", str(path))
    start = _json(out)["starts"][0]
    assert code == 0 and start["release"] == "0.33.0" and start["logged_release"] == "0.32.1rc1.dev339+g1a2b3c4"
    assert any("development build" in a and "the release it precedes" in a for a in start["assumptions"])


def test_stdin_and_text_report(cases):
    case = _case(cases, "FULL_DECODE_ONLY")
    code, out, _ = run("-", stdin="\n".join(logs.start_log(case, finished=False)) + "\n")
    assert code == 0
    assert out.startswith("<stdin>:4 · vLLM 0.33.0 · H200 · EngineCore_DP0 pid=4190")
    assert "= cudagraph_mode" in out and "assumed: the log names no GPU" in out


def test_gpu_line_is_taken_from_the_log(cases, tmp_path):
    case = _case(cases, "FULL_DECODE_ONLY")
    lines = logs.start_log(case, finished=False)
    lines.insert(0, "(APIServer pid=4021) INFO 12-02 14:43:30 [cuda.py:100] Device 0: NVIDIA H100 80GB HBM3")
    path = tmp_path / "h100.log"
    path.write_text("\n".join(lines) + "\n")
    _code, out, _ = run("--format", "json", str(path))
    start = _json(out)["starts"][0]
    assert start["gpu"] == "H100" and "GPU H100 (the log: H100 80GB HBM3)" in start["facts"]


def test_record_is_read_by_the_matrix(cases, tmp_path):
    from vllm_preflight.matrix.records import read

    case = _case(cases, "FULL_DECODE_ONLY")
    path = tmp_path / "r.log"
    path.write_text("\n".join(logs.start_log(case, finished=False)) + "\n")
    code, _, err = run("--record", str(tmp_path / "records"), str(path))
    assert code == 0 and "wrote " in err
    evidence, errors = read(str(tmp_path / "records"))
    assert not errors and len(evidence) == 1
    assert evidence[0].status == "pass" and evidence[0].vllm_version == "0.33.0"
    assert evidence[0].digest.startswith("sha256:")
    # the matrix of the same deployment shows the node's start beside its row
    from vllm_preflight.cli import cli

    words = [w.replace("{models}", str(logs.MODELS)) for w in case["golden"]["argv"]]
    env = [w for k, v in case["golden"]["env"].items() for w in ("--env", f"{k}={v}")]
    result = _runner().invoke(cli, ["matrix", "--vllm-version", "0.33.0", *env, "--records",
                                    str(tmp_path / "records"), "--", *words], env={"COLUMNS": "400"})
    assert "pass · " in result.stdout, result.stdout


# ------------------------------------------------------------------ hostile logs
def test_one_line_of_4_mib(tmp_path):
    path = tmp_path / "huge.log"
    path.write_bytes(b"non-default args: {'a': '" + b"x" * (4 << 20) + b"'}\n")
    code, _out, err = run(str(path))
    assert code == 2
    assert f"{path}:1: a line longer than" in err and "Traceback" not in err
    assert len(err.splitlines()) == 2  # that line, and: no engine start found


def test_compilation_config_nested_10000_deep(cases, tmp_path):
    case = _case(cases, "FULL_DECODE_ONLY")
    head = case["engine"].split("compilation_config=", 1)[0]
    case = dict(case, engine=head + "compilation_config=" + "{'a': " * 10_000 + "1" + "}" * 10_000)
    path = tmp_path / "deep.log"
    path.write_text("\n".join(logs.start_log(case, finished=False)) + "\n")
    code, out, err = run("--format", "json", str(path))
    start = _json(out)["starts"][0]
    assert code == 2 and "Traceback" not in err
    assert any("compilation_config: nested more than 64 brackets deep" in p for p in start["problems"])


def test_non_literal_reprs_are_never_evaluated(cases, tmp_path):
    marker = tmp_path / "evaluated"
    case = _case(cases, "FULL_DECODE_ONLY")
    head = case["engine"].split("compilation_config=", 1)[0]
    evil = f"__import__('os').system('touch {marker}')"
    case = dict(case, engine=head + "compilation_config=" + evil,
                args=f"non-default args: {{'model': open('{marker}', 'w').write('x')}}")
    path = tmp_path / "evil.log"
    path.write_text("\n".join(logs.start_log(case, finished=False)) + "\n")
    code, out, err = run("--format", "json", str(path))
    assert not marker.exists()
    start = _json(out)["starts"][0]
    assert code == 2 and "Traceback" not in err
    assert any("compilation_config is written as __import__(...)" in p for p in start["problems"])
    assert any("the non-default args are not a literal" in p for p in start["problems"])


def test_an_endless_wrapped_record_is_read_once(cases, tmp_path):
    """An engine line whose dict never closes, wrapped into 20,000 lines of 80 characters: read
    up to the limit, in one pass (not once per line), and said."""
    import time

    case = _case(cases, "FULL_DECODE_ONLY")
    head = case["engine"].split("compilation_config=", 1)[0] + "compilation_config={'cudagraph_capture_sizes': ["
    lines = logs.start_log(dict(case, engine=head), finished=False)
    at = next(i for i, ln in enumerate(lines) if "LLM engine" in ln) + 1
    lines[at:at] = ["1, " * 26 + "1,"] * 20_000
    path = tmp_path / "endless.log"
    path.write_text("\n".join(lines) + "\n")
    t = time.perf_counter()
    code, out, err = run("--format", "json", str(path))
    assert time.perf_counter() - t < 30
    start = _json(out)["starts"][0]
    assert code == 2 and "Traceback" not in err
    assert any("longer than the reader takes" in p for p in start["problems"])


def test_a_fifo_is_not_opened(tmp_path):
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run(str(fifo))
    assert code == 2 and "not a regular file" in err


def test_a_runtime_difference_the_node_explains_is_a_node_fact(cases, tmp_path):
    """The runtime stage assumes facts only the node knows (whether the model class compiles a
    submodule); captures matching the resolver's alternative for such a fact are worded as a
    fact the tool assumed differently, not as a wrong prediction."""
    from vllm_preflight.api import check_deployment
    from vllm_preflight.model import Deployment

    for case in cases:
        words = [w.replace("{models}", str(logs.MODELS)) for w in case["golden"]["argv"]]
        res = check_deployment(Deployment(argv=tuple(words), env=tuple(case["golden"]["env"].items())),
                               vllm_version="0.33.0", gpu="H200")
        alts = [a for a in res.resolved["runtime"].get("depends_on") or []
                if a.get("cudagraph_mode") in logs.CAPTURES and a.get("cudagraph_mode") != res.resolved["runtime"]["cudagraph_mode"]]
        if alts:
            break
    else:
        pytest.fail("no recorded case whose runtime stage depends on a node fact")
    alt = alts[0]
    path = tmp_path / "fact.log"
    path.write_text("\n".join(logs.start_log(case, captures=logs.CAPTURES[alt["cudagraph_mode"]])) + "\n")
    env = [w for k, v in case["golden"]["env"].items() for w in ("--env", f"{k}={v}")]
    code, out, _ = run("--format", "json", *env, str(path))
    [d] = _json(out)["starts"][0]["disagreements"]
    assert code == 1
    assert f"with {alt['fact']} = {alt['alternative']} vLLM captures {alt['cudagraph_mode']}" in d
    assert "a node fact the tool assumed differently" in d and "a wrong prediction" not in d


def _failed_log(tp: int) -> str:
    model = logs.MODELS / "llama-dense"
    return "\n".join([
        "(APIServer pid=77) INFO 12-02 14:43:37 [api_server.py:1839] vLLM API server version 0.33.0",
        (f"(APIServer pid=77) INFO 12-02 14:43:37 [utils.py:233] non-default args: {{'model_tag': '{model}', "
        f"'model': '{model}', 'tensor_parallel_size': {tp}}}"),
        "(APIServer pid=77) Traceback (most recent call last):",
        '(APIServer pid=77)   File "/usr/local/bin/vllm", line 10, in <module>',
        "(APIServer pid=77) pydantic_core._pydantic_core.ValidationError: 1 validation error for VllmConfig",
        ("(APIServer pid=77)   Value error, Total number of attention heads (8) must be divisible by tensor parallel "
        "size (3)."),
    ]) + "\n"


def test_a_start_that_failed_before_its_engine_line(tmp_path):
    """The server logged its arguments, then failed: held against the refusal vllm-preflight
    predicts for them (agree), or against its prediction that they start (a difference said
    with both explanations)."""
    path = tmp_path / "failed.log"
    path.write_text(_failed_log(3))
    code, out, _ = run("--format", "json", str(path))
    [start] = _json(out)["starts"]
    assert code == 0 and start["agrees"] and start["line"] == 2
    [row] = start["settings"]
    assert row["setting"] == "start" and row["predicted"].startswith("refused: ValidationError")
    assert "ValidationError: 1 validation error for VllmConfig" in row["logged"]
    path.write_text(_failed_log(2))  # the same failure after arguments vLLM accepts
    code, out, _ = run("--format", "json", str(path))
    [d] = _json(out)["starts"][0]["disagreements"]
    assert code == 1 and "predicts vLLM 0.33.0 starts with these arguments" in d and "tell apart" in d


def test_a_truncated_engine_line_keeps_the_fields_before_the_cut(cases, tmp_path):
    """A log shipper that cuts long lines (journald, a 16 KiB limit): what came before the cut is
    read and compared, the cut is said."""
    case = _case(cases, "FULL_AND_PIECEWISE")
    engine = case["engine"]
    cut = engine.index("'cudagraph_capture_sizes': [") + len("'cudagraph_capture_sizes': [1, 2, 4")
    path = tmp_path / "cut.log"
    path.write_text("\n".join(logs.start_log(dict(case, engine=engine[:cut]), finished=False)) + "\n")
    code, out, _ = run("--format", "json", str(path))
    start = _json(out)["starts"][0]
    settings = {s["setting"]: s for s in start["settings"]}
    assert code == 0 and start["agrees"]
    assert settings["cudagraph_mode"]["logged"] == "FULL_AND_PIECEWISE" and "cudagraph_capture_sizes" not in settings
    assert any("cut short" in p for p in start["problems"])
