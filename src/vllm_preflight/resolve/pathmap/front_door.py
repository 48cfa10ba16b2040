"""The map's head, `vllm serve`'s front door and the parser."""
from __future__ import annotations

from vllm_preflight import releases
from vllm_preflight.resolve.compilation import compilation_config
from vllm_preflight.resolve.config import reasoning, structured_outputs
from vllm_preflight.resolve.kv_transfer import kv_transfer_config
from vllm_preflight.resolve.parser import argument_parser, json_options
from vllm_preflight.resolve.pathmap.table import Row, Section
from vllm_preflight.resolve.serve import serve
from vllm_preflight.resolve.speculative import speculative_config

HEAD = "# From parsed arguments to the final `VllmConfig`: what the port covers\n\nEvery function vLLM runs between `vllm serve`'s argument parser and the finished `VllmConfig`,\nfor **0.12.0** and **0.33.0**, each marked **ported**, **not ported** (what it can do) or **out of\nscope** (why). Line numbers are those of the installed wheels (`vllm/` inside site-packages).\nWhere the port lives is named in the last column. Anything *not ported* that can refuse a\nconfig or change a compiled setting is printed on every report as a `not checked` assumption\n(`resolve/not_checked.py: NOT_CHECKED`).\n\nGoldens: `tests/golden/data/*.jsonl` (compilation path, 360 cases per release),\n`tests/golden/data/families/*.jsonl` (the refusal families, 520+ cases on 0.12.0, 0.13.0, 0.21.0,\n0.24.0, 0.27.0, pr29558 and 0.33.0) and `tests/golden/data/model_families/FAMILY/*.jsonl` (what vLLM\nchecks against the model and the remaining option families, 100+ cases per family and release on\n0.12.0, pr29558, 0.33.0 and the releases where a rule changes), all recorded from real vLLM by\n`tools/record_golden.py`; `tests/golden/data/release_rules/` holds the release-boundary cases.\n\n"

SECTIONS = (
Section(
    "`vllm serve`'s own front door (`vllm/entrypoints/cli/serve.py`, the API server's argument checks)",
    "What `vllm serve` (and `python -m vllm.entrypoints.openai.api_server`) checks around the engine config,\nbefore any socket is bound or process started. Goldens: `model_families/serve_stage/` recorded through the\nrelease's real serve entry code (`tools/record_serve_stage.py`, sockets, processes and the engine patched\nout) on 0.11.0, 0.12.0, pr29558, 0.13.0, 0.15.0, 0.17.0, 0.19.0, 0.25.0, 0.26.0, 0.29.0, 0.31.0, 0.33.0.\nA `--config` YAML is a serve command too; the engine-only goldens (the oracle's `cli_args` path) are\ncompared without this stage (`resolve(..., serve_stage=False)`).",
    (
    Row('`validate_parsed_serve_args`: auto tool choice needs a parser, log outputs need log requests, multi-port external LB (0.22.0+), per-request metrics (0.25.0+), SSE keep-alive (0.29.0+), gRPC port (0.32.0+), reasoning-effort map (0.33.0+)',
        '`entrypoints/openai/cli_args.py:283`', '`entrypoints/common/cli_args.py:531` (`:480`, `:512`), `launchers/dp_supervisor.py:52`',
        'ported; the chat template file: an assumption (it lives on the node)',
        port=(serve.validate_parsed,)),
    Row('`ServeSubcommand.cmd`: positional model, `--headless` with `--api-server-count`, load-balancing mode conflicts, api_server_count defaults (0.15.0+), elastic EP cap (0.19.0+), Rust front end (0.22.0+)',
        '`cli/serve.py:48`', '`cli/serve.py:54` (`:70`, `:96`, `:114`)',
        'ported (not: whether the vllm-rs binary exists with `VLLM_USE_RUST_FRONTEND=1`)',
        port=(serve.dispatch,)),
    Row("`run_headless` (api_server_count > 1, hybrid LB, `data_parallel_size_local <= 0`), `run_multi_api_server` (`VLLM_ALLOW_RUNTIME_LORA_UPDATING` with several API servers, `--use-gpu-for-pooling-score` 0.17.x), 0.11.0's V1-only refusals",
        '`cli/serve.py:81`, `:162-182`', '`cli/serve.py:181-203`, `:269-317`',
        'ported',
        port=(serve.before_engine, serve.after_engine,)),
    Row('`setup_server` → `validate_api_server_args`: registered tool-call parsers (with `--enable-auto-tool-choice`) and structured-outputs reasoning parsers, per release',
        '`openai/api_server.py:1768` → `:1750`', '`launchers/launcher.py:365` → `common/cli_args.py:615`',
        'ported (`releases/data/serve_parsers.json` from `tools/extract_serve_parsers.py`, every release); names a `--tool-parser-plugin` / `--reasoning-parser-plugin` file registers: an assumption',
        port=(serve.api_server_args,)),
    Row('`--reasoning-parser` looked up when the engine config is built (`ReasoningConfig.initialize_token_ids`, 0.20.0+; 0.33.0 maps `none` to no parser)',
        'n/a (0.11.1-0.12.0: the StructuredOutputsConfig validator, §1)', '`engine/arg_utils.py:3111`, `config/vllm.py:2209`, `reasoning/abs_reasoning_parsers.py:257`',
        'ported (goldens: `model_families/reasoning_parser/`); a registered parser built on the tokenizer: an assumption (model files); 0.13.0-0.19.x look the name up only in the API server after the engine starts: stated',
        port=(reasoning,)),
    )),
Section(
    'Parser (`vllm/utils/argparse_utils.py`, `vllm/engine/arg_utils.py: add_cli_args`)',
    '',
    (
    Row('`FlexibleArgumentParser`: `_` to `-`, dotted `-cc.x=v`, `+=` lists, `-O<n>`',
        '`argparse_utils.py:49`', '`:156`',
        'ported',
        port=(argument_parser,)),
    Row('`--config FILE.yaml` folded in after `serve MODEL`',
        '`:375`, `:458`', '`:516`, `:606`',
        'ported (every input path, `load/server.py`)',
        port=('`load/vllm_yaml.py`',)),
    Row('option table: names, nargs, choices, converters',
        '`add_cli_args`', 'same',
        'ported (recorded per release)',
        port=('`releases/data/options.json`',)),
    Row('hidden `--no-enable-x` / `--no-disable-x` of the enable/disable pairs',
        'n/a', '`EnableDisableAction` `:120`',
        'ported',
        port=(releases._hidden_negatives,)),
    Row('JSON options validated by their argparse type (pydantic): `--compilation-config`, `--kv-transfer-config` (role literal, connector needs a role, unknown keys on 0.33), `--structured-outputs-config` (backend literal)',
        '`parse_type`', 'same',
        'ported',
        port=(argument_parser, compilation_config.build, kv_transfer_config.kv_transfer_problem, structured_outputs.structured_outputs_problem,)),
    Row("every other config-class option parsed by pydantic (`--eplb-config`, `--kv-events-config`, `--ec-transfer-config`, `--attention-config`, `--kernel-config`, `--profiler-config`, `--pooler-config`, ...): field types in pydantic's lax JSON mode, bounds, literals, unknown keys, nested classes",
        '`engine/arg_utils.py:276-281`', '`:372-374`',
        "ported per release (`releases/data/json_options.json` from `tools/extract_json_options.py`); ProfilerConfig's model validator (0.13.0+, field-driven) and IrOpPriorityConfig's `'*'` (0.20.0+) too; Literal-or-str unions (`WeightTransferConfig.backend` 0.23.0+, `AttentionConfig.indexer_kv_dtype` 0.33.0)",
        port=(json_options,)),
    Row("EPLBConfig's and EngramConfig's model validators; ECTransferConfig (a connector needs a role); StructuredOutputsConfig backend-only options; PoolerConfig's removed parameters (0.26.0+, a VLLMValidationError from 0.28.0)",
        '`config/parallel.py:42`, `ec_transfer.py:91`, `structured_outputs.py:84`', '`parallel.py:121`, `ec_transfer.py:90`, `structured_outputs.py:66`, `pooler.py:126`',
        "ported, with the reasoning-parser registry of 0.11.1-0.12.0 (`releases/data/reasoning_parsers.json`; from the option and from `--reasoning-parser`); 0.20.0+'s lookup at engine-config time: §0",
        port=(json_options, structured_outputs.reasoning_parser,)),
    Row('`union_dict_and_str` options (`--hf-overrides`, `--additional-config`, ...): text that is not a JSON object',
        '`arg_utils.py:136`, `config/model.py:94`', '`:182`, `:108`',
        'ported',
        port=(json_options.check,)),
    Row('`--spec-method` / `--spec-model` / `--spec-tokens` into the speculative config, each refused next to the same `--speculative-config` key',
        'n/a', '`:2108-2120` (0.22.0+)',
        'ported',
        port=(speculative_config._spec_flags,)),
    )),
)
