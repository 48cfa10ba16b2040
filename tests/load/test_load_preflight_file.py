"""Our deployment file: inline commands, `from`, and schema errors at their keys."""
from __future__ import annotations

import pytest

from conftest import INPUTS, rel
from vllm_preflight.errors import InputFailure
from vllm_preflight.load import load_path, load_paths


def test_inline_command_with_image_gpu_facts_and_env(in_root):
    [d] = load_path(rel(INPUTS / "preflight" / "inline.preflight.yaml"))
    assert d.format == "preflight"
    assert d.argv == ("vllm", "serve", "./models/my-moe", "-dp", "$DP", "--enable-expert-parallel",
                      "--all2all-backend", "deepep_high_throughput")
    assert d.vllm_version == "0.14.1" and d.version_source == "image vllm/vllm-openai:v0.14.1"
    assert d.gpu == "B200" and dict(d.model_facts) == {"is_moe": "true"}
    assert dict(d.env) == {"VLLM_USE_DEEP_GEMM": "1"}
    assert (d.location.line, d.location.column) == (8, 3)


def test_from_wraps_another_file_and_overrides_what_it_cannot_say(in_root):
    # `from: ../kubernetes/...` leaves the deployment file's folder: read only where allowed
    found, errors = load_paths([rel(INPUTS / "preflight" / "wide-ep-decode.preflight.yaml")],
                               allow_paths=[rel(INPUTS / "kubernetes")])
    # LWS_WORKER_INDEX pinned to 1: the decode script's `if [ ... -eq 0 ]` takes its worker branch only
    assert not errors and len(found) == 2
    for d in found:
        assert d.source.startswith("tests/fixtures/inputs/kubernetes/lws-wide-ep-pd.yaml:")
        assert d.vllm_version == "0.20.2" and d.version_source == "deployment file" and d.gpu == "H100"
    worker = next(d for d in found if d.source.endswith(":0:leaderWorkerTemplate.workerTemplate.vllm"))
    assert "--headless" in worker.argv
    assert worker.argv[worker.argv.index("--data-parallel-start-rank") + 1] == "8"


def test_variables_from_assume_win_over_the_file(tmp_path):
    f = tmp_path / "x.preflight.yaml"
    f.write_text("variables: {DP: 2}\ncommand: vllm serve m -dp $DP\n")
    assert load_path(str(f))[0].argv[-1] == "2"
    assert load_path(str(f), variables={"DP": "8"})[0].argv[-1] == "8"


def test_schema_errors_name_the_key_and_line(tmp_path):
    f = tmp_path / "bad.preflight.yaml"
    f.write_text("vllm_versoin: 0.13.0\ngpu: H300\nmodel:\n  is_moe: true\n  experts: 8\ncommand: vllm serve m\n")
    with pytest.raises(InputFailure) as e:
        load_path(str(f))
    errors = e.value.errors
    msgs = {(x.location.line, x.location.column): x.message for x in errors}
    assert "unknown key `vllm_versoin` (did you mean `vllm_version`?)" in msgs[(1, 1)]
    assert "'H300' is not one of" in msgs[(2, 6)]
    assert "unknown key `model.experts`" in msgs[(5, 3)]


def test_exactly_one_of_command_args_from(tmp_path):
    f = tmp_path / "two.preflight.yaml"
    f.write_text("command: vllm serve m\nargs: [vllm, serve, m]\n")
    with pytest.raises(InputFailure) as e:
        load_path(str(f))
    assert "only one of" in e.value.error.message


def test_args_form_for_an_image_entrypoint(tmp_path):
    f = tmp_path / "a.preflight.yaml"
    f.write_text("image: vllm/vllm-openai:v0.13.0\nargs: [deepseek-ai/DeepSeek-V3, -dp, 8]\n")
    [d] = load_path(str(f))
    assert d.argv == ("vllm", "serve", "deepseek-ai/DeepSeek-V3", "-dp", "8") and d.vllm_version == "0.13.0"


def test_from_loops_are_stopped(tmp_path):
    a = tmp_path / "a.preflight.yaml"
    b = tmp_path / "b.preflight.yaml"
    a.write_text("from: b.preflight.yaml\n")
    b.write_text("from: a.preflight.yaml\n")
    with pytest.raises(InputFailure) as e:
        load_path(str(a))
    assert "too deep" in e.value.error.render()


def test_from_outside_the_files_folder_is_not_read_unless_allowed(in_root):
    with pytest.raises(InputFailure) as e:
        load_path(rel(INPUTS / "preflight" / "wide-ep-decode.preflight.yaml"))
    err = e.value.error
    assert (err.location.line, err.location.column) == (5, 7)
    assert "`from: ../kubernetes/lws-wide-ep-pd.yaml`: not read: it lies outside the folder tree of its input" \
        in err.message and "--allow-path" in err.message
