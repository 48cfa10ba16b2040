"""The public API and the command line refuse arguments no run could use (issue 11)."""
from __future__ import annotations

import pytest
from hsupport import check

from vllm_preflight.api import check_inputs
from vllm_preflight.errors import UsageProblem


def test_a_string_paths_is_a_type_error_not_a_walk_of_its_characters():
    with pytest.raises(TypeError, match=r"paths must be a list of strings, not str \(wrap one in a list"):
        check_inputs("in/good.sh")


@pytest.mark.parametrize("kwargs, error", [
    ({"command": "vllm serve m"}, TypeError),
    ({"command": ["vllm", "serve", 5]}, TypeError),
    ({"env": "A=1"}, TypeError),
    ({"env": [("A",)]}, TypeError),
    ({"assume": [("A", 1)]}, TypeError),
    ({"vllm_version": 13}, TypeError),
    ({"gpu": ["H100"]}, TypeError),
    ({"target": None}, TypeError),
    ({"target": "bogus"}, UsageProblem),
    ({"vllm_version": ""}, UsageProblem),
    ({"gpu": " "}, UsageProblem),
    ({"env": [("", "x")]}, UsageProblem),
    ({"assume": [("", "")]}, UsageProblem),
    ({"assume": [("model.hidden_size", "-5")]}, UsageProblem),
    ({"assume": [("model.max_position_embeddings", "0")]}, UsageProblem),
    ({"assume": [("model.is_moe", "")]}, UsageProblem),
])
def test_bad_arguments_are_refused_before_anything_is_read(kwargs, error):
    args = {"command": ["vllm", "serve", "m"], **kwargs}
    with pytest.raises(error):
        check_inputs([], **args)


def test_good_arguments_of_every_accepted_shape(good):
    report = check_inputs([str(good)], env={"A": "1"}, assume=[("X", "")], target="pr29558")
    assert [r.source for r in report.results] == [str(good)] and not report.errors


@pytest.mark.parametrize("args", [["--env", "="], ["--vllm-version", ""], ["--gpu", ""], ["--assume", "="],
                                  ["--assume", "model.hidden_size=-5"], ["--target", "bogus"]])
def test_empty_and_impossible_values_are_usage_errors(args):
    code, _doc, err = check(*args, "--", "vllm", "serve", "m")
    assert code == 2, err
    assert "Error" in err or "error" in err


@pytest.mark.parametrize("words", [["ls", "-la"], ["vllm"], ["vllm", "bench"], ["python", "-m", "http.server"],
                                   ["FOO=1"]])
def test_a_command_that_is_no_vllm_server_is_a_usage_error(words):
    code, doc, err = check("--", *words)
    assert code == 2 and doc is None
    assert "is not a vLLM server command" in err or "nothing after" in err


@pytest.mark.parametrize("words", [["vllm", "serve", "m"], ["VLLM_LOGGING_LEVEL=INFO", "vllm", "serve", "m"],
                                   ["python3", "-u", "-m", "vllm.entrypoints.openai.api_server", "--model", "m"]])
def test_server_commands_after_dashes_are_checked(words):
    code, doc, err = check("--", *words)
    assert code in (0, 1), err  # resolved (vLLM may refuse the api_server form's flags): not a usage error
    assert len(doc["results"]) == 1


def test_an_empty_shell_variable_pin_stays_allowed(good):
    """`--assume NAME=` pins a variable to the empty string, as `NAME=` does in a script."""
    code, _doc, err = check("--assume", "USER_FLAGS=", str(good))
    assert code == 0, err


def test_the_loaders_public_entry_refuses_a_single_string_too():
    from vllm_preflight.load import load_paths

    with pytest.raises(TypeError, match="paths must be a list"):
        load_paths("in/good.sh")
