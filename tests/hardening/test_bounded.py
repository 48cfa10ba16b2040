"""Small inputs cannot take unbounded time or memory (issue 11): expansion bombs stop at
load.limits with the file and line; absurd capture sizes are not listed; repeated findings
are one finding. Each bomb is checked next to a good input, which is still resolved."""
from __future__ import annotations

from hsupport import check, sources

from vllm_preflight.load import limits
from vllm_preflight.resolve.vllm_config.capture_sizes import MAX_LISTED_SIZES


def _bomb(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text)
    return p


# A doubling line doubles the pieces of a value: the 17th passes MAX_VALUE_PIECES (2**16), so
# after the first line (A=x) that is line 18; the Pod's A0 is on line 10, A17 on line 27.
def _too_complex(tmp_path, good, name, text, line):
    p = _bomb(tmp_path, name, text)
    code, doc, err = check(str(p), str(good))
    assert code == 2, err
    assert f"{p}:{line}:" in err and "input too complex" in err
    assert sources(doc) == [str(good)]


def test_shell_variable_doubling_stops(tmp_path, good):
    lines = ["A=x"] + ['A="$A$A"'] * 40 + ["vllm serve m --max-model-len $A"]
    _too_complex(tmp_path, good, "double.sh", "\n".join(lines) + "\n", "18")


def test_plus_equals_doubling_stops(tmp_path, good):
    lines = ["A=xxxxxxxx"] + ['A+="$A"'] * 40 + ["vllm serve m $A"]
    _too_complex(tmp_path, good, "plus.sh", "\n".join(lines) + "\n", "18")


def test_array_and_positional_doubling_stop(tmp_path, good):
    arr = ["arr=(x)"] + ['arr=("${arr[@]}" "${arr[@]}")'] * 40 + ['vllm serve m "${arr[@]}"']
    _too_complex(tmp_path, good, "arr.sh", "\n".join(arr) + "\n", "18")
    pos = ["set -- x"] + ['set -- "$@" "$@"'] * 40 + ['vllm serve m "$@"']
    _too_complex(tmp_path, good, "pos.sh", "\n".join(pos) + "\n", "18")


def test_kubernetes_var_doubling_stops(tmp_path, good):
    env = "".join(f"    - {{name: A{i}, value: '$(A{i - 1})$(A{i - 1})'}}\n" for i in range(1, 41))
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: vllm\n"
            "    image: vllm/vllm-openai:v0.13.0\n    command: [vllm, serve, m, --max-model-len, $(A40)]\n"
            "    env:\n    - {name: A0, value: x}\n" + env)
    _too_complex(tmp_path, good, "pod.yaml", text, "27")


def test_deep_json_and_long_dotted_flags_are_input_errors(tmp_path, good):
    _too_complex(tmp_path, good, "deep.sh", "vllm serve m -cc '" + "[" * 1000 + "]" * 1000 + "'\n", "1")
    _too_complex(tmp_path, good, "deepobj.sh", "vllm serve m -cc '" + '{"a":' * 1000 + "1" + "}" * 1000 + "'\n", "1")
    _too_complex(tmp_path, good, "dots.sh", "vllm serve m -cc." + ".".join(["a"] * 2000) + "=1\n", "1")
    # the same from the command line: an input error, not a crash
    code, _doc, err = check("--", "vllm", "serve", "m", "-cc", "[" * 1000 + "]" * 1000)
    assert code == 2 and "input too complex" in err


def test_nesting_within_the_limit_is_resolved(tmp_path):
    depth = limits.MAX_NESTING
    p = _bomb(tmp_path, "ok.sh", "vllm serve m -cc.a" + ".a" * (depth - 1) + "=1\n")
    _code, doc, err = check(str(p))
    assert "too complex" not in err and sources(doc) == [str(p)]


def test_a_5000_digit_capture_size_is_vllms_refusal_not_a_crash(tmp_path, good):
    p = _bomb(tmp_path, "digits.sh", "vllm serve m --max-num-batched-tokens " + "9" * 5000 + "\n")
    code, doc, err = check(str(p), str(good))
    assert code == 1, err  # argparse rejects the value (Python's int digit limit), as in vLLM
    res = {r["source"]: r for r in doc["results"]}
    assert res[str(p)]["vllm_error"]["type"] == "ArgumentError"
    assert res[str(good)]["vllm_error"] is None


def test_absurd_capture_sizes_resolve_in_bounded_memory():
    for tokens in ("500000000", "100000000000"):
        code, doc, err = check("--", "vllm", "serve", "m", "--max-num-batched-tokens", tokens,
                               "-cc", f'{{"max_cudagraph_capture_size": {tokens}}}')
        assert code == 0, err
        [res] = doc["results"]
        cc = res["resolved"]["compilation_config"]
        assert cc["cudagraph_capture_sizes"] is None  # not listed, and said so
        assert cc["max_cudagraph_capture_size"] == int(tokens)  # 256 + 16k reaches it: both are multiples of 16
        [f] = [f for f in res["findings"] if f["rule"] == "VP120"]
        assert f"{MAX_LISTED_SIZES:,}" in f["message"]
        assert any(e["rule"] == "capture_sizes.not_listed" for e in res["events"])


def test_capture_sizes_below_the_limit_are_listed_as_vllm_lists_them():
    _code, doc, _ = check("--", "vllm", "serve", "m", "--max-num-batched-tokens", "8192",
                         "-cc", '{"max_cudagraph_capture_size": 8192}')
    cc = doc["results"][0]["resolved"]["compilation_config"]
    # vLLM's grid: 1, 2, 4, 8..248 by 8, 256..8192 by 16
    assert cc["cudagraph_capture_sizes"] == [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, 8193, 16))


def test_a_flag_repeated_many_times_is_one_finding(tmp_path):
    p = _bomb(tmp_path, "flags.sh", "vllm serve m" + " --foo" * 5000 + "\n")
    _code, doc, _ = check(str(p))
    [res] = doc["results"]
    unknown = [f for f in res["findings"] if f["rule"] == "VP201"]
    assert len(unknown) == 1 and "at 5000 places" in unknown[0]["message"]


def test_a_command_with_too_many_words_is_an_input_error(tmp_path, good):
    p = _bomb(tmp_path, "words.sh", "vllm serve m" + " -x" * (limits.MAX_WORDS + 1) + "\n")
    code, doc, err = check(str(p), str(good))
    assert code == 2 and "words" in err and sources(doc) == [str(good)]


def test_a_model_config_json_over_the_size_limit_is_not_read(tmp_path, good):
    from vllm_preflight.load.source import MAX_BYTES

    (tmp_path / "model").mkdir()
    with open(tmp_path / "model" / "config.json", "wb") as f:
        f.truncate(MAX_BYTES + 1)  # sparse: no disk, no time
    p = _bomb(tmp_path, "serve.sh", "vllm serve ./model\n")
    code, doc, err = check(str(p), str(good))
    assert code == 2 and "config.json" in err and "larger than" in err
    assert sources(doc) == [str(good)]


def test_a_folder_scan_stops_at_the_folder_limit(tmp_path, monkeypatch):
    """A link to / (/proc/self/root) must not walk the whole machine."""
    from vllm_preflight import load

    monkeypatch.setattr(load, "MAX_DIRS", 3)
    for i in range(6):
        (tmp_path / f"d{i}").mkdir()
        (tmp_path / f"d{i}" / "serve.sh").write_text("vllm serve m\n")
    code, doc, err = check(str(tmp_path))
    assert code == 2 and "more than 3 folders; the rest are not checked" in err
    assert 1 <= len(doc["results"]) <= 3
