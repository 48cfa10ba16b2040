"""The map's rows for issue 24 (resolver fidelity, round 3): inputs vLLM reads that the port read
too loosely -- the environment's accepted values, every config field's declared type, every GPU
class, and the model's config as the tool has it."""
from __future__ import annotations

from vllm_preflight import gpus
from vllm_preflight.releases import runtime_rules
from vllm_preflight.resolve.compilation import compilation_config, field_types
from vllm_preflight.resolve.config import attention
from vllm_preflight.resolve.engine import env_choices
from vllm_preflight.resolve.model import model_config
from vllm_preflight.resolve.parallel import parallel_config
from vllm_preflight.resolve.pathmap.table import Row, Section
from vllm_preflight.resolve.runtime import backends
from vllm_preflight.resolve.vllm_config import model_hooks

SECTIONS = (
Section(
    'Values vLLM reads: the environment, field types, GPU classes (issue 24)',
    "Goldens: `tests/golden/data/fidelity/FAMILY/VERSION.jsonl` (`tools/record_fidelity.py`, corpus "
    "`tools/corpus_fidelity.py`); environment cases run one fresh vLLM process each (vLLM reads some "
    "variables while it builds its parser).",
    (
    Row('`envs.py` choice-checking readers (`env_with_choices`, `env_list_with_choices`, `env_set_with_choices`): '
        'the accepted values of every such variable, per release; refused where the release reads it on the config '
        'path: `VLLM_ATTENTION_BACKEND` in `ModelConfig.__post_init__` (0.11.0-0.12.x) and `AttentionConfig.__post_init__` '
        '(0.13.0-0.14.x, built with the parser), `VLLM_COMPILE_CACHE_SAVE_FORMAT` in CompilationConfig\'s default '
        '(0.12.0+, built with the parser), `VLLM_ALL2ALL_BACKEND` where ParallelConfig reads it',
        '`envs.py:318`, `model.py:472`, `compilation.py:425`', '`envs.py:430`, `compilation.py:452`',
        'ported per release (`releases/data/env_choices.json` from `tools/extract_env_choices.py`, every release\'s '
        'envs.py but 0.21.0, which takes 0.20.2\'s); goldens `fidelity/env_choices/` on 0.11.0, 0.12.0, 0.13.0, 0.14.1, '
        '0.16.0, 0.17.0, 0.19.1, 0.20.2, 0.22.1, 0.24.0, 0.27.0, 0.29.0, 0.30.0, 0.33.0 (100%); the other choice variables are read by model runners, '
        'kernels and workers after config time (not refused here); 0.11.0\'s V0 fallback for a backend V1 lacks is not ported',
        port=(env_choices, model_config.attention_backend_env, attention.attention_config_env,
              compilation_config.compile_cache_save_format_env, parallel_config.all2all_env_value)),
    Row('`TypeAdapter(CompilationConfig).validate_json`: every CompilationConfig / PassConfig field\'s declared type '
        '(bool, int, float, str, Path, dict, lists, Literal, unions) in pydantic\'s lax JSON mode, every error of '
        'the value reported; `_skip_none_validation` fields take null',
        '`compilation.py:93-760`', '`compilation.py:105-765`',
        'ported per release (`releases/data/config_field_types.json` from `tools/extract_config_types.py`, every '
        'release but 0.21.0); goldens `fidelity/field_types/` (122 cases each) on 0.11.0, 0.12.0, 0.13.0, 0.14.1, 0.16.0, '
        '0.17.0, 0.19.1, 0.20.2, 0.22.1, 0.24.0, 0.27.0, 0.29.0, 0.30.0, 0.33.0 (100%)',
        port=(field_types, compilation_config.build)),
    Row('the CUDA platform\'s attention-backend choice per compute capability: 0.11.0\'s hand-written choice '
        '(FlexAttention below SM80, FlashInfer only on exactly SM100, Triton for sinks / FP8 KV off SM90), the priority '
        'lists from 0.11.1; GPU-dependent config defaults (memory: max_num_seqs and the capture sizes; SM90/SM100: '
        'all-reduce + RMSNorm fusion; SM100 capture ceiling) on every GPU class `--gpu` names',
        '`platforms/cuda.py:46-84`', '`platforms/cuda.py`',
        'ported; config-time goldens on emulated T4, V100, A10G, L4, L40, H20, GH200 on 0.11.0, 0.12.0, 0.20.2, 0.30.0, '
        '0.33.0 (with A100 and B300 on 0.11.0 and 0.33.0, H200, B200, RTX5090 on 0.33.0; `fidelity/gpu_classes/`, 100%); '
        'the runtime choice is checked against the release sources (tests/fidelity/test_gpu_classes.py); AMD Instinct '
        'parts are refused as not CUDA (exit 2)',
        port=(gpus, backends.select, runtime_rules)),
    Row('the deployment\'s environment: `--env K=V` and a `K=V` word of the input are one environment (findings, '
        'fixes and the plan read it alike)',
        'n/a', 'n/a', 'ported (tests/fidelity/test_env_paths.py)', port=('`load/loaded.py: with_environment`', '`api.py: check_deployment`')),
    Row('a model hook that reads config.json keys, with no config.json read (`--assume model.architecture=...`)',
        'n/a', 'n/a', 'ported: stated as the `model.config` assumption, never a refusal (tests/fidelity/test_hooks_not_read.py)',
        port=(model_hooks.try_verify_and_update_config,)),
    Row('the runtime stage of encoder-decoder models: the decoder\'s cross-attention group (`CrossAttention_<Backend>` '
        'subclasses the chosen backend\'s builder: the same CUDA-graph support)',
        '`layers/attention/cross_attention.py` (0.15.1)', 'same',
        'ported (Whisper: FULL_DECODE_ONLY kept, as a real 0.15.1 node captured; tests/fidelity/test_encoder_decoder_runtime.py)',
        port=('`releases/layers.py`', '`resolve/runtime/__init__.py: _groups`')),
    Row('transformers\' config-class defaults for the expert counts a config.json leaves out (NemotronH '
        '`n_routed_experts` 8, Mixtral `num_local_experts` 8, Qwen3-MoE 128, ...), per release from the transformers '
        'installed with it',
        '', '', 'ported for the expert counts (`releases/data/config_class_defaults.json` from '
        '`tools/extract_config_defaults.py`, recorded with the environments of 0.11.0, 0.13.0, 0.30.0, 0.33.0; goldens '
        '`fidelity/transformers_defaults/` on 0.11.0 and 0.33.0, 100%); other keys the resolver reads '
        'keep config.json\'s values', port=(model_config.config_class_defaults,)),
    ),
),
)
