"""The `mtp_conversions_2` model family (tools/corpus_model_families.py): the last MTP
conversions of SpeculativeConfig.hf_config_override, each target served with method "mtp":

* MiMo-V2 (0.21.0+): MiMoV2ForCausalLM / MiMoV2FlashForCausalLM by their first architecture,
  one MTP layer whatever the checkpoint says.
* Inkling (0.26.0+): the text and multimodal model types; the layer count comes from the
  config's mtp_config, and a checkpoint without MTP layers is refused.
* Qwen4-Exp (0.29.0+): the text and multimodal model types; the count from the text config's
  mtp_num_hidden_layers, else num_nextn_predict_layers (None when neither is set).
Dots3-Note (0.28.0+) and InternS2 (0.22.0+, mobius 0.28.0+) are unit-tested only: the oracle's
vLLM cannot inspect Dots3NoteForCausalLM on this machine, and its Transformers has no InternS2 config.
Before a conversion's first release the release's Transformers does not load these model types
(those targets are left out there); a MiMo-V2 class under the qwen2 model type (0.21.0+), GLM-4 MoE,
DeepSeek and a dense model are served in every release.
Goldens: tests/golden/data/model_families/mtp_conversions_2/VERSION.jsonl."""
from __future__ import annotations

import json

Pool = list[tuple[str, list[str], dict]]

TARGETS = ((0, 21), ("mtp2-mimo-v2-flash", "mtp2-mimo-v2-pro")), \
    ((0, 26), ("mtp2-inkling-text-mtp2", "mtp2-inkling-text-mtp0", "mtp2-inkling-text-nomtp", "mtp2-inkling-mm-mtp1")), \
    ((0, 29), ("mtp2-qwen4exp-text-mtp1", "mtp2-qwen4exp-text-nextn2", "mtp2-qwen4exp-text-none",
               "mtp2-qwen4exp-mm-mtp2"))


def _mtp(k: int | None, **extra) -> list[str]:
    spec: dict = {"method": "mtp"}
    if k is not None:
        spec["num_speculative_tokens"] = k
    return ["--speculative-config", json.dumps(spec | extra)]


def mtp_conversions_2(v: tuple) -> Pool:
    pool: Pool = []
    for first, models in TARGETS:
        for model in models if v >= first else ():
            for k in (1, 2, 3, None):
                pool.append((model, _mtp(k), {}))
            pool.append((model, _mtp(2) + ["-tp", "2"], {}))
            pool.append((model, _mtp(1, model="{models}/" + model), {}))
    # MiMo-V2 goes by its architecture (a model type every release's Transformers loads); converted
    # MTP targets and a dense model for contrast
    for model in ((("mtp2-mimo-v2-flash-qwen2-type",) if v >= (0, 21) else ()) + ("pp-glm4moe-mtp", "pp-deepseek-mtp", "llama-dense")):
        for k in (1, 2, None):
            pool.append((model, _mtp(k), {}))
    if v >= (0, 21):
        pool.append(("mtp2-mimo-v2-flash", ["--speculative-config", json.dumps({"num_speculative_tokens": 2,
                                                                                "model": "{models}/mtp2-mimo-v2-flash"})], {}))
        pool.append(("mtp2-mimo-v2-pro", _mtp(1) + ["-pp", "2"], {}))
    return pool
