"""Mutated configs thrown at every loader: a list of Deployments or an InputFailure, never anything else."""
from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, INPUTS
from vllm_preflight.errors import InputFailure
from vllm_preflight.load import _load_source, detect_format
from vllm_preflight.load.bind import bind
from vllm_preflight.load.source import Source, decode
from vllm_preflight.model import Deployment
from vllm_preflight.releases import get_release
from vllm_preflight.schema.validate import validate_bound

CORPUS = INPUTS.parent / "corpus"  # the loaders' corpus (issue 19): every shape the README claims
SEEDS = sorted(p for p in list(INPUTS.rglob("*")) + list(EXAMPLES.rglob("*")) + list(CORPUS.rglob("*"))
               if p.is_file() and p.suffix in (".sh", ".yaml", ".yml", ".md", ".sbatch", ".slurm")
               and p.name != "expected.yaml")
FORMATS = ("auto", "shell", "markdown", "vllm-config", "kubernetes", "compose", "preflight")
NASTY = ["'", '"', "\\", "\\\n", "$", "$(", "$((", "${", "}", ")", "`", "#", " # ", "\n", "\t", ":", ": ", "- ",
         "-", "--", "=", "&", "|", ";", "<<EOF\n", "<<<<<<< HEAD\n", "{", "[", "]", "*a", "&a ", "!!python/object ",
         "!!binary ", "---\n", "...\n", "%YAML 1.1\n", "?", ">-\n", "|\n", "\u00e9", "\ue000", "\x00", "$@", "${A[@]}",
         "$(( X * ))", "eval ", "bash -c ", "vllm serve ", "-cc.a.b=", "--config ", "$(VAR)", "'{\"a\":", "9" * 30,
         # issue 11: constructs and values that once hung, grew or crashed the loader
         "${IFS}", "source ./x.sh\n", ". $X\n", "bash <<EOF\n", "| sh\n", "A=\"$A$A\"\n", "env: 5\n",
         "envFrom: true\n", "[" * 120, "9" * 5000, "\x1b[2J",
         # issue 19: templates, Compose, serving manifests, Markdown blocks, expansion and control flow
         "{{ .Values.x }}", "{{- if .Values.y }}\n", "{{- end }}\n", "{{ . | quote }}", "{{ .Values.t | default 2 }}",
         "{{", "}}", "${TP}", "$$", "services:\n", "  command: ", "  entrypoint: [sh, -c]\n", "image: ",
         "kind: InferenceService\n", "kind: ServingRuntime\n", "kind: RayJob\n", "entrypoint: vllm serve m\n",
         "roles:\n", "headGroupSpec:\n", "```\n", "```yaml\n", "```bash\n", "~~~\n", "$ ", "(venv) $ ", "<model>",
         "${1:-8000}", "${@:2}", "${X##*/}", "${X/a/b}", "${#X}", "${X:1:2}", "${X^^}", "$#", "shift 3\n",
         "set -- a b\n", "while [[ $# -gt 0 ]]; do\n", "done\n", "case $1 in\n", "--tp) ", ";;", "esac\n",
         "f() {\n", "}\n", "f\n", "if [ 1 -eq 1 ]; then\n", "else\n", "fi\n", "for i in 1 2 3; do\n", "break\n",
         "--entrypoint /bin/bash ", "tmux new -d 'vllm serve m'\n", "srun bash <<EOF\n", "ray start --head\n",
         "getopts a: o", "${A[$i]}", ":v0.10.2-nixl-0.7.1-cu128", ":v0.7.3.self.post1"]
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


# ------------------------------------------------------- hostile inputs (issue 11)
# Generated rather than mutated: growth (doubling variables, arrays, `$(VAR)` chains), depth
# (JSON, dotted flags, sourced files), odd YAML scalars where lists go, here-documents, eval,
# $IFS, absurd numbers. The load must end with Deployments or an InputFailure (never another
# exception), and within the limits of load.limits.
_GROW = ['A="$A$A"', 'A+="$A"', 'arr=("${arr[@]}" "${arr[@]}")', 'set -- "$@" "$@"', "export A=$A$A",
         # issue 19: work that loops and nested function calls multiply
         "g() { h; h; h; h; h; h; h; h; }", "h() { k; k; k; k; k; k; k; k; }", "k() { vllm serve m; }", "g",
         "while true; do A=$A$A; done", 'for i in 1 2 3 4 5 6 7 8; do set -- "$@" "$@"; done']
_TAILS = ["vllm serve m $A", 'vllm serve m "${arr[@]}"', 'vllm serve m "$@"', "vllm${IFS}serve m -tp 2",
          "bash <<EOF\nvllm serve m -tp $A\nEOF", "cat <<'EOF' | sh\nvllm serve m\nEOF", 'eval "$A"',
          "source ./nowhere.sh\nvllm serve m", ". $A\nvllm serve m", "ssh h <<EOF\nvllm serve m\nEOF"]
_WORDS = st.sampled_from(["-cc", "--max-num-batched-tokens", "-tp", "-O", "--foo", "-cc.a.b", "-dp"])


@st.composite
def hostile_shell(draw):
    lines = ["A=x", "arr=(x)", "set -- x"]
    lines += draw(st.lists(st.sampled_from(_GROW), max_size=45))
    tail = draw(st.sampled_from(_TAILS))
    extra = draw(st.lists(st.tuples(_WORDS, st.sampled_from([
        "[" * 150 + "]" * 150, '{"a":' * 120 + "1" + "}" * 120, "9" * 5000, "1e400", "-1", "0",
        "500000000", "'" + "a." * 150 + "'", "$A", "${A:-8}", "$((A*2))"])), max_size=4))
    return "\n".join(lines + [tail + "".join(f" {w} {v}" for w, v in extra)]) + "\n"


@st.composite
def hostile_manifest(draw):
    scalar = st.sampled_from(["5", "true", "1.5", "{a: 1}", "'x'", "null", "[]", "[1]"])
    env = draw(st.one_of(scalar, st.just("\n    - {name: A0, value: x}" + "".join(
        f"\n    - {{name: A{i}, value: '$(A{i - 1})$(A{i - 1})'}}" for i in range(1, draw(st.integers(1, 40)))))))
    env_from = draw(scalar)
    return ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: vllm\n"
            "    image: vllm/vllm-openai:v0.13.0\n    command: [vllm, serve, m, -tp, $(A3)]\n"
            f"    env: {env}\n" + (f"    envFrom: {env_from}\n" if draw(st.booleans()) else ""))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.one_of(hostile_shell().map(lambda t: ("hostile.sh", t)),
                 hostile_manifest().map(lambda t: ("hostile.yaml", t))))
def test_hostile_inputs_end_within_the_limits(case):
    from vllm_preflight.api import check_deployment
    from vllm_preflight.load import limits

    name, text = case
    try:
        found = _load(Path(name), text, "auto")
    except InputFailure as e:
        assert e.error.message
        return
    for d in found[:2]:
        assert len(d.argv) <= limits.MAX_WORDS
        assert all(len(w) <= limits.MAX_VALUE_CHARS for w in d.argv)
        try:
            res = check_deployment(d)
        except InputFailure:
            continue  # e.g. past a limit found while resolving: that input's error
        assert res.to_json()["source"] == d.source
