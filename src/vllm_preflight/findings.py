"""Findings: what the tool noticed about how a deployment is written, placed at a line.

A finding is not vLLM's behaviour (that is an Event) and not an unreadable input (that is
an InputError): it is a remark about the input with a stable rule id, a severity, a
message, and the location of the offending word, key or flag.

Rules are data: one entry per id in RULES. The code never changes meaning; a renamed rule
keeps its code. Severities: error (vLLM would reject it, or the tool had to guess in a
way that hides a refusal), warning (likely not what the author meant), info.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vllm_preflight.model import Location
from vllm_preflight.rule_example import Example


@dataclass(frozen=True)
class Rule:
    """A rule code's documented facts."""

    code: str
    name: str
    severity: str
    summary: str
    # documentation for `vllm-preflight explain` and docs/rules.md (generated from this registry)
    why: str = ""  # what goes wrong on the node, in a deployer's words
    fix: str = ""  # what to change; hazard rules also put a resolved, checked fix in each finding
    source: str = ""  # the vLLM source (file, release, PR) behind the rule
    triggers: Example | None = None  # an input the rule fires on
    passes: Example | None = None  # a close input it does not fire on


RULES: dict[str, Rule] = {r.code: r for r in (
    # --- how the input is written (loaders) ---
    Rule("VP101", "comment-after-continuation", "warning",
         "A comment right after a `\\` continuation, or a `\\` followed by a space, ends the command "
         "there; the lines after it are not passed to vLLM."),
    Rule("VP102", "unresolved-variable", "info",
         "A shell or Kubernetes variable has no value here; the tool resolved under a stated value."),
    Rule("VP103", "outcome-depends-on-variable", "warning",
         "What vLLM runs depends on the value of an unresolved variable."),
    Rule("VP104", "version-differs-from-image", "info",
         "The vLLM release checked differs from the one in the container image tag."),
    Rule("VP105", "unsupported-image-release", "warning",
         "The image tag names a vLLM release the tool does not model; the nearest supported "
         "release was used."),
    Rule("VP106", "config-yaml-nested-mapping", "error",
         "A nested mapping in a `--config` YAML file reaches the parser as a Python repr before "
         "vLLM 0.16.0, which the JSON parser rejects."),
    Rule("VP107", "config-file-unreadable", "warning",
         "A `--config` file named by the command could not be read; its settings are missing."),
    Rule("VP108", "duplicate-option", "info",
         "An option is given more than once; the last one wins."),
    Rule("VP109", "config-yaml-false-dropped", "info",
         "`false` in a `--config` YAML file is dropped by this release (no `--no-` flag is "
         "added), so the option keeps its default."),
    Rule("VP110", "config-yaml-overridden", "info",
         "A key of the `--config` file is also given on the command line, which wins."),
    Rule("VP111", "unknown-variable-flags", "info",
         "An unresolved variable stands where flags go; the tool assumed it adds no flags."),
    Rule("VP112", "env-value-unknown", "info",
         "An environment variable vLLM reads comes from `valueFrom`/`envFrom`; it is treated as unset."),
    Rule("VP120", "capture-sizes-not-listed", "warning",
         "vLLM would capture more CUDA-graph sizes than the tool lists (65,536); "
         "`cudagraph_capture_sizes` is null and `max_cudagraph_capture_size` gives the largest.",
         why="Every size is one CUDA graph captured at start-up: millions of them never finish "
             "capturing, and vLLM's own list of them can exhaust host memory.",
         fix="Lower max_num_batched_tokens or max_cudagraph_capture_size to the batch sizes served."),
    Rule("VP121", "sourced-file-not-read", "warning",
         "`source FILE` / `. FILE` names a file that is not here (or is past the depth limit); "
         "variables it sets are unknown."),
    Rule("VP122", "shell-construct-not-followed", "warning",
         "The server is started in a way the tool does not follow (a here-document fed to a "
         "shell, `eval` of an unknown value, `$IFS` splitting); what runs there is not checked."),
    Rule("VP130", "model-files-not-read", "warning",
         "The model's own files could not be read (a gated or missing Hub repo, no network, a timeout, a file "
         "over the size limit, or a source the tool does not read: GGUF, ModelScope, object storage); its facts "
         "come from the built-in table (then an info finding: the table holds the model's config.json keys) or a "
         "stated guess.",
         why="vLLM builds its config from the model's config.json (quantization_config, text_config, experts, MLA, "
             "hybrid layers, context length) and from hf_quant_config.json and the tokenizer's files; facts the "
             "tool could not read may not be the ones vLLM sees on the node. A gated or missing repo, or no "
             "network there, also stops vLLM itself unless the files are already in the node's cache.",
         fix="Let the tool read the files: set HF_TOKEN (and accept a gated repo's terms), check the model name "
             "and --revision, run where the model is in the Hugging Face cache (HF_HOME / HF_HUB_CACHE), or give a "
             "GGUF model's original config with --hf-config-path. VLLM_PREFLIGHT_HUB_TIMEOUT sets the time limit; "
             "`--offline` reads the cache only.",
         source="vLLM transformers_utils/config.py get_config, get_sentence_transformer_tokenizer_config and "
                "repo_utils (file_or_path_exists, try_get_local_file, get_hf_file_to_dict), 0.12.0 and 0.33.0",
         triggers=Example("vllm serve ./qwen3-8b-q4_k_m.gguf --tokenizer Qwen/Qwen3-8B"),
         passes=Example("vllm serve Qwen/Qwen3-8B")),
    Rule("VP160", "version-mapped-to-release", "info",
         "A vLLM version that is not a release itself (a release candidate, post-release, dev or "
         "local build, or a short form such as `0.13`) was checked as the release it belongs to.",
         why="An image tag such as `v0.13.0rc1` or `v0.13.0.post1` carries the code of the release it "
             "precedes or rebuilds; the tool reads versions as pip does (PEP 440) and models releases only.",
         fix="Nothing to fix when the mapping is right; pin `--vllm-version` to a release to silence it.",
         source="PEP 440 (packaging.version); vLLM's image tags on Docker Hub",
         triggers=Example("docker run --gpus all vllm/vllm-openai:v0.13.0rc1 Qwen/Qwen3-0.6B"),
         passes=Example("docker run --gpus all vllm/vllm-openai:v0.13.0 Qwen/Qwen3-0.6B")),
    # --- schema validation against the release ---
    Rule("VP201", "unknown-option", "error",
         "The option does not exist in this vLLM release; its parser rejects the command."),
    Rule("VP202", "invalid-option-value", "error",
         "The value does not fit the option's type or choices in this vLLM release."),
    Rule("VP203", "unknown-config-key", "error",
         "The key does not exist in this release's config dataclass; vLLM rejects it."),
    Rule("VP204", "invalid-config-value", "error",
         "The value of a config key does not fit its type or choices in this vLLM release."),
    Rule("VP205", "invalid-json", "error",
         "A JSON-valued option holds text that is not JSON."),
    # --- hazards: read from the resolved result (src/vllm_preflight/hazards/) ---
    Rule("VP300", "vllm-refuses", "error",
         "vLLM would refuse to start with this configuration.",
         why="The engine raises while building its config: the server never comes up.",
         fix="Change what the message names; `vllm-preflight check` shows the exception vLLM raises.",
         source="vLLM's argument parser, config dataclasses and `EngineArgs.create_engine_config` "
                "(the release's own message is quoted).",
         triggers=Example("vllm serve Qwen/Qwen3-0.6B -cc '{\"cudagraph_mode\": \"SOMETIMES\"}'"),
         passes=Example("vllm serve Qwen/Qwen3-0.6B -cc '{\"cudagraph_mode\": \"PIECEWISE\"}'")),
    Rule("VP301", "ht-dispatch-in-cuda-graph", "error",
         "A CUDA graph would be captured around DeepEP's high-throughput dispatch (all2all "
         "`deepep_high_throughput`, data parallel > 1, expert parallel).",
         why="DeepEP's normal (high-throughput) dispatch copies the per-rank receive counts to the host and "
             "waits for them before it allocates its outputs; under CUDA-graph capture that wait cannot "
             "finish, and a replayed graph would reuse the sizes of the capture. On the node this is a hang, "
             "DeepEP's 'CPU recv timeout', or a crash. It happens with a FULL graph (FULL, FULL_DECODE_ONLY, "
             "the FULL part of FULL_AND_PIECEWISE: the default of the PR #29558 design), and with piecewise "
             "graphs whose splitting_ops do not split out vllm::moe_forward / vllm::moe_forward_shared (e.g. "
             "compile mode NONE with an explicit FULL mode from vLLM 0.13.0, where the DeepEP rule only runs "
             "under VLLM_COMPILE). `vllm-preflight verify` fails the same configs (check V2).",
         fix="Under the PR #29558 design: `-cc.cudagraph_mode=PIECEWISE`. On a release: another all2all "
             "backend for decode (`deepep_low_latency`). The finding names a fix the tool resolved and "
             "found clean.",
         source="vllm/model_executor/layers/fused_moe/deepep_ht_prepare_finalize.py `_do_dispatch` "
                "(0.11-0.12: `buffer.dispatch(...)` without `num_worst_tokens`); 0.33.0 "
                "fused_moe/prepare_finalize/deepep_ht.py `_do_dispatch` ('the dispatch kernel will block the "
                "CPU'); vllm/platforms/cuda.py DeepEP rule; vLLM PR #29558.",
         triggers=Example("vllm serve deepseek-ai/DeepSeek-V3 --all2all-backend deepep_high_throughput -dp 8 --enable-expert-parallel", ("--target", "pr29558")),
         passes=Example("vllm serve deepseek-ai/DeepSeek-V3 --all2all-backend deepep_high_throughput -dp 8 --enable-expert-parallel -cc.cudagraph_mode=PIECEWISE", ("--target", "pr29558"))),
    Rule("VP302", "cudagraphs-off-deepep-ht", "warning",
         "vLLM turns CUDA graphs off for DeepEP high-throughput all2all with data parallel > 1 (information "
         "only on a prefill pool).",
         why="Every release 0.11.0-0.33.0 sets cudagraph_mode to NONE here and says so in one INFO line "
             "after the weights load: decode runs eagerly, often several times slower. On a prefill-only "
             "server (a prefill pool of a prefill/decode split) that is the intended setup, and the finding "
             "is information: the server's role comes from `--role`, a deployment file's `role:`, a label "
             "such as `llm-d.ai/role: prefill`, the resource's, role's or container's name, or "
             "`--kv-transfer-config` kv_role kv_producer.",
         fix="For a decode pool, `--all2all-backend deepep_low_latency`; keep high-throughput for prefill "
             "pools, where graphs matter less (say the role, and the finding becomes information). The PR "
             "#29558 design (`--target pr29558`) shows what splitting the MoE ops out would give.",
         source="vllm/platforms/cuda.py `check_and_update_config` (0.11-0.12), vllm/config/vllm.py (0.13.0+): "
                "'DeepEP: Disabling CUDA Graphs since DeepEP high-throughput kernels are optimized for prefill'.",
         triggers=Example("vllm serve deepseek-ai/DeepSeek-V3 --all2all-backend deepep_high_throughput -dp 8 --enable-expert-parallel"),
         passes=Example("vllm serve deepseek-ai/DeepSeek-V3 --all2all-backend deepep_low_latency -dp 8 "
                        "--enable-expert-parallel")),
    Rule("VP303", "capture-sizes-unused", "warning",
         "CUDA-graph capture sizes are written while nothing is captured.",
         why="cudagraph_mode resolves to NONE (a rule of vLLM, --enforce-eager or the compile mode), so the "
             "capture sizes the deployer tuned have no effect.",
         fix="Drop the sizes, or change what turns graphs off (the report's chain shows which rule did).",
         source="vllm/config/compilation.py: capture sizes are used only by the model runner's capture.",
         triggers=Example("vllm serve deepseek-ai/DeepSeek-V3 --all2all-backend deepep_high_throughput -dp 8 --enable-expert-parallel --cudagraph-capture-sizes 1 2 4 8"),
         passes=Example("vllm serve deepseek-ai/DeepSeek-V3 --all2all-backend deepep_low_latency -dp 8 "
                        "--enable-expert-parallel --cudagraph-capture-sizes 1 2 4 8")),
    Rule("VP304", "enforce-eager-moots-graph-settings", "warning",
         "`--enforce-eager` makes every CUDA-graph setting moot.",
         why="With --enforce-eager vLLM compiles nothing and captures no graph; the graph settings written "
             "next to it suggest the deployer expected graphs.",
         fix="Drop --enforce-eager to get the graphs, or drop the graph settings.",
         source="vllm/config/vllm.py `__post_init__` (enforce_eager sets cudagraph_mode NONE).",
         triggers=Example("vllm serve Qwen/Qwen3-0.6B --enforce-eager -cc.cudagraph_mode=FULL"),
         passes=Example("vllm serve Qwen/Qwen3-0.6B -cc.cudagraph_mode=FULL")),
    Rule("VP305", "servers-disagree", "error",
         "Servers of one deployment that must agree have different settings.",
         why="The data-parallel ranks of one engine (a LeaderWorkerSet's leader and workers, the nodes of a "
             "multi-node launch) build their MoE all2all, expert placement and CUDA graphs from their own "
             "flags: differing all2all backends, DP sizes, expert parallel or compilation settings hang or "
             "crash the collective. The prefill and decode pools of one deployment (read from labels such as "
             "`llm-d.ai/role`, resource, role and container names, kv_role, `--role`) must serve the same "
             "model over the same KV-transfer connector, each pool must carry the connector, a pool's kv_role "
             "must not contradict its role (kv_consumer on prefill, kv_producer on decode), and with "
             "NixlConnector the larger tensor-parallel size must be a multiple of the smaller. Their all2all "
             "backends, DP sizes and CUDA-graph modes may differ (that is the point of the split).",
         fix="Make the named settings identical on every server of the group; give P/D pools the same model "
             "and connector, and tensor-parallel sizes that divide each other.",
         source="vllm/distributed/parallel_state.py (one DP group per engine); vllm/config/kv_transfer.py; "
                "vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py (handshake: `tp_ratio` "
                "asserts that one TP size divides the other).",
         triggers=Example("vllm serve deepseek-ai/DeepSeek-V3 -dp 16 --data-parallel-size-local 8 "
                          "--data-parallel-address 10.0.0.1 --enable-expert-parallel --all2all-backend "
                          "deepep_low_latency\nvllm serve deepseek-ai/DeepSeek-V3 -dp 16 --data-parallel-size-local 8 "
                          "--data-parallel-address 10.0.0.1 --data-parallel-start-rank 8 --headless "
                          "--enable-expert-parallel --all2all-backend deepep_high_throughput"),
         passes=Example("vllm serve deepseek-ai/DeepSeek-V3 -dp 16 --data-parallel-size-local 8 "
                        "--data-parallel-address 10.0.0.1 --enable-expert-parallel --all2all-backend "
                        "deepep_low_latency\nvllm serve deepseek-ai/DeepSeek-V3 -dp 16 --data-parallel-size-local 8 "
                        "--data-parallel-address 10.0.0.1 --data-parallel-start-rank 8 --headless "
                        "--enable-expert-parallel --all2all-backend deepep_low_latency")),
    Rule("VP306", "all2all-env-ignored", "warning",
         "VLLM_ALL2ALL_BACKEND is set but this release does not use it.",
         why="From vLLM 0.16.0 the variable is gone (only --all2all-backend counts); on 0.11.1-0.13.0 the "
             "flag wins over it. A deployment that relies on the variable silently runs another backend.",
         fix="Use `--all2all-backend` and drop the variable.",
         source="vllm/engine/arg_utils.py (all2all backend from flag or env, per release); vllm/envs.py.",
         triggers=Example("VLLM_ALL2ALL_BACKEND=deepep_low_latency vllm serve deepseek-ai/DeepSeek-V3 -dp 8 "
                          "--enable-expert-parallel", ("--vllm-version", "0.16.0")),
         passes=Example("vllm serve deepseek-ai/DeepSeek-V3 -dp 8 --enable-expert-parallel --all2all-backend "
                        "deepep_low_latency", ("--vllm-version", "0.16.0"))),
    Rule("VP307", "all2all-env-overrides-flag", "warning",
         "VLLM_ALL2ALL_BACKEND overrides --all2all-backend on this release.",
         why="On vLLM 0.14.x-0.15.x the deprecated variable wins over the flag: the command line says one "
             "backend and another runs.",
         fix="Unset VLLM_ALL2ALL_BACKEND.",
         source="vllm/engine/arg_utils.py 0.14.0-0.15.1 (the env var overrides, with a deprecation warning).",
         triggers=Example("VLLM_ALL2ALL_BACKEND=deepep_high_throughput vllm serve deepseek-ai/DeepSeek-V3 -dp 8 "
                          "--enable-expert-parallel --all2all-backend deepep_low_latency",
                          ("--vllm-version", "0.14.1")),
         passes=Example("vllm serve deepseek-ai/DeepSeek-V3 -dp 8 --enable-expert-parallel --all2all-backend "
                        "deepep_low_latency", ("--vllm-version", "0.14.1"))),
    Rule("VP308", "all2all-unused", "warning",
         "An all2all backend is set where vLLM uses no all2all kernels.",
         why="vLLM routes MoE tokens through the all2all backend only with data parallel > 1 and expert "
             "parallel; otherwise the setting does nothing, which usually means a missing -dp or "
             "--enable-expert-parallel.",
         fix="Add the missing `-dp N` / `--enable-expert-parallel`, or drop the backend.",
         source="vllm/model_executor/layers/fused_moe/config.py `FusedMoEParallelConfig` "
                "(use_all2all_kernels = dp_size > 1 and use_ep).",
         triggers=Example("vllm serve deepseek-ai/DeepSeek-V3 --all2all-backend deepep_low_latency -dp 8"),
         passes=Example("vllm serve deepseek-ai/DeepSeek-V3 --all2all-backend deepep_low_latency -dp 8 "
                        "--enable-expert-parallel")),
    Rule("VP309", "fusion-drops-piecewise", "warning",
         "Attention+quant fusion without inductor graph partition drops piecewise CUDA graphs.",
         why="The fusion needs the attention op inside the compiled graph, so vLLM empties splitting_ops: "
             "no piecewise graph is captured and cudagraph_mode falls back to FULL decode graphs only.",
         fix="`-cc.use_inductor_graph_partition=true` (torch >= 2.9) keeps piecewise graphs with the fusion.",
         source="vllm/config/compilation.py `set_splitting_ops_for_attn_fusion`.",
         triggers=Example("vllm serve Qwen/Qwen3-0.6B -cc.pass_config.fuse_attn_quant=true "
                          "-cc.custom_ops+=+quant_fp8"),
         passes=Example("vllm serve Qwen/Qwen3-0.6B -cc.pass_config.fuse_attn_quant=true "
                        "-cc.custom_ops+=+quant_fp8 -cc.use_inductor_graph_partition=true")),
    Rule("VP310", "partial-attention-ops", "warning",
         "A written splitting_ops list leaves out an attention op vLLM splits at by default.",
         why="Piecewise CUDA graphs must not contain attention: an attention layer whose op is missing from "
             "the list is captured inside a piece (vLLM's dispatcher expects every attention call between "
             "pieces; `verify` check V3).",
         fix="Start from the release's default list (`vllm-preflight check` shows it) and add to it.",
         source="vllm/config/compilation.py `_attention_ops` / `set_splitting_ops_for_v1`.",
         triggers=Example("vllm serve Qwen/Qwen3-0.6B "
                          "-cc '{\"splitting_ops\": [\"vllm::unified_mla_attention_with_output\"]}'"),
         passes=Example("vllm serve Qwen/Qwen3-0.6B -cc '{\"splitting_ops\": "
                        "[\"vllm::unified_attention_with_output\", \"vllm::unified_mla_attention_with_output\"]}'")),
    Rule("VP312", "runtime-refuses", "error",
         "vLLM accepts the config but its model runner refuses the CUDA-graph mode at start-up.",
         why="The check runs when the KV cache is initialised, after the weights have loaded: minutes into "
             "the start of every replica, the engine raises (e.g. FULL with an attention backend that "
             "declares no CUDA-graph support).",
         fix="Use the mode the runtime stage names for the backend (PIECEWISE or FULL_AND_PIECEWISE), or "
             "another attention backend.",
         source="vllm/v1/worker/gpu_model_runner.py `_check_and_update_cudagraph_mode` (0.12-0.13); "
                "vllm/config/compilation.py `resolve_cudagraph_mode_and_sizes` (later releases).",
         triggers=Example("vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct -cc.cudagraph_mode=FULL",
                          ("--assume", "model.architecture=Llama4ForConditionalGeneration")),
         passes=Example("vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct -cc.cudagraph_mode=PIECEWISE",
                        ("--assume", "model.architecture=Llama4ForConditionalGeneration"))),
    Rule("VP313", "scheduler-refuses", "error",
         "vLLM accepts the config but its scheduler refuses the dynamic speculative-decoding schedule at "
         "start-up.",
         why="`num_speculative_tokens_per_batch_size` is checked for its type at config time only; its ranges "
             "(positive, start <= end, not overlapping, the first starting at batch size 1, k >= 0) are "
             "checked when the engine builds its scheduler, after the weights have loaded and the KV cache "
             "is allocated (0.24.0+).",
         fix="Write inclusive batch-size ranges that start at 1 and do not overlap, e.g. "
             "[[1, 16, 3], [17, 1024, 1]].",
         source="vllm/v1/spec_decode/dynamic/utils.py `build_dynamic_sd_schedule_lookup`, called by "
                "vllm/v1/core/sched/scheduler.py `Scheduler.__init__`.",
         triggers=Example("vllm serve Qwen/Qwen3-0.6B --speculative-config "
                          "'{\"method\": \"ngram\", \"num_speculative_tokens\": 3, \"prompt_lookup_max\": 3, "
                          "\"num_speculative_tokens_per_batch_size\": [[2, 64, 3], [65, 1024, 1]]}'",
                          ("--vllm-version", "0.33.0")),
         passes=Example("vllm serve Qwen/Qwen3-0.6B --speculative-config "
                        "'{\"method\": \"ngram\", \"num_speculative_tokens\": 3, \"prompt_lookup_max\": 3, "
                        "\"num_speculative_tokens_per_batch_size\": [[1, 64, 3], [65, 1024, 1]]}'",
                        ("--vllm-version", "0.33.0"))),
    Rule("VP311", "deprecated-spelling", "warning",
         "A deprecated spelling that a later release rejects or ignores.",
         why="`-O.x` (0.12.0; from 0.13.0 `-O` is only the optimization level), the pre-0.12 PassConfig "
             "names (enable_fusion, enable_attn_fusion, enable_noop, enable_sequence_parallelism, "
             "enable_async_tp, enable_fi_allreduce_fusion: deprecated on 0.12.0, rejected from 0.13.0) and "
             "dotted `vllm.x` op names (matched by 0.11.0 only; dropped silently from 0.11.1).",
         fix="Rename each PassConfig key to the name its release reads: enable_fusion -> fuse_norm_quant + "
             "fuse_act_quant, enable_attn_fusion -> fuse_attn_quant, enable_noop -> eliminate_noops, "
             "enable_fi_allreduce_fusion -> fuse_allreduce_rms; enable_sequence_parallelism -> enable_sp and "
             "enable_async_tp -> fuse_gemm_comms on 0.12.0-0.31.0 only (0.32.0+ PassConfig has no "
             "sequence-parallelism or async-TP pass: drop those keys there). Each finding carries the rename "
             "resolved on its own release and found clean. `-cc.x` for `-O.x`; `vllm::name` for `vllm.name`.",
         source="vllm/utils/argparse_utils.py (-O handling), vllm/config/compilation.py PassConfig (0.12.0).",
         triggers=Example("vllm serve Qwen/Qwen3-0.6B -cc.pass_config.enable_noop=true",
                          ("--vllm-version", "0.12.0")),
         passes=Example("vllm serve Qwen/Qwen3-0.6B -cc.pass_config.eliminate_noops=true",
                        ("--vllm-version", "0.12.0"))),
    # --- CI machinery: ignores (src/vllm_preflight/ignores.py) ---
    Rule("VP390", "unused-ignore", "warning",
         "A `# vllm-preflight: ignore[...]` comment silences nothing.",
         why="The finding it was written for is gone (fixed, or moved to another line), so the comment "
             "only hides the next finding of that rule that lands there.",
         fix="Delete the comment, or the rule code it no longer needs.",
         source="vllm-preflight's own rule (ruff's RUF100 is the model).",
         triggers=Example("# vllm-preflight: ignore[VP108]\nvllm serve Qwen/Qwen3-0.6B"),
         passes=Example("# vllm-preflight: ignore[VP108]\n"
                        "vllm serve Qwen/Qwen3-0.6B --max-model-len 4096 --max-model-len 8192")),
    Rule("VP391", "unknown-rule-in-ignore", "warning",
         "An ignore comment names a rule code that does not exist, or is malformed (it silences nothing).",
         why="A typo in the code (VP31 for VP301) silences nothing, while the author believes it does. A "
             "malformed ignore (`ignore[VP301` without its `]`, `ignore VP301` without brackets) would read as "
             "a bare `ignore` and silence every rule, errors included, so it silences nothing instead.",
         fix="Use a code that `vllm-preflight rules` lists, in brackets: `# vllm-preflight: ignore[VP301]`.",
         source="vllm-preflight's own rule.",
         triggers=Example("# vllm-preflight: ignore[VP999]\nvllm serve Qwen/Qwen3-0.6B"),
         passes=Example("# vllm-preflight: ignore[VP108]\n"
                        "vllm serve Qwen/Qwen3-0.6B --max-model-len 4096 --max-model-len 8192")),
)}


def _with_docs() -> None:
    """Fold the loader and schema rules' documentation (findings_docs.py) into the registry."""
    from dataclasses import replace

    from vllm_preflight.findings_docs import DOCS

    for code, doc in DOCS.items():
        if code in RULES:  # fields the entry itself leaves empty
            RULES[code] = replace(RULES[code], **{k: v for k, v in doc.items() if not getattr(RULES[code], k)})


_with_docs()


@dataclass(frozen=True)
class Finding:
    """One finding: a rule code, its message and where it applies."""

    rule: str
    message: str
    location: Location | None = None
    severity: str = ""  # defaults to the rule's

    def __post_init__(self):
        if not self.severity:
            object.__setattr__(self, "severity", RULES[self.rule].severity)

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "message": self.message,
                "location": self.location.to_json() if self.location else None}

    def render(self) -> str:
        where = ""
        if self.location:
            where = self.location.file
            if self.location.line is not None:
                where += f":{self.location.line}"
                if self.location.column is not None:
                    where += f":{self.location.column}"
            where += ": "
        return f"{where}{self.severity} {self.rule} {self.message}"


SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


def at_least(severity: str, floor: str) -> bool:
    """Whether a finding of `severity` is at or above `floor` (error > warning > info)."""
    return SEVERITY_RANK.get(severity, 2) >= SEVERITY_RANK.get(floor, 2)


REPEATS_SHOWN = 3  # the same finding at more places than this is one finding with a count


def unique(findings) -> list[Finding]:
    """Keep the first of equal findings, in order; one rule with one message at many places
    (a flag repeated 450,000 times) is one finding saying how often, not one per repeat."""
    seen: set = set()
    out = []
    for f in findings:
        if f not in seen:
            seen.add(f)
            out.append(f)
    counts: dict[tuple[str, str], int] = {}
    for f in out:
        counts[(f.rule, f.message)] = counts.get((f.rule, f.message), 0) + 1
    if all(n <= REPEATS_SHOWN for n in counts.values()):
        return out
    kept, done = [], set()
    for f in out:
        key = (f.rule, f.message)
        if counts[key] <= REPEATS_SHOWN:
            kept.append(f)
        elif key not in done:
            done.add(key)
            kept.append(Finding(f.rule, f"{f.message} (at {counts[key]} places; the first is shown)",
                                f.location, f.severity))
    return kept
