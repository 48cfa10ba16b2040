"""The loaders' corpus scripts under real bash: every server bash starts is one the tool found.

The recipes, benchmark and Slurm scripts of tests/fixtures/corpus run under bash with the
recording stubs of test_bash_differential, plus stubs for what they call around the server
(`srun` and `tmux` run their command, `sleep`, `scontrol` and `module` answer at once). With
the same variable values pinned, each server bash starts (its words and environment) must be
one of the tool's: the tool may read more branches (a condition over a value the environment
sets reads all), never fewer or other words.
"""
from __future__ import annotations

import os

import pytest
from test_bash_differential import BASH, run_bash, server_words, stubs  # noqa: F401 - stubs is a fixture

from support import in_root  # noqa: F401 - a fixture
from vllm_preflight.load import load_paths

pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")
CORPUS = os.path.join("tests", "fixtures", "corpus")

SRUN = r"""#!/bin/sh
# drop srun's own options (with their values) and run the command
while [ $# -gt 0 ]; do
  case "$1" in
    -N|-n|-w|-c|-t|-p|-G|-J) shift 2 ;;
    -*) shift ;;
    *) exec "$@" ;;
  esac
done
"""
TMUX = r"""#!/bin/sh
# `tmux new-session ... "CMD"`: run CMD (the last argument); anything else does nothing
case "$1" in
  new|new-session) for last; do :; done; exec sh -c "$last" ;;
esac
exit 0
"""
SCONTROL = "#!/bin/sh\nprintf 'node1\\nnode2\\n'\n"
NOOP = "#!/bin/sh\nexit 0\n"
# a moment, so that a server started in the background records itself before a `kill`
SLEEP = "#!/bin/sh\nexec /bin/sleep 0.2 2>/dev/null || exec /usr/bin/sleep 0.2\n"

CASES = [
    ("shell/deepseek-v3-dp8-ep.sh", {}),
    ("shell/qwen3-coder-tool-calling.sh", {}),
    ("shell/llama4-maverick-fp8.sh", {}),
    ("shell/gpt-oss-async.sh", {}),
    ("shell/serve-and-bench.sh", {}),
    ("shell/sweep-max-num-seqs.sh", {}),
    ("shell/pd-disagg-nixl.sh", {}),
    ("shell/pd-disagg-nixl.sh", {"MODEL": "org/other"}),
    ("shell/getopts-launcher.sh", {}),
    ("shell/main-function.sh", {}),
    ("shell/eval-command.sh", {}),
    ("shell/tmux-launch.sh", {}),
    ("shell/entrypoint.sh", {"MODEL_NAME": "org/m", "EXTRA_ARGS": "--max-num-seqs 4"}),
    ("shell/start-api-server.sh", {"PORT": "9000"}),
    ("shell/multinode-dp-launch.sh", {"NODE_RANK": "0", "HEAD_IP": "10.0.0.1"}),
    ("shell/multinode-dp-launch.sh", {"NODE_RANK": "1", "HEAD_IP": "10.0.0.1"}),
    ("slurm/ray-cluster.slurm", {"SLURM_JOB_NODELIST": "node[1-2]"}),
    ("slurm/heredoc-job.sbatch", {"USER": "alice"}),
    ("slurm/array-job.sbatch", {"SLURM_ARRAY_TASK_ID": "1"}),
]
# (vllm-config/serve-with-config.sh is left out: the tool folds the --config file into the words,
# as vLLM does, so its words are not bash's; tests/load/test_load_vllm_config.py covers the folding)


def _is_server(argv: tuple[str, ...]) -> bool:
    return argv[:2] == ("vllm", "serve") or ("-m" in argv and argv[argv.index("-m") + 1].startswith("vllm.entrypoints"))


@pytest.mark.parametrize("rel,variables", CASES, ids=[f"{r}-{'-'.join(v.values()) or 'plain'}" for r, v in CASES])
def test_each_server_bash_starts_is_one_the_tool_found(rel, variables, stubs, in_root):  # noqa: F811
    for name, text in {"srun": SRUN, "tmux": TMUX, "scontrol": SCONTROL, "sleep": SLEEP, "module": NOOP}.items():
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o755)
    script = in_root / CORPUS / rel
    runs = [(argv, env) for argv, env in run_bash(script, stubs, variables) if _is_server(argv)]
    assert runs, "bash started no server: the case tests nothing"
    deployments, errors = load_paths([os.path.join(CORPUS, rel)], variables=variables)
    assert not errors
    tool = [(server_words(d.argv), dict(d.env)) for d in deployments]
    for argv, env in runs:
        words = server_words(argv)
        hits = [t_env for t_words, t_env in tool if t_words == words]
        assert hits, (words, [t for t, _ in tool])
        assert any(all(env.get(k) == v for k, v in t_env.items()) for t_env in hits), (hits, env)
