"""SpeculativeConfig with a draft model: what vLLM checks against the draft's own config.json.

When `speculative_config.model` names a draft (an EAGLE/EAGLE-3 head, Medusa heads, an MLP
speculator, a model with MTP layers, a plain smaller model), `SpeculativeConfig.__post_init__`
builds a ModelConfig for it (runner "draft", the MTP conversions of `hf_config_override`), then
derives the method from it, takes `n_predict` as the default token count, fixes the draft's
tensor parallel size and max_model_len, and `_verify_args` checks the draft against its
parallel config, EAGLE-3's target families and the vocabularies. Read in vLLM 0.12.0
config/speculative.py:281-520 and 0.33.0 :1226-1720 (`__post_init__`), :1939-2056
(`_verify_args`); each rule's releases are in `_RULES` (first release of each variant).

The draft is found as the target is (modelfacts.model_facts): a folder next to the deployment
with a config.json, or a hub id of the built-in table; anything else is an assumption naming
what was not checked. The draft's architecture beyond PP support, its weights, tokenizer and
quantization are not read.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from typing import Any

from vllm_preflight.model import Assumption
from vllm_preflight.modelfacts import KNOWN_MODELS, ModelFacts
from vllm_preflight.releases.versions import merged_since
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.engine import speculators as speculators_format
from vllm_preflight.resolve.speculative import draft_features, mtp_conversions

CLS = "SpeculativeConfig"


def _pyd(message: str) -> Refusal:
    return Refusal("ValidationError", f"1 validation error for {CLS}\n  Value error, {message}")


# Release variants, each keyed by the first release that has it (read in every release's
# config/speculative.py between 0.11.0 and 0.33.0).
_RULES: tuple[tuple[tuple, dict], ...] = (
    ((0, 11, 0), {
        # method None stays None and is detected from the draft; nothing detected: refused
        "method_default": None,
        "unmatched": "draft_unsupported",
        "medusa_mlp": True,  # Medusa and MLP-speculator drafts (configs registered in vLLM)
        "tp_key_refused": False,
        "vocab_check": False,
        "n_missing": "token_tree",  # n None reaches `range(None)` of the token tree
        "draft_max_len_verified": False,  # the draft ModelConfig gets max_model_len (0.21.0+)
        "draft_pp_is_target_pp": True,
        "aux_methods": ("eagle3",),
        "aux_targets": ("llama", "qwen", "minicpm", "gpt_oss"),
        "aux_message": "eagle3",
        "detect_dflash": False,
        "synthetic": False, "hetero_vocab": False, "index_share": False, "adaptive_vs_local_argmax": False,
        "lm_head_quant": False, "fly": False, "hetero_no_local_argmax": False, "dspark_topk": False,
        "custom_path": False, "medusa_forced": False, "xpress": False, "draft_inherits_ep": False,
    }),
    ((0, 15, 0), {"unmatched": "unsupported_method", "tp_key_refused": True, "vocab_check": True}),
    ((0, 16, 0), {"aux_targets": ("llama", "qwen", "minicpm", "gpt_oss", "hunyuan_vl", "hunyuan_v1_dense",
                                  "afmoe")}),
    ((0, 17, 0), {"method_default": "draft_model", "n_missing": "neither",
                  "aux_methods": ("eagle3", "extract_hidden_states"), "aux_message": "method",
                  "aux_targets": ("llama", "qwen", "minicpm", "gpt_oss", "hunyuan_vl", "hunyuan_v1_dense",
                                  "afmoe", "nemotron_h")}),
    ((0, 18, 0), {"aux_targets": ("llama", "qwen", "minicpm", "gpt_oss", "hunyuan_vl", "hunyuan_v1_dense",
                                  "afmoe", "nemotron_h", "deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25")}),
    ((0, 19, 1), {"aux_targets": ("llama", "qwen", "minicpm", "gpt_oss", "hunyuan_vl", "hunyuan_v1_dense",
                                  "afmoe", "nemotron_h", "deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25",
                                  "minimax_m2", "gemma4")}),
    ((0, 20, 0), {"aux_methods": ("eagle3", "extract_hidden_states", "dflash"), "detect_dflash": True,
                  "synthetic": True}),  # rejection_sample_method "synthetic" and its fields
    ((0, 21, 0), {"n_missing": "not_provided", "draft_max_len_verified": True,
                  "aux_targets": ("llama", "qwen", "minicpm", "gpt_oss", "hunyuan_vl", "hunyuan_v1_dense",
                                  "afmoe", "nemotron_h", "deepseek_v2", "deepseek_v3", "kimi_k2", "kimi_k25",
                                  "minimax_m2", "gemma4", "laguna")}),
    ((0, 22, 0), {"aux_methods": ()}),  # the target-family check left SpeculativeConfig
    ((0, 25, 0), {"hetero_vocab": True,  # use_heterogeneous_vocab
                  "medusa_forced": True}),  # method "medusa": model_type forced (0.25.0 speculative.py)
    ((0, 26, 0), {"custom_path": True}),  # _is_custom_proposer_path (0.33.0 speculative.py:1215)
    ((0, 28, 0), {"dspark_topk": True}),  # dspark_draft_topk only with DSpark (0.28.0 speculative.py:1089)
    ((0, 29, 0), {"index_share": True}),  # index_share_for_mtp_iteration
    ((0, 30, 0), {"adaptive_vs_local_argmax": True}),
    ((0, 30, 0), {"draft_pp_is_target_pp": False,  # the draft runs with pipeline_parallel_size=1
                  "draft_inherits_ep": True}),  # and the target's enable_expert_parallel
    ((0, 32, 0), {"draft_inherits_ep": False}),  # only a MoE draft keeps it
    ((0, 33, 0), {"medusa_mlp": False,  # Medusa / MLP speculator removed (their configs too)
                  "xpress": True,  # xpress_topc (speculative.py:1620)
                  "lm_head_quant": True, "fly": True, "hetero_no_local_argmax": True}),
)


def rules(state: State) -> dict:
    return _rules_at(state.release.key)


@cache
def _rules_at(key: tuple[int, ...]) -> dict:
    return merged_since(_RULES, key)


# hf_config_override: target checkpoints served as an MTP draft (model_type -> MTP model type, the
# config key holding the number of MTP layers, its default). 0.12.0 speculative.py:180-245.
_MTP_BY_TYPE = {"deepseek_v3": "deepseek_mtp", "deepseek_v32": "deepseek_mtp", "deepseek_mtp": "deepseek_mtp",
                "pangu_ultra_moe": "pangu_ultra_moe_mtp", "pangu_ultra_moe_mtp": "pangu_ultra_moe_mtp",
                "ernie4_5_moe": "ernie_mtp", "ernie_mtp": "ernie_mtp", "qwen3_next": "qwen3_next_mtp",
                "qwen3_next_mtp": "qwen3_next_mtp", "longcat_flash": "longcat_flash_mtp"}
_MTP_BY_ARCH = {"MiMoForCausalLM": "mimo_mtp", "Glm4MoeForCausalLM": "glm4_moe_mtp"}
_MTP_SINCE = {"glm4_moe_lite_mtp": (0, 15, 0), "exaone_moe_mtp": (0, 15, 0)}
_MTP_BY_ARCH_LATER = {"Glm4MoeLiteForCausalLM": "glm4_moe_lite_mtp"}
# DeepSeek V4 (0.20.0+) and V4.1 (0.30.0+, then refused: draft_features.V41_NO_MTP) become deepseek_mtp
# (0.33.0 speculative.py:765-776)
_MTP_DEEPSEEK_V4 = {"deepseek_v4": (0, 20, 0), "deepseek_v41": (0, 30, 0)}
_MTP_BY_TYPE_LATER = {"exaone_moe": "exaone_moe_mtp", "exaone_moe_mtp": "exaone_moe_mtp"}

TRANSFORMERS_UNKNOWN = (
    "The checkpoint you are trying to load has model type `{}` but Transformers does not recognize this "
    "architecture. This could be because of an issue with the checkpoint, or because your version of "
    "Transformers is out of date.\n\nYou can update Transformers with the command `pip install --upgrade "
    "transformers`. If this does not work, and the checkpoint is very new, then there may not be a release "
    "version that supports this model yet. In this case, you can get the most up-to-date code by installing "
    "Transformers from source with the command `pip install git+https://github.com/huggingface/transformers.git`")


def draft_facts(state: State, model: str, revision: str | None = None) -> tuple[ModelFacts | None, str]:
    """The draft's config.json facts (a local folder, relative to the deployment's folder as the
    target's is; a hub id at the speculative config's `revision`, in the caches the deployment's
    environment names), or the built-in table's, with where they came from; (None, why) otherwise."""
    from vllm_preflight.modelfacts import _facts_from_file

    path = os.path.normpath(model if os.path.isabs(model) else os.path.join(state.base_dir or os.getcwd(), model))
    facts = _facts_from_file(os.path.join(path, "config.json"))
    where = f"draft config read from {os.path.join(path, 'config.json')}"
    if facts is None and not os.path.lexists(path):  # a hub id: its cached or fetched config.json
        from vllm_preflight.modelfacts import facts_of_dict, local_config

        cfg = local_config(model, state.base_dir, revision, state.env)
        facts = facts_of_dict(cfg)[0] if cfg is not None else None
        where = "draft config read from the Hugging Face cache or the Hub"
    if facts is not None and facts.raw_config is not None and speculators_format.is_speculators(facts.raw_config):
        # a speculators-format checkpoint: its hf config is SpeculatorsConfig's (0.12.0 config.py:126)
        from vllm_preflight.modelfacts import facts_from_config

        try:
            facts = facts_from_config(speculators_format.draft_config(state, facts.raw_config))
        except Refusal as r:  # raised inside SpeculativeConfig.__post_init__: a ValueError is wrapped
            raise (_pyd(r.message) if r.type == "ValueError" else r) from None
    if facts is not None:
        return facts, where
    if model in KNOWN_MODELS:
        return KNOWN_MODELS[model], "draft config from the table of well-known hub models"
    return None, "no config.json there and not in the built-in table"


def _mtp_conversion(state: State, cfg: dict) -> tuple[str, Any] | None:
    """(MTP model type, n_predict) when hf_config_override turns this config into an MTP draft."""
    kv = state.release.key
    mt = str(cfg.get("model_type"))
    arch = (cfg.get("architectures") or ["?"])[0]
    new = _MTP_BY_TYPE.get(mt) or _MTP_BY_ARCH.get(arch)
    if new is None and kv >= (0, 15, 0):
        new = _MTP_BY_TYPE_LATER.get(mt) or _MTP_BY_ARCH_LATER.get(arch)
    if new is None and kv >= _MTP_DEEPSEEK_V4.get(mt, (99,)):
        new = "deepseek_mtp"
    if new is None:
        later = mtp_conversions.convert(state, cfg)  # 0.15.1+: Nemotron-H, Qwen3.5, Step, ...
        return later[:2] if later is not None else None
    if new == "longcat_flash_mtp":
        return new, cfg.get("num_nextn_predict_layers", 1)
    return new, cfg.get("num_nextn_predict_layers")


# the class hf_config_override names for each MTP type (0.12.0-0.29.0 speculative.py, where the
# draft still runs with the target's pipeline parallel size)
_MTP_ARCH = {"deepseek_mtp": "DeepSeekMTPModel", "pangu_ultra_moe_mtp": "OpenPanguMTPModel", "ernie_mtp": "ErnieMTPModel",
             "qwen3_next_mtp": "Qwen3NextMTP", "longcat_flash_mtp": "LongCatFlashMTPModel", "mimo_mtp": "MiMoMTPModel",
             "glm4_moe_mtp": "Glm4MoeMTPModel", "glm4_moe_lite_mtp": "Glm4MoeLiteMTPModel",
             "exaone_moe_mtp": "ExaoneMoeMTP"}


def _mtp_types(state: State) -> set[str]:
    from vllm_preflight.resolve.base.value_facts import value_facts

    rec = value_facts(state)
    if rec is not None:
        return set(rec["mtp_methods"])
    return {t for t in list(_MTP_BY_TYPE.values()) + list(_MTP_BY_ARCH.values()) + ["mtp"]
            if state.release.key >= _MTP_SINCE.get(t, (0, 0, 0))} | mtp_conversions.mtp_types(state)


def _text(cfg: dict) -> dict:
    nested = cfg.get("text_config")
    return nested if isinstance(nested, dict) else cfg


def _draft_max_len(state: State, facts: ModelFacts, user: Any) -> int:
    """The draft ModelConfig's max_model_len: its own derived length (the target's when its
    config has no length key: spec_target_max_model_len), or the user's checked against it."""
    from vllm_preflight.resolve.model import max_model_len as model_len

    target = state.model_cfg.get("max_model_len") or 0
    if facts.max_len_key == "" and user is None:
        return target
    if facts.raw_config and facts.raw_config.get("model_type") == "medusa":
        return user if user is not None else 2 ** 20  # MedusaConfig.max_seq_len
    try:
        return model_len.verify_max_len(state, facts, user, False)
    except Refusal as r:
        head = "1 validation error for ModelConfig\n  Value error, "
        if r.message.startswith(head):
            raise _pyd(r.message[len(head):]) from None
        raise


def draft_model_checks(state: State, spec: dict, method: str | None, n: Any,
                       assumptions: list[Assumption]) -> tuple[str | None, Any, dict | None]:
    """SpeculativeConfig.__post_init__'s draft-model branch. Returns the method and token count
    vLLM resolves, and what `_verify_args` needs of the draft (None: the draft was not read)."""
    r = rules(state)
    if r["custom_path"] and method is None and _custom_proposer_path(spec.get("model")):
        return "custom_class", n, None  # 0.26.0+: a dotted class path is a custom proposer
    if spec.get("model") is None:  # method mtp: the target's own checkpoint is the draft
        model, facts, source = "", state.model, "the target model's own config (MTP layers)"
    else:
        model = str(spec.get("model"))
        revision = spec.get("revision")  # SpeculativeConfig.revision: the draft's ModelConfig revision
        facts, source = draft_facts(state, model, revision if isinstance(revision, str) else None)
    if facts is None or facts.raw_config is None:
        assumptions.append(Assumption("speculative_config.model", model,
                                      f"not checked: the draft model's config is not read ({source})"))
        return method, n, None
    assumptions.append(Assumption("speculative_config.model", model, source))
    cfg = dict(facts.raw_config)
    if r["medusa_forced"] and method == "medusa":
        cfg["model_type"] = "medusa"  # 0.25.0+: method "medusa" loads any draft as MedusaConfig (hf_overrides)
    model_type = cfg.get("model_type")
    if not r["medusa_mlp"] and model_type in ("medusa", "mlp_speculator"):
        raise _pyd(TRANSFORMERS_UNKNOWN.format(model_type))
    archs = list(cfg.get("architectures") or [])
    if model_type == "mlp_speculator" and archs and arch_registered(state, archs[0]) is False:
        # the class is commented out of every release's registry (0.12.0 registry.py:442): the draft
        # ModelConfig refuses it, listing every registered class (that list is not reproduced here)
        raise _pyd(f"Model architectures {archs!r} are not supported for now. Supported architectures: "
                   f"dict_keys([...])")
    n_predict = cfg.get("n_predict")
    if model_type == "mlp_speculator" and n_predict is None:
        n_predict = 3  # MLPSpeculatorConfig's default
    mtp = _mtp_conversion(state, cfg)
    if draft_features.parse_mtp_target(state, cfg):
        mtp, archs = ("mtp", 1), ["ParseAuxMTPModel"]  # 0.33.0 hf_config_override, before any other
    if mtp is not None:
        model_type, n_predict = mtp
    # the draft ModelConfig: max_model_len (given to it from 0.21.0)
    spec_mml = spec.get("max_model_len")
    draft_mml = _draft_max_len(state, facts, spec_mml if r["draft_max_len_verified"] else None)
    # the method
    if method is None and r["method_default"]:
        method = r["method_default"]
    low = model.lower()
    detect_pass = ("eagle", "eagle3") + (("dflash",) if r["detect_dflash"] else ()) \
        + (("dspark",) if state.release.key >= (0, 25, 0) else ())  # 0.25.0 speculative.py:305
    if method in detect_pass:
        pass
    elif "eagle-" in low:
        method = "eagle"
    elif "eagle3" in low:
        method = "eagle3"
    elif r["detect_dflash"] and ("dflash" in low or draft_features.muse_glimmer(state, archs)):
        method = "dflash"
    elif draft_features.is_dspark_draft(state, low, archs, model_type):
        method = "dspark"
    elif r["medusa_mlp"] and model_type == "medusa":
        method = "medusa"
    elif r["medusa_mlp"] and model_type == "mlp_speculator":
        method = "mlp_speculator"
    elif model_type in _mtp_types(state):
        method = "mtp"
        if draft_features.v41_target(state):
            raise _pyd(draft_features.V41_NO_MTP)
        if n is None:  # the "n > 1" warning compares None first
            raise Refusal("TypeError", "'>' not supported between instances of 'NoneType' and 'int'")
    elif method == "draft_model" and r["unmatched"] == "unsupported_method":
        pass
    elif r["unmatched"] == "unsupported_method":
        raise Refusal("NotImplementedError", f"Unsupported speculative method: '{method}'")
    else:
        raise Refusal("NotImplementedError", "Speculative decoding with draft model is not supported yet. "
                                             "Please consider using other speculative decoding methods such "
                                             "as ngram, medusa, eagle, or mtp.")
    if method in ("eagle", "eagle3", "dflash") and model_type not in ("eagle", "speculators"):
        if method == "eagle":
            archs = [a if a.startswith("Eagle") else f"Eagle{a}" for a in archs]
        elif method == "dflash":
            archs = draft_features.dflash_archs(state, archs)
        else:
            archs = [a if a.startswith("Eagle3") or a.endswith("Eagle3") else f"Eagle3{a}" for a in archs]
    if method == "dspark":
        archs = draft_features.dspark_archs(state, archs, model_type)
        n, n_predict = draft_features.dspark_tokens(state, cfg, n, n_predict)
    draft_features.note_draft(state, method, archs, cfg)
    if "ParseAuxMTPModel" in archs and n not in (None, 1):
        raise _pyd("Parse 3.5 has only one trained MTP step")  # 0.33.0 speculative.py:1586-1591
    # n_predict: the default token count, and what it must divide
    if n_predict is not None:
        if n is None:
            n = n_predict
        elif isinstance(n, int) and n > n_predict == 0:  # a checkpoint with no MTP layers (Step-5's default)
            raise Refusal("ZeroDivisionError", "integer modulo by zero")
        elif isinstance(n, int) and n > n_predict and n % n_predict != 0:
            raise _pyd(f"num_speculative_tokens:{n} must be divisible by n_predict={n_predict}")
    if n is None:
        if r["n_missing"] == "token_tree":
            raise Refusal("TypeError", "'NoneType' object cannot be interpreted as an integer")
        if r["n_missing"] == "neither":
            raise _pyd("A speculative model was provided, but neither `speculative_token_tree` nor "
                       "`num_speculative_tokens` was provided")
        raise _pyd("A speculative model was provided, but `num_speculative_tokens` was not provided")
    if r["xpress"]:
        _xpress_topc(state, spec, cfg)
    if r["dspark_topk"] and spec.get("dspark_draft_topk") is not None and method != "dspark":
        raise _pyd("dspark_draft_topk is only supported by DSpark")
    if r["dspark_topk"] and method == "dspark":
        topk_refused = draft_features.dspark_post_topk_message(state, spec, cfg, archs)  # + Qwen3-Omni (0.29+)
        if topk_refused:
            raise _pyd(topk_refused)
    # the draft's tensor parallel size
    tp = state.parallel["tensor_parallel_size"]
    dtp = spec.get("draft_tensor_parallel_size")
    if dtp is None:
        dtp = 1 if r["medusa_mlp"] and model_type == "mlp_speculator" else tp
    elif dtp not in (1, tp):
        raise _pyd(f"speculative_draft_tensor_parallel_size={dtp} cannot be other value than 1 or target "
                   f"model tensor_parallel_size")
    # the draft's max_model_len against the user's and the target's
    target_mml = state.model_cfg.get("max_model_len")
    if spec_mml is not None and isinstance(spec_mml, int):
        if spec_mml > draft_mml:
            raise _pyd(f"speculative_max_model_len={spec_mml} cannot be larger than draft_max_model_len={draft_mml}")
        if target_mml is not None and spec_mml > target_mml:
            raise _pyd(f"speculative_max_model_len={spec_mml} cannot be larger than "
                       f"target_max_model_len={target_mml}")
    text = _text(cfg)
    heads = 0 if model_type in ("medusa", "mlp_speculator") else text.get("num_attention_heads") or 0
    # the converted EAGLE class (ModelConfig.architectures reads the replaced hf_config up to 0.14.x,
    # update_arch_ re-inspects it from 0.15.0)
    arch: str | None = archs[0] if archs else None
    if mtp is not None:
        arch = _MTP_ARCH.get(mtp[0])  # the MTP class hf_config_override names
        later = mtp_conversions.convert(state, cfg) if arch is None else None
        arch = later[2] if later is not None else arch
    draft = {"heads": heads, "tp": dtp, "arch": arch, "vocab": text.get("vocab_size"), "is_moe": facts.is_moe,
             "pp": state.parallel.get("pipeline_parallel_size", 1) if r["draft_pp_is_target_pp"] else 1,
             "model_type": model_type, "head_dtype": cfg.get("head_dtype")}
    return method, n, draft


def _xpress_topc(state: State, spec: dict, cfg: dict) -> None:
    """0.33.0 (speculative.py:1620-1638): xpress_topc only for an XPress draft, whose top-C (the
    field, else its config.json's) must lie in [0, draft vocabulary size]."""
    topc = spec.get("xpress_topc")
    xpress = draft_features.xpress(state)
    if topc is not None and not xpress:
        raise _pyd("xpress_topc is only supported by XPress")
    if not xpress:
        return
    if topc is None:
        topc = cfg.get("xpress_topc")
    vocab = cfg.get("draft_vocab_size") or _text(cfg).get("vocab_size")
    if isinstance(topc, int) and isinstance(vocab, int) and not 0 <= topc <= vocab:
        raise _pyd(f"xpress_topc must be between 0 and the draft vocabulary size ({vocab})")


def verify_args(state: State, spec: dict, method: str | None, n: Any, draft: dict | None,
                target_verify: Callable[[], None] | None = None, dtype: str | None = None) -> None:
    """SpeculativeConfig._verify_args (after __post_init__), for every method. The draft's
    ModelConfig meets the draft parallel config: `draft`'s facts, or `target_verify` where the
    target serves as its own draft."""
    from vllm_preflight.resolve.model.verify_with_parallel_config import PP_UNSUPPORTED

    r = rules(state)
    if r["tp_key_refused"] and spec.get("tensor_parallel_size") is not None:
        raise _pyd("'tensor_parallel_size' is not a valid argument in the speculative_config. Please pass "
                   "'draft_tensor_parallel_size' instead.")
    if n is None:
        raise _pyd("num_speculative_tokens must be provided with speculative model unless the draft "
                   "model config contains an n_predict parameter.")
    if isinstance(n, int) and not isinstance(n, bool) and n <= 0:
        # every release's _verify_args; only 0.11.0 (no Field bound) lets a given value reach it
        raise _pyd(f"Expected num_speculative_tokens to be greater than zero ({n}).")
    if r["lm_head_quant"] and spec.get("draft_lm_head_quantization") is not None:
        _lm_head_quant(method, draft, dtype)
    rejection = spec.get("rejection_sample_method")
    if r["synthetic"]:
        _synthetic(spec, rejection, n)
    if target_verify is not None:
        target_verify()
    if draft is not None:
        if draft["heads"] % draft["tp"] != 0:
            raise _pyd(f"Total number of attention heads ({draft['heads']}) must be divisible by tensor "
                       f"parallel size ({draft['tp']}).")
        # 0.30.0-0.31.x the draft's parallel config inherits expert parallelism; 0.32.0+ only for a
        # MoE draft (create_draft_parallel_config), so only the former can refuse a dense draft
        if r["draft_inherits_ep"] and state.parallel.get("enable_expert_parallel") and not draft["is_moe"]:
            raise _pyd("Number of experts in the model must be greater than 0 when expert parallelism is "
                       "enabled.")
        if draft["pp"] > 1 and draft["arch"]:
            from vllm_preflight.releases.architectures import arch_support

            support = arch_support(state.release.version, draft["arch"])
            if support is None:
                state.assumptions.append(Assumption("speculative_config.model", draft["arch"],
                                                    "not checked: the draft's pipeline-parallel support (its "
                                                    "class is not in the recorded model registry)"))
            elif not support.supports_pp:
                raise Refusal("NotImplementedError", PP_UNSUPPORTED)
    batch = spec.get("disable_by_batch_size")
    if state.release.key < (0, 17, 0) and isinstance(batch, int) and not isinstance(batch, bool) and batch < 2:
        # _verify_args while the field exists (until 0.16.x); only 0.11.0 (no Field bound) reaches it
        raise _pyd("Expect the batch size threshold of disabling speculative decoding is > 1, but got "
                   f"self.disable_by_batch_size={batch}")
    hetero = bool(r["hetero_vocab"] and spec.get("use_heterogeneous_vocab"))
    if hetero and method != "draft_model":
        raise _pyd("use_heterogeneous_vocab only works with method='draft_model'")
    if hetero and spec.get("draft_sample_method", "greedy") != "greedy":
        raise _pyd("use_heterogeneous_vocab currently only supports greedy draft sampling. Set "
                   "draft_sample_method='greedy' (the default) or omit it.")
    if hetero and r["hetero_no_local_argmax"] and spec.get("use_local_argmax_reduction"):
        raise _pyd("use_heterogeneous_vocab is not compatible with use_local_argmax_reduction because "
                   "token-level intersection requires the full draft logits.")
    if r["fly"] and rejection == "fly":
        if method == "extract_hidden_states":
            raise _pyd("FLy is not compatible with method='extract_hidden_states', which does not perform "
                       "speculative decoding.")
        if isinstance(n, int) and n < 2:
            raise _pyd("FLy requires num_speculative_tokens to be at least 2.")
        window = spec.get("fly_window_size")
        if isinstance(window, int) and isinstance(n, int) and window >= n:
            raise _pyd("FLy requires fly_window_size to be smaller than num_speculative_tokens.")
    target_type = _target_text_type(state)
    if method in r["aux_methods"] and target_type is not None and \
            not any(t in target_type for t in r["aux_targets"]):
        shown = "[" + ", ".join(repr(t) for t in r["aux_targets"]) + "]"
        head = "Eagle3" if r["aux_message"] == "eagle3" else method
        raise _pyd(f"{head} is only supported for {shown} models. "
                   f"Got self.target_model_config.hf_text_config.model_type={target_type!r}")
    if r["vocab_check"] and not hetero and method == "draft_model" and draft is not None:
        target_vocab = _text(state.model.raw_config or {}).get("vocab_size") if state.model else None
        if target_vocab is not None and draft["vocab"] is not None and target_vocab != draft["vocab"]:
            raise _pyd(f"Target and draft model should have the same vocabulary size. Target model "
                       f"vocab_size={target_vocab}. Draft model vocab_size={draft['vocab']}. Using models with "
                       f"different tokenizers can cause out-of-bounds errors during speculative decoding.")


def _target_text_type(state: State) -> str | None:
    if state.model is None or state.model.raw_config is None:
        return None
    return _text(state.model.raw_config).get("model_type")


def post_init_tail(state: State, spec: dict, method: str | None, draft_built: bool | None) -> None:
    """The last checks of __post_init__, for every method (0.29.0+, 0.30.0+; 0.33.0
    speculative.py:1705-1722). `draft_built`: whether a draft ModelConfig exists (None: unknown)."""
    r = rules(state)
    if r["index_share"] and spec.get("index_share_for_mtp_iteration") is not None \
            and (method != "mtp" or draft_built is False):
        raise _pyd("index_share_for_mtp_iteration is only supported with method='mtp'")
    if r["adaptive_vs_local_argmax"] and method != "dspark" and spec.get("enable_adaptive_verification") \
            and spec.get("use_local_argmax_reduction"):
        raise _pyd("Adaptive verification estimates per-position acceptance from the draft logits, which "
                   "use_local_argmax_reduction never materializes. Disable one of them.")


_HEAD_DTYPES = {"half": "float16", "float16": "float16", "float": "float32", "float32": "float32",
                "bfloat16": "bfloat16"}


def _lm_head_quant(method: str | None, draft: dict | None, dtype: str | None) -> None:
    """0.33.0 speculative.py:1953-1965: the draft lm_head is quantized only for EAGLE/EAGLE-3/MTP
    drafts (not Gemma-4's MTP, which scores tied embedding rows) whose head runs in the model dtype
    (ModelConfig.head_dtype: the draft config's `head_dtype`, else the draft's dtype, the target's)."""
    if method not in ("eagle", "eagle3", "mtp") or (
            method == "mtp" and draft is not None and draft.get("model_type") == "gemma4_mtp"):
        raise _pyd(f"draft_lm_head_quantization is not supported for method {method!r}.")
    given = draft.get("head_dtype") if draft is not None else None
    if given is None or given == "model":
        return
    if not isinstance(given, str):
        raise _pyd(f"Unknown dtype: {given}")
    head = _HEAD_DTYPES.get(given.lower())
    if head is None:
        raise _pyd(f"Unknown dtype: {given.lower()!r}")
    if dtype is not None and head != dtype:  # every one of these runs on an H200 (no fallback to the model dtype)
        raise _pyd(f"draft_lm_head_quantization needs the lm_head to run in the model dtype, got "
                   f"head_dtype=torch.{head}.")


def _synthetic(spec: dict, rejection: Any, n: int) -> None:
    """rejection_sample_method "synthetic" wants exactly one of the acceptance rates or the mean
    acceptance length, each in range; other methods refuse them (0.20.0+)."""
    rates, length = spec.get("synthetic_acceptance_rates"), spec.get("synthetic_acceptance_length")
    if rejection != "synthetic":
        if rates is not None or length is not None:
            raise _pyd("synthetic_acceptance_rates / synthetic_acceptance_length are only valid with "
                       "rejection_sample_method='synthetic'.")
        return
    if (rates is None) == (length is None):
        raise _pyd("rejection_sample_method='synthetic' requires exactly one of synthetic_acceptance_rates "
                   "or synthetic_acceptance_length.")
    if isinstance(rates, list):
        if len(rates) != n:
            raise _pyd(f"synthetic_acceptance_rates must have length {n}, got {rates}.")
        if not all(isinstance(x, (int, float)) and 0.0 <= x <= 1.0 for x in rates):
            raise _pyd(f"synthetic_acceptance_rates entries must be in [0, 1], got {rates}.")
        if any(rates[i] > rates[i - 1] for i in range(1, n)):
            raise _pyd(f"synthetic_acceptance_rates must be non-increasing, got {rates}.")
    elif isinstance(length, (int, float)) and not 1.0 <= length <= float(n + 1):
        raise _pyd(f"synthetic_acceptance_length must be in [1, {n + 1}], got {length}.")


def arch_registered(state: State, arch: str) -> bool | None:
    """Whether the release's model registry has this class (None: the registry is not recorded)."""
    from vllm_preflight.releases.architectures import arch_support

    if arch_support(state.release.version, "LlamaForCausalLM") is None:
        return None
    return arch_support(state.release.version, arch) is not None


def _custom_proposer_path(model: Any) -> bool:
    """A dotted import path (`pkg.MyProposer`): not a URL, no slash, every part an identifier."""
    if not isinstance(model, str) or model.startswith(("http://", "https://", "file://")) or "/" in model:
        return False
    parts = model.split(".")
    return len(parts) >= 2 and all(part.isidentifier() for part in parts)


# Literal fields of SpeculativeConfig other than `method`, each keyed by the first release with
# those values (every release's config/speculative.py `RejectionSampleMethod`, `DraftSampleMethod`)
_LITERALS = (
    ("rejection_sample_method", (((0, 18, 0), ("strict", "probabilistic")),
                                 ((0, 19, 0), ("strict", "probabilistic", "synthetic")),
                                 ((0, 21, 0), ("standard", "synthetic")),
                                 ((0, 25, 0), ("standard", "synthetic", "block")),
                                 ((0, 33, 0), ("standard", "synthetic", "block", "fly")))),
    ("draft_sample_method", (((0, 21, 0), ("greedy", "gumbel")),
                             ((0, 22, 0), ("greedy", "probabilistic")))),
)
