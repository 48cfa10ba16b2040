"""Shell constructs the loader used to skip silently (issue 11): each is followed, or a finding
says what is not checked."""
from __future__ import annotations

from hsupport import check


def _run(tmp_path, files: dict[str, str], main: str):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return check(str(tmp_path / main))


def _rules(res, *rules):
    return [f for f in res["findings"] if f["rule"] in rules]


def test_source_of_a_relative_file_is_followed(tmp_path):
    _code, doc, _err = _run(tmp_path, {"common.sh": "DP=8\nTP=2\n",
                                     "serve.sh": "source ./common.sh\nvllm serve m -dp $DP -tp $TP\n"}, "serve.sh")
    [res] = doc["results"]
    par = res["resolved"]["parallel_config"]
    assert (par["data_parallel_size"], par["tensor_parallel_size"]) == (8, 2)
    assert not _rules(res, "VP121")


def test_dot_sources_relative_to_the_script_not_the_working_directory(tmp_path, monkeypatch):
    sub = tmp_path / "deploy"
    sub.mkdir()
    (sub / "env.sh").write_text("TP=4\n")
    (sub / "serve.sh").write_text(". env.sh\nvllm serve m -tp $TP\n")
    monkeypatch.chdir(tmp_path)
    _code, doc, _err = check("deploy/serve.sh")
    assert doc["results"][0]["resolved"]["parallel_config"]["tensor_parallel_size"] == 4


def test_source_of_a_missing_or_unknown_file_is_a_finding(tmp_path):
    _code, doc, _err = _run(tmp_path, {"serve.sh": "source ./missing.sh\n. $ENV_FILE\nsource /etc/vllm.env\n"
                                                 "vllm serve m\n"}, "serve.sh")
    msgs = [f["message"] for f in _rules(doc["results"][0], "VP121")]
    assert len(msgs) == 3
    assert "missing.sh" in msgs[0] and "not known until the deployment runs" in msgs[1]
    assert "machine that runs the deployment" in msgs[2]


def test_a_source_loop_ends(tmp_path):
    code, doc, err = _run(tmp_path, {"a.sh": "source ./b.sh\nvllm serve m\n", "b.sh": "source ./a.sh\nX=1\n"},
                          "a.sh")
    assert code == 0, err
    assert len(doc["results"]) == 1
    assert any("loop" in f["message"] for f in _rules(doc["results"][0], "VP121"))


def test_ifs_splits_like_the_shell(tmp_path):
    _code, doc, _err = _run(tmp_path, {"ifs.sh": "vllm${IFS}serve m -tp 2\n"}, "ifs.sh")
    assert doc["results"][0]["resolved"]["parallel_config"]["tensor_parallel_size"] == 2


def test_a_here_document_fed_to_a_shell_is_run(tmp_path):
    _code, doc, _err = _run(tmp_path, {"hd.sh": "TP=2\nbash <<EOF\nvllm serve m -tp $TP\nEOF\n"}, "hd.sh")
    assert doc["results"][0]["resolved"]["parallel_config"]["tensor_parallel_size"] == 2
    assert doc["results"][0]["location"]["line"] == 3  # the server's own line inside the here-document
    _code, doc, _err = _run(tmp_path, {"hd2.sh": "cat <<'EOF' | sh\nvllm serve m -tp 4\nEOF\n"}, "hd2.sh")
    assert doc["results"][0]["resolved"]["parallel_config"]["tensor_parallel_size"] == 4


def test_a_here_document_fed_elsewhere_is_said_not_skipped(tmp_path):
    code, _doc, err = _run(tmp_path, {"ssh.sh": "ssh gpu-node <<EOF\nvllm serve m -tp 2\nEOF\n"}, "ssh.sh")
    assert code == 2
    assert "ssh.sh:1:1: no vLLM server the tool can follow" in err and "`ssh`" in err


def test_eval_of_an_unknown_value_is_a_finding(tmp_path):
    code, doc, err = _run(tmp_path, {"ev.sh": 'eval "$SETUP"\nvllm serve m\n'}, "ev.sh")
    assert [f["location"]["line"] for f in _rules(doc["results"][0], "VP122")] == [1]
    code, doc, err = _run(tmp_path, {"ev2.sh": 'eval "$(render_cmd vllm)"\n'}, "ev2.sh")
    assert code == 2 and "no vLLM server the tool can follow" in err
    # a known value is followed, as before
    code, doc, err = _run(tmp_path, {"ev3.sh": 'CMD="vllm serve m -tp 2"\neval "$CMD"\n'}, "ev3.sh")
    assert doc["results"][0]["resolved"]["parallel_config"]["tensor_parallel_size"] == 2
