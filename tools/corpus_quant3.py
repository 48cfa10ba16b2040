"""The `quant_schemes_3` model family (tools/corpus_model_families.py): ModelOpt MIXED_PRECISION
checkpoints whose layers name a b12x block codec (IQ2_XS, IQ2_XXS, Q8_0), whose block contract
(group size, payload bytes, ggml packing) ModelOptMixedPrecisionConfig checks from 0.32.0
(src/vllm_preflight/resolve/model/quantization.py and resolve/quantization/ `_block_contracts`): right and wrong contracts, case
of the codec name, float sizes, the first of two bad layers, the contract before the block-FP8
group-size rule, the nested `quantization` layout. Releases before 0.32.0 do not check it.
Goldens: tests/golden/data/model_families/quant_schemes_3/VERSION.jsonl."""
from __future__ import annotations

Pool = list[tuple[str, list[str], dict]]

_MODELS = ["qs3-mixed-q8-0-contract-ok", "qs3-mixed-iq2-xs-contract-ok-lower", "qs3-mixed-iq2-xs-float-group",
           "qs3-mixed-iq2-xs-bad-group", "qs3-mixed-iq2-xxs-no-packing", "qs3-mixed-q8-0-bad-payload",
           "qs3-mixed-q8-0-packing-upper", "qs3-mixed-two-bad-contracts", "qs3-mixed-contract-odd-values",
           "qs3-mixed-contract-ok-two-block-sizes", "qs3-mixed-contract-bad-two-block-sizes",
           "qs3-mixed-codec-name-partial", "qs3-mixed-codec-true-bool", "qs3-mixed-nested-iq2-xs-bad-packing"]


def quant_schemes_3(v: tuple) -> Pool:
    pool: Pool = [(m, [], {}) for m in _MODELS]
    pool += [("qs3-mixed-q8-0-contract-ok", ["--quantization", "modelopt_mixed"], {}),
             ("qs3-mixed-iq2-xs-bad-group", ["--quantization", "modelopt_mixed"], {}),
             ("qs3-mixed-iq2-xs-contract-ok-lower", ["-O0"], {}),
             ("qs3-mixed-iq2-xs-contract-ok-lower", ["--enforce-eager"], {}),
             ("qs3-mixed-q8-0-contract-ok", ["-O3", "--dtype", "float16"], {}),
             ("qs3-mixed-q8-0-bad-payload", ["-tp", "2"], {}),
             ("qs3-mixed-codec-true-bool", ["-O0"], {})]
    return pool
