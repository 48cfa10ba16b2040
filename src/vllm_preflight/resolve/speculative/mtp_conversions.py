"""SpeculativeConfig.hf_config_override's later MTP conversions: a target checkpoint whose
config names one of these model types / architectures becomes an MTP draft of the given type
(so `--speculative-config '{"method": "mtp"}'` resolves to it), with the number of MTP layers
as its n_predict. The conversions of 0.11.x-0.15.0 (DeepSeek, Pangu, ERNIE, Qwen3-Next,
LongCat, MiMo, GLM-4 MoE, EXAONE MoE) and DeepSeek V4 stay in speculative_checks.

Each rule (keyed by the first release that has it, from vLLM's config/speculative.py
`hf_config_override`; 0.33.0 speculative.py:711-1010):
  new MTP model type, the class the override names, the first release, what triggers it, the
  config key holding the layer count and its default, and whether the count is read from the
  nested text_config.
MiMo-V2 (0.21.0), InternS2 (0.22.0; mobius 0.28.0), Inkling (0.26.0), Dots3-Note (0.28.0) and
Qwen4-Exp (0.29.0) are special cases (`_last`): fixed or nested counts, and refusals of their own.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vllm_preflight.resolve.base.state import Refusal, State


@dataclass(frozen=True)
class Rule:
    mtp_type: str
    arch: str
    since: tuple
    types: tuple[tuple[tuple, tuple[str, ...]], ...] = ()   # (first release, model types) that trigger
    archs: tuple[tuple[tuple, tuple[str, ...]], ...] = ()   # (first release, architectures[0]) that trigger
    n_key: str = "num_nextn_predict_layers"
    n_default: Any = None
    text: bool = False          # the count (and the draft's fields) come from text_config
    any_arch: bool = False      # archs match anywhere in `architectures`, not only the first


RULES: tuple[Rule, ...] = (
    # 0.16.0: GLM-OCR by its architecture
    Rule("glm_ocr_mtp", "GlmOcrMTPModel", (0, 16, 0), archs=(((0, 16, 0), ("GlmOcrForConditionalGeneration",)),)),
    # 0.15.1: Step-3.5 by its model type; 0.23.0 also step3p7 and the architectures, read from text_config
    Rule("step3p5_mtp", "Step3p5MTP", (0, 15, 1), types=(((0, 15, 1), ("step3p5",)), ((0, 23, 0), ("step3p7",))),
         archs=(((0, 23, 0), ("Step3p5ForCausalLM", "Step3p7ForConditionalGeneration")),), n_default=1, text=True),
    # 0.17.0: Qwen3.5 (the text-only model types from 0.28.0): mtp_num_hidden_layers (0.30.0+: else
    # text_config's)
    Rule("qwen3_5_mtp", "Qwen3_5MTP", (0, 17, 0), types=(((0, 17, 0), ("qwen3_5", "qwen3_5_moe")),
                                                        ((0, 28, 0), ("qwen3_5_text", "qwen3_5_moe_text"))),
         n_key="mtp_num_hidden_layers"),
    # 0.20.0
    Rule("hy_v3_mtp", "HYV3MTPModel", (0, 20, 0), types=(((0, 20, 0), ("hy_v3",)),)),
    Rule("exaone4_5_mtp", "Exaone4_5_MTP", (0, 20, 0), types=(((0, 20, 0), ("exaone4_5", "exaone4_5_mtp")),)),
    # 0.21.0: Gemma 4 assistants (the unified one from 0.23.0), always one layer
    Rule("gemma4_mtp", "Gemma4MTPModel", (0, 21, 0), types=(((0, 21, 0), ("gemma4_assistant",)),
                                                          ((0, 23, 0), ("gemma4_unified_assistant",))),
         n_key="", n_default=1),
    # 0.24.0: MiniMax-M3 (VL model type or the sparse class): text_config's num_mtp_modules, default 1
    Rule("minimax_m3_mtp", "MiniMaxM3MTP", (0, 24, 0), types=(((0, 24, 0), ("minimax_m3_vl", "minimax_m3_mtp")),),
         archs=(((0, 24, 0), ("MiniMaxM3SparseForConditionalGeneration", "MiniMaxM3MTP")),),
         n_key="num_mtp_modules", n_default=1, text=True),
    # 0.25.0: Bailing hybrid (model type, or the class anywhere in architectures)
    Rule("bailing_hybrid_mtp", "BailingMoeV25MTPModel", (0, 25, 0), types=(((0, 25, 0), ("bailing_hybrid",)),),
         archs=(((0, 25, 0), ("BailingMoeV2_5ForCausalLM",)),), any_arch=True),
    # 0.27.0: Kimi-K3 keeps the count under text_config
    Rule("kimi_k3_mtp", "KimiK3MTPModel", (0, 27, 0), types=(((0, 27, 0), ("kimi_k3",)),), text=True),
    # 0.28.0: Bailing V3 by its first architecture (the VL one serves its text_config)
    Rule("bailing_hybrid_v3_mtp", "BailingMoeV3MTPModel", (0, 28, 0),
         archs=(((0, 28, 0), ("BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration")),)),
    # 0.29.0
    Rule("hy_v4_mtp", "HYV4MTPModel", (0, 29, 0), types=(((0, 29, 0), ("hy_v4",)),)),
    # 0.30.0: GLM-5 Next reads text_config's count
    Rule("glm5_next_mtp", "Glm5NextMTPModel", (0, 30, 0), types=(((0, 30, 0), ("glm5_next",)),), text=True),
    # 0.33.0: Step-5 (model types or either class anywhere in architectures), from text_config;
    # Step5Config's own default is 0 layers (0.33.0 transformers_utils/configs/step5.py:92)
    Rule("step5_mtp", "Step5MTP", (0, 33, 0), types=(((0, 33, 0), ("step5", "step5_vl")),),
         archs=(((0, 33, 0), ("Step5ForCausalLM", "Step5ForConditionalGeneration")),), n_default=0, text=True,
         any_arch=True),
)
ARCH = {r.mtp_type: r.arch for r in RULES} | {"nemotron_h_mtp": "NemotronHMTPModel", "mimo_v2_mtp": "MiMoV2MTPModel",
                                              "inkling_mtp": "InklingMTPModel", "dots3_note_mtp": "Dots3NoteMTPModel",
                                              "qwen4_exp_mtp": "Qwen4ExpMTP"}

# Nemotron-H (0.17.0 speculative.py:273-284): model type nemotron_h (nemotron_h_puzzle from 0.19.0)
# with num_nextn_predict_layers > 0, or nemotron_h_mtp; the Omni reasoning VLMs serve their
# text_config (Super from 0.20.0, the other from 0.29.0); the count defaults to 1
_NEMOTRON_TYPES = (((0, 17, 0), "nemotron_h"), ((0, 19, 0), "nemotron_h_puzzle"))
_NEMOTRON_OMNI = (((0, 20, 0), "NemotronH_Super_Omni_Reasoning_V3"), ((0, 29, 0), "NemotronH_Omni_Reasoning_V3"))


def _listed(state: State, runs: tuple, value: str) -> bool:
    return any(state.release.key >= first and value in names for first, names in runs)


def _text(cfg: dict) -> dict:
    nested = cfg.get("text_config")
    return nested if isinstance(nested, dict) else cfg


def _nemotron(state: State, cfg: dict) -> tuple[str, Any, str] | None:
    if state.release.key < (0, 17, 0):
        return None
    archs = cfg.get("architectures") or ["?"]
    if any(state.release.key >= first and archs[0] == name for first, name in _NEMOTRON_OMNI):
        cfg = _text(cfg)
    mt = cfg.get("model_type")
    layers = cfg.get("num_nextn_predict_layers")
    nemotron = any(state.release.key >= first and mt == name for first, name in _NEMOTRON_TYPES)
    if nemotron and isinstance(layers, (int, float)) and not isinstance(layers, bool) and layers > 0:
        mt = "nemotron_h_mtp"
    if mt != "nemotron_h_mtp":
        return None
    return "nemotron_h_mtp", cfg.get("num_nextn_predict_layers", 1), "NemotronHMTPModel"


# MiMo-V2 (0.21.0+, by the first architecture): vLLM serves only the first MTP layer
# (mimo_v2_mtp.py's _MIMO_V2_*_NUM_MTP_LAYERS = 1 in every release 0.21.0-0.33.0)
_MIMO_V2 = {"MiMoV2ForCausalLM": "MiMoV2MTPModel", "MiMoV2OmniForCausalLM": "MiMoV2OmniMTPModel",
            "MiMoV2FlashForCausalLM": "MiMoV2MTPModel"}


def _refuse(message: str, kind: str = "Value error") -> Refusal:
    from vllm_preflight.resolve.base.pydantic import (
        validator_error as _pyd,  # hf_config_override runs in SpeculativeConfig
    )

    return _pyd("SpeculativeConfig", message, kind)


def _num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _last(state: State, cfg: dict) -> tuple[str, Any, str] | None:
    """MiMo-V2 (0.33.0 speculative.py:806-846), Dots3-Note (:734-749), Qwen4-Exp (:915-935), InternS2
    (:1008-1033) and Inkling (:1087-1103), with their refusals."""
    key = state.release.key
    mt = cfg.get("model_type")
    arch0 = str((cfg.get("architectures") or ["?"])[0])
    if key >= (0, 28, 0) and mt == "dots3_note":  # 0.28.0 (0.33.0 speculative.py:734-749)
        n = cfg.get("num_nextn_predict_layers", 1)  # Dots3NoteConfig's default
        kinds = cfg.get("mtp_layer_types")
        if kinds is None and isinstance(n, int):
            kinds = ["sliding_attention"] * n
        if isinstance(kinds, list) and len(kinds) != n:
            raise _refuse(f"mtp_layer_types must have one entry per MTP layer: got {len(kinds)} for {n} layers")
        if "layer_types" not in cfg:  # the target's layer_types are extended by the MTP ones
            raise Refusal("AttributeError", "'Dots3NoteConfig' object has no attribute 'layer_types'")
        return "dots3_note_mtp", n, "Dots3NoteMTPModel"
    if key >= (0, 21, 0) and arch0 in _MIMO_V2:
        return "mimo_v2_mtp", 1, _MIMO_V2[arch0]
    if key >= (0, 29, 0) and mt in ("qwen4_exp", "qwen4_exp_text"):  # 0.29.0 (0.33.0 :915-935)
        qtext = _text(cfg)
        # hc_count (Qwen4ExpTextConfig's default 4) only sizes the draft's hidden-state streams
        return "qwen4_exp_mtp", qtext.get("mtp_num_hidden_layers", qtext.get("num_nextn_predict_layers")), "Qwen4ExpMTP"
    mobius = key >= (0, 28, 0) and mt == "interns2_mobius"
    if mobius or (key >= (0, 22, 0) and mt == "intern_s2_preview"):  # 0.22.0; mobius 0.28.0 (:1008-1033)
        nested = cfg.get("text_config")
        text = nested if isinstance(nested, dict) else None
        if mobius:
            if text is None:  # `assert text_config is not None` (pydantic wraps it, as the ValueErrors)
                raise _refuse("", kind="Assertion failed")
            for field in ("mtp_num_experts", "mtp_num_experts_per_tok"):
                if field not in text:
                    # the text config's class comes from the checkpoint's remote code (name assumed)
                    raise Refusal("AttributeError", f"'PretrainedConfig' object has no attribute '{field}'")
            arch = "InternS2MobiusMTP"
        else:
            arch = "Qwen3_5MoeMTP" if (text or {}).get("model_type") == "qwen3_5_moe_text" else "Qwen3_5MTP"
        return "qwen3_5_mtp", (text or {}).get("mtp_num_hidden_layers"), arch
    if key >= (0, 26, 0) and mt in ("inkling_mm_model", "inkling_model"):  # 0.26.0 (0.33.0 :1087-1103)
        mtp = cfg.get("mtp_config") or {}
        depth = mtp.get("num_nextn_predict_layers", 0) if isinstance(mtp, dict) else 0
        if not _num(depth):
            raise Refusal("TypeError", f"'<' not supported between instances of '{type(depth).__name__}' and 'int'")
        if depth < 1:
            raise _refuse("The Inkling checkpoint does not contain MTP weights")
        return "inkling_mtp", depth, "InklingMTPModel"
    return None


def convert(state: State, cfg: dict) -> tuple[str, Any, str] | None:
    """(MTP model type, n_predict, MTP class) when one of these conversions applies, else None."""
    found = _nemotron(state, cfg) or _last(state, cfg)
    if found is not None:
        return found
    mt = str(cfg.get("model_type"))
    archs = [str(a) for a in (cfg.get("architectures") or ["?"])]
    for rule in RULES:
        if state.release.key < rule.since:
            continue
        hit = _listed(state, rule.types, mt) or any(
            _listed(state, rule.archs, a) for a in (archs if rule.any_arch else archs[:1]))
        if not hit:
            continue
        if rule.mtp_type == "qwen3_5_mtp":
            n = cfg.get(rule.n_key)
            if n is None and state.release.key >= (0, 30, 0):  # text_config's count from 0.30.0
                n = _text(cfg).get(rule.n_key)
            arch = "Qwen3_5MoeMTP" if mt in ("qwen3_5_moe", "qwen3_5_moe_text") else "Qwen3_5MTP"
            return rule.mtp_type, n, arch
        src = _text(cfg) if rule.text else cfg
        n = src.get(rule.n_key, rule.n_default) if rule.n_key else rule.n_default
        return rule.mtp_type, n, rule.arch
    return None


def mtp_types(state: State) -> set[str]:
    """The MTP model types these conversions produce in this release."""
    out = {r.mtp_type for r in RULES if state.release.key >= r.since}
    for first, mtp_type in (((0, 21, 0), "mimo_v2_mtp"), ((0, 26, 0), "inkling_mtp"), ((0, 28, 0), "dots3_note_mtp"),
                            ((0, 29, 0), "qwen4_exp_mtp")):
        if state.release.key >= first:
            out.add(mtp_type)
    if state.release.key >= (0, 17, 0):
        out.add("nemotron_h_mtp")
    return out
