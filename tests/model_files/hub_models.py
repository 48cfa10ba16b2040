"""The fixture models of tests/fixtures/hub/ and the hub ids the loopback Hub serves them under
(each folder's SOURCE.md says where its files come from, and which are made here)."""
from __future__ import annotations

HUB_IDS = {
    "deepseek-r1": "deepseek-ai/DeepSeek-R1",
    "deepseek-v2.5": "deepseek-ai/DeepSeek-V2.5",
    "qwen3-30b-a3b-gptq-int4": "Qwen/Qwen3-30B-A3B-GPTQ-Int4",
    "qwen3-8b": "Qwen/Qwen3-8B",
    "all-minilm-l6-v2": "sentence-transformers/all-MiniLM-L6-v2",
    "llama-3.3-70b-instruct": "meta-llama/Llama-3.3-70B-Instruct",  # gated: 401 through the Hub
    "ct-nvfp4-moe": "preflight-fixtures/Qwen3-MoE-CT-NVFP4",
    "modelopt-fp4-moe": "preflight-fixtures/Qwen3-MoE-ModelOpt-FP4",
    "jamba-hybrid-moe": "preflight-fixtures/Jamba-hybrid-MoE",
    "whisper-encdec": "preflight-fixtures/Whisper-encdec",
}
GATED = {"llama-3.3-70b-instruct"}
MOE = {"deepseek-r1", "deepseek-v2.5", "qwen3-30b-a3b-gptq-int4", "ct-nvfp4-moe", "modelopt-fp4-moe",
       "jamba-hybrid-moe"}
# table entries (releases/data/models.json) whose published config.json is recorded here
TABLE_RECORDED = {"deepseek-ai/DeepSeek-R1": "deepseek-r1", "deepseek-ai/DeepSeek-V2.5": "deepseek-v2.5",
                  "Qwen/Qwen3-8B": "qwen3-8b", "meta-llama/Llama-3.3-70B-Instruct": "llama-3.3-70b-instruct"}
