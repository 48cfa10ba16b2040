"""The `quant_schemes_2` model family (tools/corpus_model_families.py): config-time checks of a
checkpoint's ModelOpt quantization_config (src/vllm_preflight/resolve/model/quantization.py and resolve/quantization/
`_modelopt_class`): the upper-cased quant_algo against the release's QUANT_ALGOS, the FP8 /
NVFP4 / MXFP8 classes' own algo checks, MXFP8's serialized checkpoint and required fields
(MiniMax's layout too), MIXED_PRECISION's quantized_layers and block sizes; and
ModelConfig.is_nvfp4_quantized on a compressed-tensors format that is not a string
(resolve/vllm_config/steps/level_defaults.py `_nvfp4_quantized`, reached through act fusion); INC's
(0.29.0+) group size normalisation, int / block-wise FP8 / MXFP scheme checks and raw
activation fields (`_inc_checks`); the constructors of gptq_marlin_24 (until 0.15.x) and
hqq / rtn / deepspeedfp (until 0.14.x) (`_removed_classes`).
Goldens: tests/golden/data/model_families/quant_schemes_2/VERSION.jsonl."""
from __future__ import annotations

Pool = list[tuple[str, list[str], dict]]

_MODELS = ["qs2-ct-nvfp4-format-null", "qs2-ct-nvfp4-format-int", "qs2-ct-nvfp4-format-list",
           "qs2-ct-nvfp4-no-format", "qs2-modelopt-w4a8-awq", "qs2-modelopt-fp8-block-scales",
           "qs2-modelopt-fp8-pb-wo-lower", "qs2-modelopt-fp8-pcpt", "qs2-modelopt-int8-sq", "qs2-modelopt-mxfp4",
           "qs2-modelopt-w4a16-nvfp4", "qs2-modelopt-fp4-method-fp8-pb-wo", "qs2-modelopt-fp4-method-pcpt",
           "qs2-modelopt-fp4-method-fp8", "qs2-modelopt-mxfp8", "qs2-modelopt-mxfp8-method-fp8-pb-wo",
           "qs2-modelopt-mxfp8-method-pcpt", "qs2-modelopt-mxfp8-nested-no-fields",
           "qs2-modelopt-mxfp8-nested-no-exclude", "qs2-modelopt-mxfp8-minimax",
           "qs2-modelopt-mxfp8-method-mixed-algo-bad", "qs2-modelopt-mixed-empty-layers",
           "qs2-modelopt-mixed-two-block-sizes", "qs2-modelopt-mixed-fp8-nvfp4", "qs2-modelopt-nested-w4a8",
           "qs2-modelopt-fp8-method-nvfp4-nested",
           "qs2-inc-fp8-block", "qs2-inc-fp8-block-alias-fp8", "qs2-inc-fp8-block-4bit", "qs2-inc-fp8-block-scalar-group",
           "qs2-inc-fp8-block-group-three", "qs2-inc-fp8-block-group-text", "qs2-inc-fp8-block-group-float-pair",
           "qs2-inc-fp8-block-asym", "qs2-inc-fp8-block-gptq-format", "qs2-inc-fp8-block-backend-marlin",
           "qs2-inc-fp8-block-act-static", "qs2-inc-fp8-block-act-group-64", "qs2-inc-fp8-block-fmt-e5m2",
           "qs2-inc-fp8-block-static-scheme", "qs2-inc-fp8-block-no-act-fields", "qs2-inc-mxfp8", "qs2-inc-mxfp8-group-64",
           "qs2-inc-mxfp8-act-bits-4", "qs2-inc-mxfp8-act-dtype-rceil", "qs2-inc-mxfp8-asym", "qs2-inc-mxfp8-gptq-format",
           "qs2-inc-mxfp4", "qs2-inc-mxfp-2bit", "qs2-inc-mxfp8-e4m3-dtype", "qs2-inc-int-block-group",
           "qs2-inc-int-group-null", "qs2-inc-int-no-sym",
           "qs2-gptq-marlin24", "qs2-gptq-marlin24-3bit", "qs2-gptq-marlin24-group64", "qs2-gptq-marlin24-8bit-channel",
           "qs2-gptq-marlin24-no-group", "qs2-hqq-4bit-g64", "qs2-hqq-g128", "qs2-hqq-8bit", "qs2-hqq-no-skip-modules",
           "qs2-hqq-no-quant-config", "qs2-hqq-no-nbits", "qs2-rtn-4bit", "qs2-rtn-3bit", "qs2-rtn-no-group",
           "qs2-deepspeedfp-8bit", "qs2-deepspeedfp-4bit", "qs2-deepspeedfp-no-bits"]


def quant_schemes_2(v: tuple) -> Pool:
    Q = "--quantization"
    # 0.27.0-0.28.x refuse the "fp" data type listing {'int', 'mx_fp'} in hash order
    fp_refused = (0, 27, 0) <= v < (0, 29, 0)
    pool: Pool = [(m, [], {}) for m in _MODELS if not (fp_refused and m.startswith("qs2-inc-fp8-block"))]
    # an int checkpoint's packing format outside the release's set prints that set in hash order:
    # llm_compressor is in it from 0.27.0, fp8 from 0.29.0
    if v >= (0, 27, 0):
        pool += [("qs2-inc-int-llmc-format", [], {}), ("qs2-inc-mxfp8-quanted-input", [], {})]
    if v >= (0, 29, 0):
        pool += [("qs2-inc-int-fp8-format", [], {})]
    pool += [("qs2-ct-nvfp4-format-null", ["-O0"], {}), ("qs2-ct-nvfp4-format-null", ["-O3"], {}),
             ("qs2-ct-nvfp4-format-int", ["--enforce-eager"], {}),
             ("qs2-ct-nvfp4-format-null", ["-cc", '{"custom_ops": ["+silu_and_mul"]}'], {}),
             ("qs2-ct-nvfp4-format-list", [Q, "compressed-tensors"], {}),
             ("qs2-modelopt-w4a8-awq", [Q, "modelopt"], {}), ("qs2-modelopt-mxfp4", [Q, "modelopt_fp4"], {}),
             ("qs2-modelopt-fp8-pcpt", ["--dtype", "float16"], {}), ("qs2-modelopt-fp8-pb-wo-lower", ["-O0"], {}),
             ("qs2-modelopt-fp4-method-fp8-pb-wo", [Q, "modelopt_fp4"], {}),
             ("qs2-modelopt-mxfp8-method-fp8-pb-wo", [Q, "modelopt_mxfp8"], {}),
             ("qs2-modelopt-w4a16-nvfp4", [Q, "modelopt_fp4"], {}),
             ("qs2-modelopt-mixed-fp8-nvfp4", ["-O0"], {})]
    return pool
