"""Mutated configs thrown at every loader: a list of Deployments or an InputFailure, never anything else."""
from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vllm_preflight.errors import InputFailure
from vllm_preflight.load import _load_source, detect_format
from vllm_preflight.load.bind import bind
from vllm_preflight.load.source import Source, decode
from vllm_preflight.model import Deployment
from vllm_preflight.releases import get_release
from vllm_preflight.schema.validate import validate_bound

from conftest import EXAMPLES, INPUTS

SEEDS = sorted(p for p in list(INPUTS.rglob("*")) + list(EXAMPLES.rglob("*"))
               if p.is_file() and p.suffix in (".sh", ".yaml", ".yml", ".md"))
FORMATS = ("auto", "shell", "markdown", "vllm-config", "kubernetes", "preflight")
NASTY = ["'", '"', "\\", "\\\n", "$", "$(", "$((", "${", "}", ")", "`", "#", " # ", "\n", "\t", ":", ": ", "- ",
         "-", "--", "=", "&", "|", ";", "<<EOF\n", "<<<<<<< HEAD\n", "{", "[", "]", "*a", "&a ", "!!python/object ",
         "!!binary ", "---\n", "...\n", "%YAML 1.1\n", "?", ">-\n", "|\n", "\u00e9", "\ue000", "\x00", "$@", "${A[@]}",
         "$(( X * ))", "eval ", "bash -c ", "vllm serve ", "-cc.a.b=", "--config ", "$(VAR)", "'{\"a\":", "9" * 30]
RELEASES = [get_release(v) for v in ("0.11.0", "0.15.1", "0.33.0", "pr29558")]


@st.composite
def mutated(draw):
    path = draw(st.sampled_from(SEEDS))
    text = path.read_text()
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["insert", "delete", "replace", "dup_line", "swap_lines", "truncate"]))
        n = len(text)
        i = draw(st.integers(0, max(n, 0)))
        if kind == "insert":
            text = text[:i] + draw(st.sampled_from(NASTY) | st.text(max_size=8)) + text[i:]
        elif kind == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 20)):]
        elif kind == "replace":
            text = text[:i] + draw(st.sampled_from(NASTY)) + text[i + 1:]
        elif kind == "truncate":
            text = text[:i]
        else:
            lines = text.split("\n")
            if len(lines) > 1:
                a = draw(st.integers(0, len(lines) - 1))
                b = draw(st.integers(0, len(lines) - 1))
                if kind == "dup_line":
                    lines.insert(b, lines[a])
                else:
                    lines[a], lines[b] = lines[b], lines[a]
                text = "\n".join(lines)
    return path, text


def _load(path: Path, text: str, fmt: str):
    source = Source(str(path), decode(str(path), text.encode("utf-8", "surrogatepass")))
    f = detect_format(source) if fmt == "auto" else fmt
    return _load_source(source, f, {"X": "3"} if len(text) % 2 else None)[0]


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(mutated(), st.sampled_from(FORMATS), st.sampled_from(RELEASES))
def test_no_exception_escapes_any_loader(case, fmt, release):
    path, text = case
    try:
        found = _load(path, text, fmt)
    except InputFailure as e:
        assert e.error.source == str(path) and e.error.message
        return
    assert isinstance(found, list)
    for d in found:
        assert isinstance(d, Deployment) and all(isinstance(w, str) for w in d.argv)
        assert d.location is None or d.location.line is None or d.location.line >= 1
        b = bind(d, release)
        for f in b.findings + validate_bound(b, release):
            assert f.rule and f.message


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(mutated())
def test_the_whole_check_survives_mutated_inputs(case):
    """Loading, binding, validating, resolving and probing: bad input is an error or a result."""
    from vllm_preflight.api import check_deployment

    path, text = case
    try:
        found = _load(path, text, "auto")
    except InputFailure:
        return
    for d in found[:3]:
        res = check_deployment(d)
        assert res.to_json()["source"] == d.source
