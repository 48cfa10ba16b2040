"""Speculators-format checkpoints: a served model whose config.json holds `speculators_config`.

`EngineArgs.create_engine_config` starts with `maybe_override_with_speculators` (0.12.0
transformers_utils/config.py:444-504 called at engine/arg_utils.py:1349-1363; 0.33.0
config.py:800-876 called at arg_utils.py:2263-2278, before the ModelConfig is built): the checkpoint's verifier
(`speculators_config.verifier.name_or_path`) becomes the served model, the checkpoint itself the
draft, and `SpeculatorsConfig.extract_vllm_speculative_config`
(transformers_utils/configs/speculators/base.py, algos.py) builds the speculative config, which
then meets the ordinary speculative checks (resolve/speculative/draft_model.py). When the checkpoint
is loaded as the draft, `SpeculatorsConfig.from_pretrained` turns it into the draft's hf config
(`draft_config` here).

What changes by release (first release of each variant, `_VARIANTS`):
  0.11.0  only "eagle3" is a speculators type; the type is checked when the speculative config
          is built (before the ModelConfig); the built config carries `target_model`, the
          transformer layer config and EAGLE-3's fields; --speculative-config is dropped
  0.16.0  the speculative config is `method` + `num_speculative_tokens` only; the type is
          checked when the draft's config is loaded (SpeculativeConfig's draft ModelConfig)
  0.20.0  "dflash"; 0.22.0 "peagle" (method eagle3 + parallel_drafting); 0.25.0 "dspark";
  0.29.0  "dflash2" (method dflash); the user's --speculative-config is merged in, with
          `method` and `model` kept from the checkpoint
  0.24.0  EAGLE-3 / PEagle refuse a transformer layer model_type other than llama/qwen3
  0.33.0  a verifier that is not a remote repository id (or exists on disk) is refused

Pure: the checkpoint's and verifier's config.json are read by the caller (modelfacts).
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from vllm_preflight.model import Assumption
from vllm_preflight.releases.versions import merged_since
from vllm_preflight.resolve.base.state import Refusal, State

# (first release, changes), read in every release's speculators/base.py and algos.py
_VARIANTS: tuple[tuple[tuple, dict], ...] = (
    ((0, 11, 0), {"types": ("eagle3",), "type_checked": "override", "merge_user": False,
                  "arch_map": False, "verifier_remote_only": False, "skip_model_type": False,
                  "renamed": {}}),
    ((0, 16, 0), {"type_checked": "draft"}),
    ((0, 19, 0), {"skip_model_type": True}),  # SpeculatorsConfig.__init__ keeps model_type "speculators"
    ((0, 20, 0), {"types": ("eagle3", "dflash")}),
    ((0, 22, 0), {"types": ("eagle3", "peagle", "dflash"), "renamed": {"peagle": "eagle3"}}),
    ((0, 24, 0), {"arch_map": True}),
    ((0, 25, 0), {"types": ("eagle3", "peagle", "dflash", "dspark")}),
    ((0, 29, 0), {"types": ("eagle3", "peagle", "dflash", "dflash2", "dspark"), "merge_user": True,
                  "renamed": {"peagle": "eagle3", "dflash2": "dflash"}}),
    ((0, 33, 0), {"verifier_remote_only": True}),
)

VERIFIER_ERROR = ("Speculators verifier must name a remote model repository. "
                  "Select local verifiers explicitly with --model and --speculative-config.")


def _rules(state: State) -> dict:
    return merged_since(_VARIANTS, state.release.key)


def is_speculators(cfg: dict | None) -> bool:
    """vLLM's test: config.json has a `speculators_config` that is not null."""
    return isinstance(cfg, dict) and cfg.get("speculators_config") is not None


def _types_text(types: tuple[str, ...]) -> str:
    """repr() of vLLM's SUPPORTED_SPECULATORS_TYPES, a dict of name -> updater function (the
    address differs in every process)."""
    return "{" + ", ".join(f"'{t}': <function update_{t} at 0x7f0000000000>" for t in types) + "}"


def _check_type(state: State, cfg: dict) -> None:
    kind = cfg.get("speculators_model_type")
    if isinstance(kind, (list, dict)):  # `in dict` hashes it first
        raise Refusal("TypeError", f"unhashable type: '{type(kind).__name__}'")
    if kind not in _rules(state)["types"]:
        raise Refusal("ValueError", f"Expected one of: {_types_text(_rules(state)['types'])}. "
                                    "Please ensure you're loading a speculators-format model.")


def _get(obj: Any, key: Any) -> Any:
    """obj[key] as Python evaluates it on JSON values; KeyError/IndexError/TypeError as there."""
    if isinstance(obj, dict):
        if isinstance(key, int):
            raise KeyError(key)
        return obj[key]
    if isinstance(obj, (list, str)):
        if not isinstance(key, int):
            raise TypeError(key)
        return obj[key]
    raise TypeError(key)


def _validate(cfg: dict) -> None:
    """SpeculatorsConfig.validate_speculators_config (the same in every release)."""
    try:
        spec = _get(cfg, "speculators_config")
        first = _get(_get(spec, "proposal_methods"), 0)
        _get(first, "speculative_tokens")
        _get(_get(spec, "verifier"), "name_or_path")
        _get(cfg, "speculators_model_type")
    except (KeyError, IndexError, TypeError):
        raise Refusal("ValueError", "Invalid speculators config structure") from None
    if "transformer_layer_config" not in cfg:
        raise Refusal("ValueError", "Must provide transformer_layer_config")
    if not isinstance(cfg["transformer_layer_config"], dict):
        raise Refusal("TypeError", "'transformer_layer_config' must be a dictionary if provided")


def _py(value: Any) -> str:
    """repr() of a JSON value as Python shows the loaded object."""
    return repr(value)


def _layer_updates(state: State, cfg: dict, out: dict) -> None:
    """The algorithm's updater (algos.py) on `out` (a copy of the transformer layer config)."""
    r = _rules(state)
    kind = cfg.get("speculators_model_type")
    if kind == "eagle3":
        out["draft_vocab_size"] = cfg.get("draft_vocab_size")
        if cfg.get("target_hidden_size") is not None:
            out["target_hidden_size"] = cfg["target_hidden_size"]
        out["norm_before_residual"] = cfg.get("norm_before_residual", True)
        out["architectures"] = [_eagle_arch(state, out, "Eagle3", "Eagle3")] if r["arch_map"] \
            else ["Eagle3LlamaForCausalLM"]
    elif kind == "peagle":
        out["draft_vocab_size"] = cfg.get("draft_vocab_size")
        out["architectures"] = [_eagle_arch(state, out, "Peagle", "PEagle")]
        out["pard_token"] = _key(cfg, "mask_token_id")
    elif kind in ("dflash", "dflash2"):
        out["architectures"] = ["DFlash2DraftModel" if kind == "dflash2" else "DFlashDraftModel"]
        aux = _key(cfg, "aux_hidden_state_layer_ids")
        out["eagle_aux_hidden_state_layer_ids"] = aux
        out["dflash_config"] = {"mask_token_id": _key(cfg, "mask_token_id")}
    elif kind == "dspark":
        archs = [a for a in (cfg.get("architectures") or []) if a in ("Qwen3DSparkModel", "Qwen3OmniDSparkModel")]
        out["architectures"] = archs or ["Qwen3DSparkModel"]
        out["eagle_aux_hidden_state_layer_ids"] = _key(cfg, "aux_hidden_state_layer_ids")


def _key(cfg: dict, key: str) -> Any:
    if key not in cfg:
        raise Refusal("KeyError", repr(key))
    return cfg[key]


def _eagle_arch(state: State, layer: dict, prefix: str, name: str) -> str:
    """0.24.0+: the class by the layer config's model_type (llama when it has none)."""
    if not _rules(state)["arch_map"]:
        return f"{prefix}LlamaForCausalLM"
    model_type = layer.get("model_type", "llama")
    names = {"qwen3": f"{prefix}Qwen3ForCausalLM", "llama": f"{prefix}LlamaForCausalLM"}
    if isinstance(model_type, (list, dict)) or model_type not in names:
        raise Refusal("ValueError", f"Unsupported model_type {model_type} for {name} speculator")
    return names[model_type]


def _build(state: State, cfg: dict) -> dict:
    """build_vllm_speculative_config (+ the old releases' layer config and algorithm fields)."""
    spec_config = cfg["speculators_config"]
    methods = spec_config.get("proposal_methods")
    if not methods:
        raise Refusal("ValueError", "No proposal methods found in speculators config")
    first = methods[0]
    n = first.get("speculative_tokens")
    if n is None:
        raise Refusal("ValueError", f"Missing 'speculative_tokens' in proposal method. Got: {_py(first)}")
    kind = cfg.get("speculators_model_type")
    out: dict = {"method": kind, "num_speculative_tokens": n}
    if _rules(state)["type_checked"] == "override":  # 0.11.0-0.15.x
        out["target_model"] = spec_config.get("verifier")["name_or_path"]
        out.update(cfg.get("transformer_layer_config", {}))
        _layer_updates(state, cfg, out)
        return out
    renamed = _rules(state)["renamed"]  # build_vllm_speculative_config's method renames
    if isinstance(kind, str) and kind in renamed:
        out["method"] = renamed[kind]
        if kind == "peagle":
            out["parallel_drafting"] = True
    return out


def speculative_config(state: State, cfg: dict) -> dict:
    """SpeculatorsConfig.extract_vllm_speculative_config for this release."""
    if _rules(state)["type_checked"] == "override":
        _check_type(state, cfg)
    _validate(cfg)
    return _build(state, cfg)


# huggingface_hub.utils.validate_repo_id
_REPO_ID = re.compile(r"^(\b[\w\-.]+\b/)?\b[\w\-.]{1,96}\b$")


def _is_repo_id(name: str) -> bool:
    return name.count("/") <= 1 and bool(_REPO_ID.match(name)) and "--" not in name and ".." not in name \
        and not name.endswith(".git")


def override(state: State, values: dict, model: str, cfg: dict,
             exists: Callable[[str], bool]) -> Any:
    """maybe_override_with_speculators: returns the verifier (the model vLLM now serves) and puts
    the built speculative config in `values`. `exists(name)`: whether the name is a path on disk
    (0.33.0 refuses such a verifier)."""
    r = _rules(state)
    spec = speculative_config(state, cfg)
    method = spec["method"]
    user = values.get("speculative_config")
    if isinstance(user, str):
        try:
            user = json.loads(user)
        except ValueError:
            pass
    if r["merge_user"] and isinstance(user, dict):
        spec.update(user)
        spec["method"] = method
    elif user is not None:
        state.assumptions.append(Assumption("speculative_config", "the checkpoint's",
                                            f"vLLM {state.release.version} builds the speculative config from the "
                                            f"speculators checkpoint and drops --speculative-config"))
    spec["model"] = model
    verifier = cfg["speculators_config"]["verifier"]["name_or_path"]
    if r["verifier_remote_only"] and (not isinstance(verifier, str) or not _is_repo_id(verifier)
                                      or exists(verifier)):
        raise Refusal("ValueError", VERIFIER_ERROR)
    if not isinstance(verifier, str):
        # before 0.33.0: ModelConfig's `model: str` field refuses it, and from 0.13.0 its `tokenizer: str`
        # too (the verifier is the tokenizer as well; 0.12.0 config/model.py:137 skipped its validation)
        shown = f"Input should be a valid string [type=string_type, input_value={verifier!r}, " \
                f"input_type={type(verifier).__name__}]"
        if state.release.key < (0, 13, 0):
            raise Refusal("ValidationError", f"1 validation error for ModelConfig\nmodel\n  {shown}")
        raise Refusal("ValidationError", f"2 validation errors for ModelConfig\nmodel\n  {shown}\n"
                                         f"tokenizer\n  {shown}")
    values["speculative_config"] = spec
    state.assumptions.append(Assumption("speculators_config.verifier", verifier,
                                        f"the verifier of the speculators-format checkpoint {model} "
                                        f"(speculators_config.verifier.name_or_path): vLLM serves it, with the "
                                        f"checkpoint as the {method} draft"))
    return verifier


def draft_config(state: State, cfg: dict) -> dict:
    """The draft's hf config when a speculators checkpoint is loaded as the draft
    (SpeculatorsConfig.from_pretrained): the transformer layer config with the algorithm's
    fields; model_type "speculators" (0.19.0+; before, the layer config's own)."""
    r = _rules(state)
    if r["type_checked"] == "override":
        out = speculative_config(state, cfg)
    else:
        _check_type(state, cfg)
        layer = cfg.get("transformer_layer_config", {})
        if not isinstance(layer, dict):
            raise Refusal("TypeError", "'transformer_layer_config' must be a dictionary if provided")
        out = dict(layer)
        _layer_updates(state, cfg, out)
    if r["skip_model_type"] or "model_type" not in out:
        out["model_type"] = "speculators"
    return out


def serve_verifier(state: State, parsed: Any, base_dir: str | None) -> None:
    """create_engine_config's first step: when the served model is a speculators-format
    checkpoint (a local folder whose config.json holds `speculators_config`), serve its verifier
    with the checkpoint as the draft (`parsed` gets the new model and speculative config). A hub
    id's config.json is read from the cache or the Hub (modelfacts.local_config)."""
    from vllm_preflight.modelfacts import local_config, path_exists
    from vllm_preflight.resolve.model.model_config import model_name

    model = model_name(parsed)
    if not isinstance(model, str) or model.startswith(("s3://", "gs://", "az://")):
        return  # cloud storage is skipped (engine/arg_utils.py `is_cloud_storage`)
    revision = parsed.values.get("revision")  # maybe_override_with_speculators(..., revision=...)
    cfg = local_config(model, base_dir, revision if isinstance(revision, str) else None, state.env)
    if not is_speculators(cfg):
        return
    assert cfg is not None
    verifier = override(state, parsed.values, model, cfg, lambda name: path_exists(name, base_dir))
    if parsed.model_tag:
        parsed.model_tag = verifier
    else:
        parsed.values["model"] = verifier


def speculators_checkpoint(state: State, values: dict) -> None:
    """maybe_override_with_speculators, before the model config is built."""
    serve_verifier(state, state.parsed, state.base_dir)
