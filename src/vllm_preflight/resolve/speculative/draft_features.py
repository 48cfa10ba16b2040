"""What the draft's architecture and the target's diffusion flag decide about the model runner.

`SpeculativeConfig.__post_init__` (resolve/speculative/draft_model.py) leaves the draft's ModelConfig
behind: its architectures after the EAGLE/DFlash renaming (`EAGLEConfig`) and its hf_config.
VllmConfig then reads them:

  * `use_v2_model_runner` (0.24.0-0.28.0) takes Model Runner V2 whatever the model for a
    diffusion target (0.24.0+), a DFlash draft that mixes sliding-window and full attention layers
    (0.26.0+) and a DFlash2 draft (0.28.0) -- `forces_v2`;
  * `_get_v1_model_runner_unsupported_features` (0.29.0+) refuses them on Model Runner V1, with
    XPress drafts, the Parse 3.5 MTP draft (0.33.0) and, from 0.31.0, every DFlash draft with a
    candidate head -- `v1_flags` (the order of the joined list: vllm_config/model_runner.validate_v1_runner);
  * `_get_v2_model_runner_unsupported_features` (0.32.0+) lists heterogeneous-vocabulary drafts
    -- `v2_hetero_vocab`.

Read in 0.24.0-0.33.0 config/vllm.py (`use_v2_model_runner`, 0.28.0 :615-690;
`_get_v1_model_runner_unsupported_features`, 0.29.0 :2614-2646, 0.31.0 :3105-3151, 0.33.0
:3089-3151; `_is_dflash2_draft` / `_is_dflash_candidate_draft` / `_dflash_needs_multi_kv_group`,
0.33.0 :769-797), config/model.py (`is_diffusion`: the hf_config has a `canvas_length`),
config/speculative.py (`is_xpress`, 0.33.0 :2131; XPRESS_ARCHITECTURES :98) and
transformers_utils/configs/eagle.py (the DFlash renaming).
"""
from __future__ import annotations

from typing import Any, TypeGuard

from vllm_preflight.releases.versions import value_since
from vllm_preflight.resolve.base.state import Refusal, State

# each keyed by its first release
_DFLASH2_ONLY = ((0, 28, 0), (0, 31, 0))  # `_is_dflash2_draft`: DFlash2DraftModel, "dflash2 drafts"
_CANDIDATE = ((0, 31, 0), ("DFlash2DraftModel", "LiLiCorrDraftModel"))  # "DFlash candidate-head drafts"
_CANDIDATE_0_33 = ((0, 33, 0), ("DFlash2DraftModel", "DFlash2BeamDraftModel", "LiLiCorrDraftModel"))
_XPRESS = ((0, 33, 0), ("Qwen3XPressModel", "DFlashQwen3XPressModel"))
_LILICORR_KEPT = (0, 31, 0)  # EAGLEConfig keeps LiLiCorrDraftModel's name for DFlash
_HETERO_V2 = (0, 32, 0)


def dflash_archs(state: State, archs: list[str]) -> list[str]:
    """EAGLEConfig's DFlash names: DFlash{arch} unless it already starts or ends with DFlash."""
    keep = ("LiLiCorrDraftModel",) if state.release.key >= _LILICORR_KEPT else ()
    return [a if a.startswith("DFlash") or a.endswith("DFlash") or a in keep else f"DFlash{a}" for a in archs]


def layer_types(cfg: dict) -> list[str]:
    """The draft hf_config's `layer_types`: as config.json gives them, else Qwen2/Qwen3's default
    (sliding attention from max_window_layers on, only with use_sliding_window)."""
    given = cfg.get("layer_types")
    if isinstance(given, list):
        return [str(t) for t in given]
    if cfg.get("model_type") in ("qwen2", "qwen3") and cfg.get("use_sliding_window") \
            and cfg.get("sliding_window") is not None:
        n, first = cfg.get("num_hidden_layers") or 0, cfg.get("max_window_layers", 28)
        if isinstance(n, int) and isinstance(first, int):
            return ["sliding_attention" if i >= first else "full_attention" for i in range(n)]
    return []


def note_draft(state: State, method: str | None, archs: list[str], cfg: dict) -> None:
    """Keep what VllmConfig reads of the draft ModelConfig (its final architectures, its layer types)."""
    state.model_cfg["draft"] = {"method": method, "archs": list(archs), "layer_types": layer_types(cfg),
                                "sample_from_anchor": cfg.get("sample_from_anchor", True)}


def _draft(state: State) -> dict[str, Any] | None:
    draft = state.model_cfg.get("draft")
    return draft if isinstance(draft, dict) else None


def _dflash_draft(state: State) -> dict[str, Any] | None:
    draft = _draft(state)
    return draft if draft is not None and draft.get("method") == "dflash" else None


def dflash_multi_kv(state: State) -> bool:
    """`_dflash_needs_multi_kv_group` (0.26.0+): a DFlash draft with some, not all, sliding layers."""
    draft = _dflash_draft(state)
    if draft is None or state.release.key < (0, 26, 0):
        return False
    types = draft["layer_types"]
    sliding = sum(t == "sliding_attention" for t in types)
    return 0 < sliding < len(types)


def _has(state: State, rule: tuple) -> bool:
    draft = _dflash_draft(state)
    return draft is not None and state.release.key >= rule[0] and bool(set(rule[1]) & set(draft["archs"]))


def dflash2(state: State) -> bool:
    """0.28.0-0.30.x `_is_dflash2_draft`."""
    draft = _dflash_draft(state)
    return draft is not None and _DFLASH2_ONLY[0] <= state.release.key < _DFLASH2_ONLY[1] \
        and "DFlash2DraftModel" in draft["archs"]


def dflash_candidate(state: State) -> bool:
    """0.31.0+ `_is_dflash_candidate_draft`."""
    return _has(state, _CANDIDATE_0_33 if state.release.key >= _CANDIDATE_0_33[0] else _CANDIDATE)


def xpress(state: State) -> bool:
    """0.33.0 SpeculativeConfig.is_xpress: a DFlash draft with an XPress refiner."""
    return _has(state, _XPRESS)


def parse_mtp(state: State) -> bool:
    """0.33.0: the Parse 3.5 MTP draft (ParseAuxMTPModel)."""
    draft = _draft(state)
    return draft is not None and state.release.key >= (0, 33, 0) and "ParseAuxMTPModel" in draft["archs"]


def is_diffusion(state: State) -> bool:
    """ModelConfig.is_diffusion (0.24.0+): the target's hf_config has a canvas_length."""
    raw = state.model.raw_config if state.model is not None else None
    return state.release.key >= (0, 24, 0) and isinstance(raw, dict) and raw.get("canvas_length") is not None


def forces_v2(state: State, force: tuple[str, ...]) -> bool:
    """use_v2_model_runner's draft and diffusion cases (runtime.rules `v2_force`, 0.24.0-0.28.0)."""
    return ("dflash_multi_kv" in force and dflash_multi_kv(state)) or ("dflash2" in force and dflash2(state)) \
        or ("diffusion" in force and is_diffusion(state))


def v1_flags(state: State) -> dict[str, bool]:
    """The features of `_get_v1_model_runner_unsupported_features` read here (0.29.0+)."""
    return {"xpress": xpress(state), "parse_mtp": parse_mtp(state), "dflash_multi_kv": dflash_multi_kv(state),
            "dflash2": dflash2(state), "dflash_candidate": dflash_candidate(state), "diffusion": is_diffusion(state)}


def v2_hetero_vocab(state: State, spec: dict | None) -> bool:
    """0.32.0+ `_get_v2_model_runner_unsupported_features`: a heterogeneous-vocabulary draft."""
    return state.release.key >= _HETERO_V2 and isinstance(spec, dict) and bool(spec.get("use_heterogeneous_vocab"))


# ------------------------------------------------------------------ DSpark drafts (0.25.0+)
# SpeculativeConfig.__post_init__'s DSpark branch (0.25.0 speculative.py:848-905, 0.28.0 :1040-1117,
# 0.33.0 :1455-1670): the draft architectures that name the method, those kept as they are (any
# other draft is taken as a DeepSeek-V4 DSpark draft: DSparkDraftModel, 0.30.0+ DSparkV41DraftModel
# for a DeepSeek V4.1 target), the block size as the default token count (0.31.0+) and the
# top-k of the Markov projection (0.28.0+). Each list keyed by its first release.
_DSPARK_DETECT = (((0, 25, 0), ("Qwen3DSparkModel",)),
                  ((0, 26, 0), ("Qwen3DSparkModel", "Gemma4DSparkModel")),
                  ((0, 29, 0), ("Qwen3DSparkModel", "Qwen3OmniDSparkModel", "Gemma4DSparkModel")),
                  ((0, 33, 0), ("Qwen3DSparkModel", "Qwen3OmniDSparkModel", "MuseSparkDSparkModel",
                                "Gemma4DSparkModel")))
_DSPARK_KEEP = (((0, 25, 0), ("Qwen3DSparkModel",)),
                ((0, 26, 0), ("Qwen3DSparkModel", "Gemma4DSparkModel")),
                ((0, 27, 0), ("Qwen3DSparkModel", "Gemma4DSparkModel", "K3DSparkModel")),
                ((0, 29, 0), ("Qwen3DSparkModel", "Qwen3OmniDSparkModel", "Gemma4DSparkModel", "K3DSparkModel")),
                ((0, 33, 0), ("Qwen3DSparkModel", "Qwen3OmniDSparkModel", "MuseSparkDSparkModel", "Gemma4DSparkModel",
                              "K3DSparkModel")))
_DSPARK_QWEN3_DRAFT = (0, 29, 0)  # DSparkDraftModel with model_type qwen3 is a Qwen3 DSpark draft
_DSPARK_V41 = (0, 30, 0)
_DSPARK_BLOCK_TOKENS = (0, 31, 0)
_GEMMA4_N_PREDICT = (0, 26, 0)  # 0.26.0-0.30.x: Gemma4 DSpark's n_predict defaults to its block_size (:957-961)
_K3_DCP = ((0, 27, 0), (0, 29, 0))  # MLA DSpark refuses DCP (0.28.0 speculative.py:1049-1057)


def _pick(state: State, table: tuple) -> tuple[str, ...]:
    return value_since(table, state.release.key, ())


def is_dspark_draft(state: State, low_path: str, archs: list[str], model_type: Any) -> bool:
    """The method detection's DSpark case: "dspark" in the draft's path or a DSpark architecture."""
    if state.release.key < (0, 25, 0):
        return False
    return "dspark" in low_path or bool(set(archs) & set(_pick(state, _DSPARK_DETECT))) or (
        state.release.key >= _DSPARK_QWEN3_DRAFT and "DSparkDraftModel" in archs and model_type == "qwen3")


def dspark_archs(state: State, archs: list[str], model_type: Any) -> list[str]:
    """The DSpark draft's architectures after __post_init__ renames them."""
    if state.release.key >= _DSPARK_QWEN3_DRAFT and "DSparkDraftModel" in archs and model_type == "qwen3":
        return ["Qwen3DSparkModel"]
    if set(archs) & set(_pick(state, _DSPARK_KEEP)):
        return archs
    raw = state.model.raw_config if state.model is not None else None
    v41 = state.release.key >= _DSPARK_V41 and isinstance(raw, dict) and raw.get("model_type") == "deepseek_v41"
    return ["DSparkV41DraftModel" if v41 else "DSparkDraftModel"]


def dspark_tokens(state: State, cfg: dict, n: Any, n_predict: Any) -> tuple[Any, Any]:
    """0.31.0+: DSpark's token count defaults to the draft's block_size (else dspark_block_size),
    and n_predict is not read. Before: a Gemma4 DSpark draft with no n_predict takes its block_size
    as n_predict (0.26.0-0.30.x). 0.27.0-0.28.x: an MLA (K3) DSpark draft under decode context
    parallelism is refused. Returns (n, n_predict)."""
    archs = cfg.get("architectures") or []
    if _K3_DCP[0] <= state.release.key < _K3_DCP[1] and "K3DSparkModel" in archs \
            and (state.parallel.get("decode_context_parallel_size") or 1) > 1:
        raise Refusal("ValidationError", "1 validation error for SpeculativeConfig\n  Value error, MLA DSpark does "
                                         "not currently support decode context parallelism; set "
                                         "decode_context_parallel_size=1.")
    if state.release.key < _DSPARK_BLOCK_TOKENS:
        if state.release.key >= _GEMMA4_N_PREDICT and "Gemma4DSparkModel" in archs and n_predict is None:
            n_predict = cfg.get("block_size")
        return n, n_predict
    if n is None:
        n = cfg.get("block_size")
        if n is None:
            n = cfg.get("dspark_block_size")
    return n, None


def dspark_topk_message(state: State, spec: dict, cfg: dict, archs: list[str]) -> str | None:
    """0.28.0+: the DSpark top-k (the field, else the draft config's) in [1, draft vocabulary],
    and only for Qwen3 DSpark drafts (0.29.0+ also Qwen3-Omni's). The refusal, or None."""
    topk = spec.get("dspark_draft_topk")
    if topk is None:
        topk = cfg.get("dspark_draft_topk")
    if topk is None:
        return None
    vocab = cfg.get("draft_vocab_size") or cfg.get("vocab_size")
    if isinstance(topk, int) and isinstance(vocab, int) and not 1 <= topk <= vocab:
        return f"dspark_draft_topk must be between 1 and the draft vocabulary size ({vocab})"
    allowed = ("Qwen3DSparkModel", "Qwen3OmniDSparkModel") if state.release.key >= (0, 29, 0) \
        else ("Qwen3DSparkModel",)
    if not set(allowed) & set(archs):
        return "dspark_draft_topk is only supported by " + " and ".join(allowed)
    return None


def dspark_post_topk_message(state: State, spec: dict, cfg: dict, archs: list[str]) -> str | None:
    """What SpeculativeConfig refuses of a DSpark draft after its drafting tokens are known:
    the top-k (`dspark_topk_message`), then (0.29.0+) the Qwen3-Omni DSpark contract."""
    topk = dspark_topk_message(state, spec, cfg, archs)
    if topk is not None or state.release.key < _OMNI_DSPARK:
        return topk
    n = spec.get("num_speculative_tokens")
    if n is None:  # the default __post_init__ gave it (the refusal of no default came before)
        n, n_predict = dspark_tokens(state, cfg, None, cfg.get("n_predict"))
        n = n if n is not None else n_predict
    return qwen3_omni_dspark_message(state, cfg, archs, n)


def dspark_fill_in(state: State) -> bool:
    """0.33.0 VllmConfig.num_lookahead_tokens: a DSpark draft whose config turns sample_from_anchor
    off drafts fill-in style (one more lookahead slot)."""
    draft = _draft(state)
    return draft is not None and draft.get("method") == "dspark" and not draft.get("sample_from_anchor", True)


V41_NO_MTP = ("DeepSeek V4.1 has no classic-MTP draft: its checkpoints ship DSpark stages under mtp.* "
              "(main_proj/markov_head/confidence_head) and carry no e_proj/h_proj/enorm/hnorm/hc_head weights. "
              "Use speculative method 'dspark' instead of 'mtp'.")


def v41_target(state: State) -> bool:
    """0.30.0+ (0.33.0 speculative.py:1473-1485): an MTP draft for a DeepSeek V4.1 target is refused."""
    raw = state.model.raw_config if state.model is not None else None
    return state.release.key >= _DSPARK_V41 and isinstance(raw, dict) and raw.get("model_type") == "deepseek_v41"


def parse_mtp_target(state: State, cfg: dict) -> bool:
    """0.33.0 hf_config_override (speculative.py:718-731): a Nemotron Parse 3.5 checkpoint
    (RadioMBartPrefixForCausalLM whose decoder has a causal vision prefix) is an MTP draft,
    ParseAuxMTPModel with one step."""
    decoder = cfg.get("decoder")
    return state.release.key >= (0, 33, 0) and (cfg.get("architectures") or [None])[0] == "RadioMBartPrefixForCausalLM" \
        and isinstance(decoder, dict) and bool(decoder.get("causal_vision_prefix"))


def muse_glimmer(state: State, archs: list[str]) -> bool:
    """0.28.0+ method detection (0.33.0 speculative.py:1449-1454): Muse Glimmer's assistant head is
    a DFlash draft whatever its path says."""
    return state.release.key >= (0, 28, 0) and "MuseGlimmerAssistantModel" in archs


# ------------------------------------------------------------ Qwen3-Omni DSpark (0.29.0+)
# `_validate_qwen3_omni_dspark` (0.29.0 speculative.py:145-390, unchanged to 0.33.0 :167-389, called
# after the DSpark top-k, 0.33.0 :1673): a Qwen3-Omni target (model type qwen3_omni_moe or one of
# its classes) takes only a standalone Qwen3OmniDSparkModel draft whose config matches the
# thinker's text_config. Each check in vLLM's order; the draft's config values as
# `_get_qwen3_dspark_value` reads them (dflash_config, then eagle_config, then the top level).
_OMNI_DSPARK = (0, 29, 0)
_OMNI_TARGET_ARCHS = ("Qwen3OmniMoeForConditionalGeneration", "Qwen3OmniMoeThinkerForConditionalGeneration")
# Qwen3OmniMoeTextConfig's defaults where the checkpoint leaves the thinker's text_config out
_OMNI_TEXT_DEFAULTS = {"hidden_size": 2048, "num_attention_heads": 28, "num_key_value_heads": 4,
                       "num_hidden_layers": 28, "vocab_size": 3584}
_QWEN3_DRAFT_HEAD_DIM = 128  # Qwen3Config's head_dim when config.json has none
_OMNI = "Qwen3-Omni DSpark"


def _nested(cfg: dict, section: str, name: str) -> Any:
    sub = cfg.get(section)
    return sub.get(name) if isinstance(sub, dict) else None


def _dspark_value(cfg: dict, name: str) -> Any:
    value = _nested(cfg, "dflash_config", name)
    if value is None:
        value = _nested(cfg, "eagle_config", name)
    return cfg.get(name) if value is None else value


def _pos_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def _head_dim(cfg: dict) -> Any:
    if cfg.get("head_dim") is not None:
        return cfg["head_dim"]
    hidden, heads = cfg.get("hidden_size"), cfg.get("num_attention_heads")
    if isinstance(hidden, int) and isinstance(heads, int) and heads > 0 and hidden % heads == 0:
        return hidden // heads
    return None


def _omni_target_text(state: State) -> dict | None:
    """The target's thinker text_config (defaults filled in) when the target is Qwen3-Omni."""
    raw = state.model.raw_config if state.model is not None else None
    if not isinstance(raw, dict):
        return None
    archs = set(raw.get("architectures") or ())
    if raw.get("model_type") != "qwen3_omni_moe" and not archs & set(_OMNI_TARGET_ARCHS):
        return None
    thinker = raw.get("thinker_config")
    text: Any = thinker.get("text_config") if isinstance(thinker, dict) else None
    if not isinstance(text, dict):
        text = raw.get("text_config") if isinstance(raw.get("text_config"), dict) else raw
    if raw.get("model_type") == "qwen3_omni_moe":
        text = {**_OMNI_TEXT_DEFAULTS, **text}
    return text


def qwen3_omni_dspark_message(state: State, cfg: dict, archs: list[str], n: Any) -> str | None:
    """The first Qwen3-Omni DSpark contract the draft breaks (None: it keeps them all, or the
    target is not Qwen3-Omni)."""
    text = _omni_target_text(state)
    if text is None:
        return None
    if "Qwen3OmniDSparkModel" not in set(archs) | set(cfg.get("architectures") or ()):
        return (f"{_OMNI} requires a standalone draft checkpoint with architectures=['Qwen3OmniDSparkModel']; "
                "generic Qwen3DSparkModel checkpoints must be converted first.")
    block = _dspark_value(cfg, "block_size")
    if block is None:
        block = _dspark_value(cfg, "dspark_block_size")
    if not _pos_int(block):
        return f"{_OMNI} requires a positive integer block_size in the draft config."
    if n != block:
        return f"{_OMNI} requires num_speculative_tokens to match the trained block_size ({block}); got {n}."
    hidden = text.get("hidden_size")
    if cfg.get("target_hidden_size") != hidden:
        return (f"{_OMNI} draft target_hidden_size must match the target text hidden size ({hidden}); "
                f"got {cfg.get('target_hidden_size')}.")
    if cfg.get("hidden_size") != hidden:
        return (f"{_OMNI} draft hidden_size must match the target thinker hidden size ({hidden}); "
                f"got {cfg.get('hidden_size')}.")
    draft = dict(cfg)
    if draft.get("model_type") == "qwen3" and draft.get("head_dim") is None:
        draft["head_dim"] = _QWEN3_DRAFT_HEAD_DIM
    for name in ("num_attention_heads", "num_key_value_heads", "head_dim"):
        if name == "head_dim":
            want, got = _head_dim(text), _head_dim(draft)
        elif name == "num_key_value_heads":
            want = text.get(name, text.get("num_attention_heads"))
            got = draft.get(name) if draft.get(name) is not None else draft.get("num_attention_heads")
        else:
            want, got = text.get(name), draft.get(name)
        if not _pos_int(want):
            return f"{_OMNI} requires a positive integer {name} in the target thinker text_config; got {want}."
        if got != want:
            return f"{_OMNI} draft {name} must match the target thinker value ({want}); got {got}."
    ids = _nested(cfg, "dflash_config", "target_layer_ids")
    for key in ("dspark_target_layer_ids", "target_layer_ids"):
        if ids is None:
            ids = cfg.get(key)
    if not isinstance(ids, list) or not ids:
        return f"{_OMNI} requires a non-empty target_layer_ids list in the draft config."
    if any(not isinstance(i, int) or isinstance(i, bool) for i in ids):
        return f"{_OMNI} target_layer_ids must contain only integers."
    if ids != sorted(set(ids)):
        return f"{_OMNI} target_layer_ids must be unique and strictly increasing."
    layers = text.get("num_hidden_layers")
    if isinstance(layers, int) and (ids[0] < 0 or ids[-1] >= layers):
        return f"{_OMNI} target_layer_ids must be zero-based text-layer indices in [0, {layers - 1}]; got {ids}."
    if _dspark_value(cfg, "use_aux_hidden_state") is not True:
        return (f"{_OMNI} requires use_aux_hidden_state=true because Omni conditioning is supplied through "
                "thinker hidden states.")
    if not _pos_int(cfg.get("markov_rank")):
        return f"{_OMNI} requires a positive integer markov_rank in the draft config."
    if cfg.get("markov_head_type") != "vanilla":
        return f"{_OMNI} currently requires markov_head_type='vanilla'; got {cfg.get('markov_head_type')!r}."
    if cfg.get("sample_from_anchor", True) is not True or cfg.get("dspark_bonus_anchor", False) is not False:
        return f"{_OMNI} requires sample_from_anchor=true and dspark_bonus_anchor=false."
    vocab, in_vocab = text.get("vocab_size"), cfg.get("vocab_size")
    if not _pos_int(in_vocab):
        return f"{_OMNI} input vocab_size must be a positive integer; got {in_vocab}."
    out_vocab = cfg.get("draft_vocab_size")
    out_vocab = in_vocab if out_vocab is None else out_vocab
    if not _pos_int(out_vocab) or not isinstance(vocab, int) or not out_vocab <= vocab:
        return (f"{_OMNI} draft_vocab_size must be a positive integer no larger than target vocab_size ({vocab}); "
                f"got {out_vocab}.")
    noise = _nested(cfg, "dflash_config", "mask_token_id")
    for key in ("mask_token_id", "dspark_noise_token_id", "pard_token", "ptd_token_id"):
        if noise is None:
            noise = cfg.get(key)
    if not isinstance(noise, int) or isinstance(noise, bool) or not 0 <= noise < in_vocab:
        return (f"{_OMNI} requires a valid mask/noise token id within the draft input vocabulary "
                f"[0, {in_vocab - 1}].")
    ropes = (cfg.get("rope_parameters"), cfg.get("rope_scaling"))
    if cfg.get("mrope_section") is not None or any(isinstance(r, dict) and "mrope_section" in r for r in ropes):
        return f"{_OMNI} draft checkpoints must use logical 1-D RoPE and must not define mrope_section."
    return None
