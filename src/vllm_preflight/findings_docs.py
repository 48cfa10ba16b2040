"""Documentation of the loader (VP1xx) and schema (VP2xx) rules: why, fix, source, two examples.

Kept beside the registry so that `findings.py` stays a readable list of rules; `findings`
folds these into `RULES` at import. Hazard rules (VP3xx) carry their docs in their entries.
"""
from __future__ import annotations

from vllm_preflight.rule_example import Example


def _pod(tag: str, args: str = "", env: str = "") -> str:
    return ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: vllm\nspec:\n  containers:\n    - name: vllm\n"
            f"      image: vllm/vllm-openai:{tag}\n"
            f'      command: ["vllm", "serve", "Qwen/Qwen3-0.6B"{args}]\n' + env)


_BASE = (("base.yaml", "model: Qwen/Qwen3-0.6B\ntensor-parallel-size: 2\n"),)
_ENV_FROM = ("      env:\n        - name: VLLM_ALL2ALL_BACKEND\n          valueFrom:\n"
             "            configMapKeyRef: {name: cfg, key: backend}\n")
_ENV_VALUE = "      env:\n        - name: VLLM_ALL2ALL_BACKEND\n          value: naive\n"

DOCS: dict[str, dict] = {
    "VP101": {
        "why": "A `#` line inside a `\\`-continued command ends the command: bash runs the flags after it as a "
            "separate command (which fails), so vLLM starts without them. A `\\` followed by a space (`\\ # "
            "note`, or a space typed after the `\\`) escapes that space instead of the line end: bash passes "
            "the space (and the words glued to it, `#` included) to vLLM, which refuses them as unrecognized "
            "arguments, and the command ends on that line; that case is an error, and the finding names the "
            "line where the command really ends.",
        "fix": "Delete the commented line, or move it below the command; put each `\\` last on its line, and a "
               "comment (an ignore too) on a line of its own above the command.",
        "source": "bash(1): a comment ends the logical line, so the continuation stops there; a backslash "
                  "quotes the next character, a space included.",
        "triggers": Example("vllm serve Qwen/Qwen3-0.6B \\\n  -tp 2 \\\n  # --enforce-eager \\\n  --port 8000"),
        "passes": Example("vllm serve Qwen/Qwen3-0.6B \\\n  -tp 2 \\\n  --port 8000\n# --enforce-eager")},
    "VP102": {
        "why": "The value comes from outside the file (the shell's or the pod's environment); the tool resolves "
            "under a stated value and says so.",
        "fix": "Pin it with `--assume NAME=VALUE`, or write the value.",
        "source": "vllm-preflight's loaders (shell and Kubernetes expansion).",
        "triggers": Example("vllm serve Qwen/Qwen3-0.6B -tp $TP"),
        "passes": Example("TP=2\nvllm serve Qwen/Qwen3-0.6B -tp $TP")},
    "VP103": {
        "why": "Other values of the variable give other compilation or CUDA-graph settings: the file alone does "
            "not say what runs.",
        "fix": "Pin the variable (`--assume NAME=VALUE`) for each environment you deploy to.",
        "source": "vllm-preflight resolves the variable's other values and compares the outcomes.",
        "triggers": Example("vllm serve deepseek-ai/DeepSeek-V3 -dp 8 --enable-expert-parallel "
                         "--all2all-backend $BACKEND"),
        "passes": Example("BACKEND=deepep_low_latency\nvllm serve deepseek-ai/DeepSeek-V3 -dp 8 "
                       "--enable-expert-parallel --all2all-backend $BACKEND")},
    "VP104": {
        "why": "The report is for another release than the one the image runs, and the rules differ between "
            "releases.",
        "fix": "Drop `--vllm-version`, or change the image tag.",
        "source": "vllm-preflight takes the release from the image tag unless --vllm-version is given.",
        "triggers": Example(_pod("v0.12.0"), ("--vllm-version", "0.13.0"), "pod.yaml"),
        "passes": Example(_pod("v0.13.0"), ("--vllm-version", "0.13.0"), "pod.yaml")},
    "VP105": {
        "why": "The tool resolved with the rules of another release, which may differ from the image's.",
        "fix": "Check with a supported release (`--vllm-version`), or update vllm-preflight.",
        "source": "vllm-preflight's release table (0.11.0-0.33.0 and pr29558).",
        "triggers": Example(_pod("v0.40.0"), (), "pod.yaml"),
        "passes": Example(_pod("v0.33.0"), (), "pod.yaml")},
    "VP106": {
        "why": "Before 0.16.0 vLLM's `--config` reader passes a nested mapping on as its Python repr "
            "(`{'mode': 3}`), which the JSON parser of `--compilation-config` rejects: vLLM does not start.",
        "fix": "Write the value as a JSON string, or use vLLM 0.16.0 or later.",
        "source": "vllm/utils/argparse_utils.py `load_config_file` (str() of nested values before 0.16.0).",
        "triggers": Example("model: Qwen/Qwen3-0.6B\ncompilation-config:\n  cudagraph_mode: PIECEWISE",
                         ("--vllm-version", "0.15.1"), "config.yaml"),
        "passes": Example("model: Qwen/Qwen3-0.6B\ncompilation-config: '{\"cudagraph_mode\": \"PIECEWISE\"}'",
                       ("--vllm-version", "0.15.1"), "config.yaml")},
    "VP107": {
        "why": "The settings of the missing file are not checked, and on the node vLLM fails to read it.",
        "fix": "Check the path (relative to the script's folder).",
        "source": "vllm/utils/argparse_utils.py `load_config_file`.",
        "triggers": Example("vllm serve Qwen/Qwen3-0.6B --config missing.yaml"),
        "passes": Example("vllm serve --config base.yaml", extra=_BASE)},
    "VP108": {
        "why": "argparse keeps the last value: an earlier one the author relies on is silently ignored.",
        "fix": "Keep one.",
        "source": "Python argparse (vLLM's FlexibleArgumentParser).",
        "triggers": Example("vllm serve Qwen/Qwen3-0.6B -tp 2 -tp 4"),
        "passes": Example("vllm serve Qwen/Qwen3-0.6B -tp 4")},
    "VP109": {
        "why": "Before 0.28.0 a `false` in the `--config` file adds no flag, so a flag whose default is true "
            "stays true.",
        "fix": "Use the `--no-...` flag on the command line.",
        "source": "vllm/utils/argparse_utils.py `load_config_file` (booleans).",
        "triggers": Example("model: Qwen/Qwen3-0.6B\nenforce-eager: false", ("--vllm-version", "0.20.2"), "config.yaml"),
        "passes": Example("model: Qwen/Qwen3-0.6B\nenforce-eager: true", ("--vllm-version", "0.20.2"), "config.yaml")},
    "VP110": {
        "why": "The command line wins over the `--config` file: the file's value is not what runs.",
        "fix": "Keep each setting in one place.",
        "source": "vllm/utils/argparse_utils.py (the file's options go before the command line's).",
        "triggers": Example("vllm serve --config base.yaml -tp 4", extra=_BASE),
        "passes": Example("vllm serve --config base.yaml -dp 2", extra=_BASE)},
    "VP111": {
        "why": "Flags hidden in the variable are not checked; the tool assumed it adds none.",
        "fix": "Pin it with `--assume NAME='--flag value'`.",
        "source": "vllm-preflight's shell loader.",
        "triggers": Example("vllm serve Qwen/Qwen3-0.6B $EXTRA_ARGS"),
        "passes": Example("EXTRA_ARGS='-tp 2'\nvllm serve Qwen/Qwen3-0.6B $EXTRA_ARGS")},
    "VP112": {
        "why": "The value comes from a Secret, ConfigMap or field outside the file: vLLM may read another value "
            "on the node than the one the tool assumed.",
        "fix": "Put the ConfigMap in the same file, or pin the value with `--env NAME=VALUE`.",
        "source": "Kubernetes `valueFrom`/`envFrom`; vllm/envs.py.",
        "triggers": Example(_pod("v0.13.0", ', "-dp", "2"', _ENV_FROM), (), "pod.yaml"),
        "passes": Example(_pod("v0.13.0", ', "-dp", "2"', _ENV_VALUE), (), "pod.yaml")},
    "VP201": {
        "why": "vLLM's parser exits with 'unrecognized arguments': the server does not start.",
        "fix": "Use this release's spelling (the finding suggests a close one).",
        "source": "the release's `vllm serve` parser (its recorded option table).",
        "triggers": Example("vllm serve Qwen/Qwen3-0.6B --tensor-paralel-size 2"),
        "passes": Example("vllm serve Qwen/Qwen3-0.6B --tensor-parallel-size 2")},
    "VP202": {
        "why": "vLLM's parser rejects the value: the server does not start.",
        "fix": "Use a value of the option's type, or one of its choices.",
        "source": "the release's `vllm serve` parser (types and choices).",
        "triggers": Example("vllm serve Qwen/Qwen3-0.6B -tp two"),
        "passes": Example("vllm serve Qwen/Qwen3-0.6B -tp 2")},
    "VP203": {
        "why": "From 0.13.0 the config dataclasses forbid unknown keys (vLLM refuses); before, they are ignored "
            "and the setting has no effect.",
        "fix": "Use this release's field name (the finding suggests a close one).",
        "source": "vllm/config/compilation.py CompilationConfig / PassConfig fields of the release.",
        "triggers": Example("vllm serve Qwen/Qwen3-0.6B -cc '{\"cudagraph_mod\": \"PIECEWISE\"}'"),
        "passes": Example("vllm serve Qwen/Qwen3-0.6B -cc '{\"cudagraph_mode\": \"PIECEWISE\"}'")},
    "VP204": {
        "why": "pydantic rejects the value while building the config: vLLM does not start.",
        "fix": "Use a value of the field's type, or one of its names.",
        "source": "vllm/config/compilation.py field types of the release.",
        "triggers": Example("vllm serve Qwen/Qwen3-0.6B -cc '{\"cudagraph_mode\": \"SOMETIMES\"}'"),
        "passes": Example("vllm serve Qwen/Qwen3-0.6B -cc '{\"cudagraph_mode\": \"FULL\"}'")},
    "VP205": {
        "why": "vLLM's parser cannot read the value: the server does not start.",
        "fix": "Quote the JSON for the shell (single quotes around it) and check its braces.",
        "source": "the release's JSON option parsing (`--compilation-config` and the other *-config flags).",
        "triggers": Example("vllm serve Qwen/Qwen3-0.6B -cc '{\"mode\": 3'"),
        "passes": Example("vllm serve Qwen/Qwen3-0.6B -cc '{\"mode\": 3}'")},
    "VP120": {
        "source": "vllm/config/compilation.py capture-size defaults (every 16 tokens up to the maximum); "
               "the tool's limit keeps its answer in bounded memory.",
        "triggers": Example("vllm serve Qwen/Qwen3-0.6B --max-num-batched-tokens 5000000 "
                         "-cc '{\"max_cudagraph_capture_size\": 5000000}'"),
        "passes": Example("vllm serve Qwen/Qwen3-0.6B -cc '{\"max_cudagraph_capture_size\": 512}'")},
    "VP121": {
        "why": "Variables the sourced file would set (model, parallel sizes, backend) are unknown, so what "
            "the tool resolved may not be what runs.",
        "fix": "Keep the sourced file next to the script (relative paths are read from its folder), or pin "
            "its variables with `--assume NAME=VALUE`.",
        "source": "bash(1) `source` / `.`; vllm-preflight follows files beside the script, 8 levels deep.",
        "triggers": Example(". ./missing-env.sh\nvllm serve Qwen/Qwen3-0.6B -tp $TP"),
        "passes": Example(". ./env.sh\nvllm serve Qwen/Qwen3-0.6B -tp $TP", extra=(("env.sh", "TP=2\n"),))},
    "VP122": {
        "why": "The command vLLM runs is built at run time (an `eval` of an unknown value, a here-document "
            "fed to another program): the tool cannot see its flags.",
        "fix": "Write the server command out, or make the evaluated value known in the file.",
        "source": "bash(1) `eval` and here-documents; vllm-preflight follows `bash <<EOF` and `| sh`.",
        "triggers": Example('eval "$SETUP"\nvllm serve Qwen/Qwen3-0.6B'),
        "passes": Example('SETUP="export TP=2"\neval "$SETUP"\nvllm serve Qwen/Qwen3-0.6B')},
}
