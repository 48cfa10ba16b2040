"""What the draft's architecture and the target's diffusion flag decide about the model runner.

`SpeculativeConfig.__post_init__` (resolve/speculative_checks.py) leaves the draft's ModelConfig
behind: its architectures after the EAGLE/DFlash renaming (`EAGLEConfig`) and its hf_config.
VllmConfig then reads them:

  * `use_v2_model_runner` (0.24.0-0.28.0) takes Model Runner V2 whatever the model for a
    diffusion target (0.24.0+), a DFlash draft that mixes sliding-window and full attention layers
    (0.26.0+) and a DFlash2 draft (0.28.0) -- `forces_v2`;
  * `_get_v1_model_runner_unsupported_features` (0.29.0+) refuses them on Model Runner V1, with
    XPress drafts, the Parse 3.5 MTP draft (0.33.0) and, from 0.31.0, every DFlash draft with a
    candidate head -- `v1_flags` (the order of the joined list: config_checks.validate_v1_runner);
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

from typing import Any

from vllm_preflight.resolve.state import State

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


def _pick(state: State, table: tuple) -> tuple[str, ...]:
    out: tuple[str, ...] = ()
    for first, names in table:
        if state.release.key >= first:
            out = names
    return out


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
    and n_predict is not read. Returns (n, n_predict)."""
    if state.release.key < _DSPARK_BLOCK_TOKENS:
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
