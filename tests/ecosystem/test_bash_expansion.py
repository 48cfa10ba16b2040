"""Parameter expansion, positional parameters, `shift`, `set --` and control flow as real bash does them.

Scripts written here run under real bash with stub `vllm`/`python3` (the recorder of
test_bash_differential) with several argument lists and environments; the tool reads the
same script with those arguments pinned (`--assume 1=A --assume 2=B` runs it as `script A B`)
and must find exactly the servers bash started, word for word.
"""
from __future__ import annotations

import textwrap

import pytest
from test_bash_differential import BASH, run_bash, server_words, stubs  # noqa: F401 - stubs is a fixture

from vllm_preflight.load import load_paths

pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")

SCRIPTS = {
    "defaults": """\
        MODEL=${1:-Qwen/Qwen3-0.6B}
        PORT=${2:-8000}
        TP=${3-1}
        EAGER=${4:+--enforce-eager}
        vllm serve "$MODEL" --port "$PORT" -tp "$TP" $EAGER
        """,
    "assign-default-and-alternate": """\
        : ${DP:=2}
        X=${DP:+--data-parallel-size}
        vllm serve m $X $DP --max-num-seqs ${SEQS=16}
        """,
    "count-shift-set": """\
        N=$#
        shift 2
        set -- "$@" --max-num-seqs 8
        vllm serve m --seed "$N" "$@" --max-model-len "$(( $# * 1024 ))"
        """,
    "shift-past-the-end-changes-nothing": """\
        shift 5
        vllm serve m --seed $# "$@"
        """,
    "slices": """\
        M=$1
        vllm serve "$M" "${@:2}" --served-model-name "${@: -1}"
        """,
    "patterns": """\
        MODEL=${1:-deepseek-ai/DeepSeek-V3.1}
        NAME=${MODEL##*/}
        ORG=${MODEL%%/*}
        vllm serve "$MODEL" --served-model-name "${NAME,,}" --tokenizer "${MODEL/deepseek-ai/${ORG}}" \\
            --seed "${#NAME}" --revision "${NAME:0:8}" --chat-template "${NAME%.*}.jinja" --kv-cache-dtype "${NAME//[.-]/_}"
        """,
    "positional-assign-aborts-the-command": """\
        vllm serve a ${1:=m}
        vllm serve b
        """,
    "star-and-at": """\
        vllm serve m --served-model-name "$*" $@
        """,
    "required-parameter": """\
        MODEL=${1:?usage: $0 MODEL}
        vllm serve "$MODEL" --port ${SERVE_PORT:?set SERVE_PORT}
        """,
}
# control flow over values known here (literals and the script's arguments: a condition over a
# variable the environment may set reads every branch, which bash does not): argument loops,
# functions, `for` over words, counted loops, `if`, `case`
SCRIPTS.update({
    "argument-loop-functions-for": """\
        MODEL=Qwen/Qwen3-0.6B
        TP=1
        PORTS="8000"
        while [[ $# -gt 0 ]]; do
          case "$1" in
            -m|--model) MODEL="$2"; shift 2 ;;
            --tp=*) TP="${1#*=}"; shift ;;
            --ports) PORTS="$2"; shift 2 ;;
            --) shift; break ;;
            *) shift ;;
          esac
        done
        serve() {
          local port=$1
          shift
          vllm serve "$MODEL" -tp "$TP" --port "$port" "$@"
        }
        for p in $PORTS; do
          serve "$p" --seed 1
        done
        if [ "$TP" -gt 1 ] && [ -n "$MODEL" ]; then
          vllm serve "$MODEL" --enable-expert-parallel
        elif [[ -z "$PORTS" || "$PORTS" == 8000 ]]; then
          vllm serve "$MODEL" --max-num-seqs 3
        else
          vllm serve "$MODEL" --max-num-seqs 4
        fi
        """,
    "counted-loop-and-until": """\
        i=0
        while [ "$i" -lt 2 ]; do
          vllm serve m --data-parallel-rank "$i"
          i=$((i + 1))
        done
        until [ $# -eq 0 ]; do
          vllm serve "$1"
          shift
        done
        case "${1:-none}" in
          none) vllm serve no-args ;;
          *) ;;
        esac
        """,
    "compound-commands-on-one-line": """\
        X=1
        if [ "$X" = 1 ]; then vllm serve a; else vllm serve b; fi
        function f {
          vllm serve "f-$1"
        }
        function g() { vllm serve "g-$1"; }
        f one; g two
        case "$X" in 1|2) if [[ -z "" || "$X" == 3 ]]; then vllm serve c; fi ;; *) vllm serve d ;; esac
        for m in x y z; do case $m in x) vllm serve "m-$m" ;; y) continue ;; *) break ;; esac; vllm serve "n-$m"; done
        until [ "$X" -ge 3 ]; do X=$((X+1)); vllm serve "u-$X"; done
        """,
})
# (arguments, environment); `required-parameter` only runs when both are given (bash stops otherwise)
# (pins act on the variables a script reads, not on those it assigns: no run sets those)
RUNS = [([], {}), (["org/m"], {}), (["org/m", "9000"], {"DP": "4", "SEQS": "3"}),
        (["org/m", "", "2", "yes", "--max-num-batched-tokens", "4096"], {"SERVE_PORT": "7000"}),
        (["a/b.c-d", "b", "--enforce-eager", "--seed", "3"], {"SEQS": "", "SERVE_PORT": "1"}),
        (["--model", "x/y", "--tp=4", "--ports", "8000 8001 8002", "--", "z"], {"SEQS": "7", "DP": "1"})]
CASES = [(name, args, env) for name in SCRIPTS for args, env in RUNS
         if name != "required-parameter" or (args and "SERVE_PORT" in env)]


@pytest.mark.parametrize("name,args,env", CASES, ids=[f"{n}-{len(a)}args-{len(e)}env" for n, a, e in CASES])
def test_expansion_is_what_bash_does(name, args, env, stubs, tmp_path):  # noqa: F811 - the fixture
    script = tmp_path / f"{name}.sh"
    script.write_text("#!/bin/bash\n" + textwrap.dedent(SCRIPTS[name]))
    runs = run_bash(script, stubs, env, args)
    pins = {**env, **{str(k + 1): a for k, a in enumerate(args)}}
    deployments, errors = load_paths([str(script)], variables=pins)
    assert not errors
    tool = sorted(server_words(d.argv) for d in deployments)
    assert tool == sorted(server_words(argv) for argv, _ in runs)
