"""VllmConfig._get_quantization_config (vllm/config/vllm.py) -> get_quant_config: the quantization
config class the release maps the method to, built from the checkpoint's config (from_config),
its minimum capability and activation dtypes; ModelOpt's algorithms and field types."""
from __future__ import annotations

from dataclasses import replace

from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.model.quantization import (
    _MODELOPT_FP8_ALGOS,
    _REQUIRED_KEYS,
    _modelopt_algo,
    _pyd,
    _vt,
    model_dtype,
    release_facts,
)
from vllm_preflight.resolve.quantization.methods import (
    _auto_round,
    _compressed_tensors_groups,
    _fp8,
    _get_from_keys,
    _in,
    _quark,
)

# --------------------------------------------------------------- VllmConfig
_CTOR_ERRORS: dict[str, list[tuple[str, tuple[str, str]]]] = {
    # a method whose no-argument build fails other than by missing arguments, by first release
    "ptpc_fp8": [("0.11.0", ("ValueError", "ptpc_fp8 quantization is supported only on ROCm."))],
}


# get_min_capability raising (first release, first release without it, the refusal)
_CAP_ERRORS: dict[str, tuple[str, str, tuple[str, str]]] = {
    # INCConfig.get_min_capability: `raise AssertionError` (0.12.0 inc.py:60-61); pydantic
    # words an empty assertion so
    "inc": ("0.11.0", "0.15.0", ("ValidationError", "1 validation error for VllmConfig\n  Assertion failed, ")),
    # Int8TpuConfig.get_min_capability (tpu_int8.py)
    "tpu_int8": ("0.11.0", "9.0.0", ("NotImplementedError", "This function should not be called with TPU Backend")),
}


def _missing_args(owner: str, names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        listed = quoted[0]
    elif len(quoted) == 2:
        listed = f"{quoted[0]} and {quoted[1]}"
    else:
        listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    s = "" if len(names) == 1 else "s"
    return f"{owner}.__init__() missing {len(names)} required positional argument{s}: {listed}"


# BitBLASConfig / GPTQBitBLASConfig import the bitblas package when built (0.12.0
# bitblas.py:55-71); it is taken as not installed (as on the oracle)
_BITBLAS_MISSING = ("Trying to use the bitblas backend, but could not importwith the following error: No module "
                    "named 'bitblas'. Please install bitblas through the following command: "
                    "`pip install bitblas>=0.1.0`")


def _py_type(x) -> str:
    """`type(x)` as Python prints it, for a JSON value."""
    return f"<class '{type(x).__name__}'>"


def _int_text(x) -> bool:
    """Whether int(x) succeeds for a JSON value that is not a number."""
    if not isinstance(x, str):
        return False
    try:
        int(x)
    except ValueError:
        return False
    return True


def _modelopt_types(q: dict, flat: dict, v: tuple) -> None:
    """ModelOptQuantConfigBase.from_config (0.12.0+): the kv-cache algo, the excluded modules and
    the group size are type-checked (0.12.0 modelopt.py:240-265, 0.33.0 modelopt.py:367-394).
    config.json's flat layout names the kv-cache algo `kv_cache_quant_algo` before 0.17.0 and
    reads a `kv_cache_scheme` dict from 0.17.0 (never refused); its excluded modules are
    `ignore`, falling back to `exclude_modules` from 0.33.0."""
    legacy = flat is not q
    kv = flat.get("kv_cache_quant_algo") if legacy or v < (0, 17, 0) else None
    if kv is not None and not isinstance(kv, str):
        raise _pyd("VllmConfig", f"kv_cache_quant_algo must be a string, got {_py_type(kv)}")
    if legacy:
        excluded = flat.get("exclude_modules", [])
    else:
        excluded = q.get("ignore", q.get("exclude_modules", []) if v >= (0, 33, 0) else [])
    if not isinstance(excluded, list):
        raise _pyd("VllmConfig", f"exclude_modules must be a list, got {_py_type(excluded)}")
    group = flat.get("group_size")
    if group is not None and not isinstance(group, (int, float)) and not _int_text(group):
        raise _pyd("VllmConfig", f"group_size must be an integer, got {_py_type(group)}")


_TORCHAO_MISSING = ("Please install torchao>=0.10.0 via `pip install torchao>=0.10.0` to use torchao "
                    "quantization.")


def _quark_update(q: dict | None, v: tuple) -> None:
    """QuarkConfig.maybe_update_config (0.17.0-0.19.x, after the capability and dtype
    checks): every Quark checkpoint's global_quant_config.weight.dtype is read by key."""
    if q is None or not (0, 17, 0) <= v < (0, 20, 0):
        return
    node = q
    for key in ("global_quant_config", "weight", "dtype"):
        if not isinstance(node, dict):
            return  # not read as written here: left to vLLM
        if key not in node:
            raise Refusal("KeyError", repr(key))
        node = node[key]


_BLOCK_FP8_MOE_ALGOS = ("FP8_PB_WO", "FP8_BLOCK_SCALES")  # 0.30.0+ modelopt.py


_MODELOPT_CLASSES = ("ModelOptFp8Config", "ModelOptNvFp4Config", "ModelOptMxFp8Config", "ModelOptMixedPrecisionConfig")


# ModelOpt's QUANT_ALGOS by first release (modelopt.py; 0.30.0+ the LINEAR_ALGOS keys + MIXED_PRECISION)
_MODELOPT_QUANT_ALGOS = (
    ((0, 14, 0), ("FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_PB_WO", "NVFP4")),
    ((0, 16, 0), ("FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_PB_WO", "NVFP4", "MXFP8")),
    ((0, 17, 0), ("FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_PB_WO", "NVFP4", "MXFP8", "MIXED_PRECISION")),
    ((0, 21, 0), ("FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_PB_WO", "NVFP4", "W4A16_NVFP4", "MXFP8",
                  "MIXED_PRECISION")),
)


def _minimax_mxfp8(q: dict, v: tuple) -> bool:
    """ModelOptMxFp8Config.from_config (0.24.0+, 0.33.0 modelopt.py:1245-1259): a config with
    neither a `quantization` section nor a quant_algo is read as MXFP8 (MiniMax's layout)."""
    return v >= (0, 24, 0) and "quantization" not in q and not q.get("quant_algo")


def _modelopt_class(cls_name: str, q: dict, sub, algo: str, v: tuple) -> None:
    """0.14.0+: the upper-cased algo against the release's QUANT_ALGOS (the base from_config),
    then the class's own algo checks (0.33.0 modelopt.py:396-402, 430, 760, 1217, 1280, 1686, 1621)."""
    algos = next(a for first, a in reversed(_MODELOPT_QUANT_ALGOS) if v >= first)
    if algo not in algos:
        raise _pyd("VllmConfig", f"ModelOpt currently only supports: {list(algos)} quantizations in vLLM. "
                                 "Please check the `hf_quant_config.json` file for your model's quant "
                                 "configuration.")
    if cls_name == "ModelOptFp8Config" and algo not in _MODELOPT_FP8_ALGOS:  # 0.14.0+ __init__
        raise _pyd("VllmConfig", f"Unsupported ModelOpt FP8 quant_algo for vLLM: {algo}. Supported: "
                                 f"{' / '.join(_MODELOPT_FP8_ALGOS)}.")
    if cls_name == "ModelOptNvFp4Config" and v >= (0, 21, 0) and algo not in ("NVFP4", "W4A16_NVFP4"):
        raise _pyd("VllmConfig", f"Unsupported ModelOpt NVFP4 quant_algo: {algo}. Supported: NVFP4 / W4A16_NVFP4.")
    if cls_name == "ModelOptMxFp8Config":  # 0.16.0+ _from_config, then __init__
        if "MXFP8" in algo and isinstance(sub, dict):
            missing = [f for f in ("kv_cache_quant_algo", "exclude_modules") if f not in sub]
            if missing:
                raise _pyd("VllmConfig", "MXFP8 quantization requires the following fields in "
                                         f"hf_quant_config.json: {missing}")
        if "MXFP8" not in algo:
            raise _pyd("VllmConfig", "MXFP8 quantization requires a serialized checkpoint. "
                                     "Dynamic quantization is not supported.")
    if cls_name == "ModelOptMixedPrecisionConfig":  # 0.17.0+ _from_config, 0.30.0+ __init__
        layers = sub.get("quantized_layers", {}) if isinstance(sub, dict) else q.get("quantized_layers", {})
        if not layers:
            raise _pyd("VllmConfig", "MIXED_PRECISION quant_algo requires a non-empty 'quantized_layers' "
                                     "mapping in the quantization config.")
        if v >= (0, 32, 0) and isinstance(layers, dict):
            _block_contracts(layers)
        if v >= (0, 30, 0) and isinstance(layers, dict) and all(isinstance(x, dict) for x in layers.values()):
            sizes = {x.get("group_size", 128) for x in layers.values()
                     if isinstance(x.get("quant_algo", ""), str)
                     and x.get("quant_algo", "").upper() in _BLOCK_FP8_MOE_ALGOS}
            if len(sizes) > 1 and all(type(s) is int for s in sizes):
                raise _pyd("VllmConfig", "MIXED_PRECISION currently requires all block-FP8 MoE layers to use "
                                         f"one group_size, got {sorted(sizes)}.")


# The b12x block codecs (0.32.0+ utils/b12x.py): logical elements and encoded bytes per block
_B12X_BLOCK_CODECS = {"iq2_xs": (256, 74), "iq2_xxs": (256, 66), "q8_0": (32, 34)}


def _block_contracts(layers: dict) -> None:
    """ModelOptMixedPrecisionConfig.__init__ (0.32.0+, 0.33.0 modelopt.py:1598-1610): a layer whose
    quant_algo names a b12x codec must carry that codec's group size, payload bytes and ggml packing.
    Python's `!=`, so 256.0 passes for 256 as it does in vLLM; the recipe prints as Python's repr."""
    for prefix, recipe in layers.items():
        algo = recipe.get("quant_algo", "") if isinstance(recipe, dict) else None
        if not isinstance(algo, str):
            return  # vLLM fails on the .lower() of a non-string: not read as written here, left to vLLM
        codec = algo.lower()
        if codec not in _B12X_BLOCK_CODECS:
            continue
        group, payload = _B12X_BLOCK_CODECS[codec]
        if any(recipe.get(k) != want for k, want in (("group_size", group), ("block_payload_bytes", payload),
                                                     ("packing", "ggml"))):
            raise _pyd("VllmConfig", f"unsupported {codec.upper()} block contract for {prefix}: {recipe}")


def _removed_classes(cls_name: str, q: dict) -> None:
    """The constructors of the methods removed in 0.15.0 (hqq, rtn, deepspeedfp) and 0.16.0
    (gptq_marlin_24), as 0.12.0 has them: gptq_marlin_24.py:38-63 / 109-112, hqq_marlin.py:44-55 /
    85-90, rtn.py:54-66 / 94-97, deepspeedfp.py:27-42 / 55-58."""
    if cls_name == "HQQMarlinConfig":
        node = q
        for key in ("quant_config", "weight_quant_params"):
            if not isinstance(node, dict):
                return  # not read as written here: left to vLLM
            if key not in node:
                raise Refusal("KeyError", repr(key))
            node = node[key]
        if not isinstance(node, dict):
            return
        bits, group = _get_from_keys(node, ["nbits"]), _get_from_keys(node, ["group_size"])
        if "skip_modules" not in q:
            raise Refusal("KeyError", "'skip_modules'")
        for ok, msg in ((group == 64, "The only supported HQQ group size is currently 64."),
                        (bits == 4, "The only supported HQQ quantization bitsize is currently 4.")):
            if not ok:
                raise Refusal("ValidationError", f"1 validation error for VllmConfig\n  Assertion failed, {msg}")
        return
    bits, group = q["bits"], q["group_size"]
    if isinstance(bits, (list, dict)):
        return  # not read as written here: left to vLLM
    if cls_name == "GPTQMarlin24Config":
        if bits not in (4, 8) or isinstance(bits, bool):
            raise _pyd("VllmConfig", "Marlin_24 does not support quant_type = None. Only weight_bits = "
                                     "[ScalarType.uint4b8, ScalarType.uint8b128] are supported.")
        if not isinstance(group, (list, dict)) and group not in (-1, 128):
            raise _pyd("VllmConfig", f"Marlin_24 does not support group_size = {group}. Only group_sizes = "
                                     "[-1, 128] are supported.")
    if cls_name == "RTNConfig" and bits != 4 and bits != 8:
        raise _pyd("VllmConfig", "Currently, only 4-bit or 8-bit weight quantization is supported for RTN, "
                                 f"but got {bits} bits.")
    if cls_name == "DeepSpeedFPConfig" and bits not in (6, 8):
        raise _pyd("VllmConfig", "Currently, only 6-bit or 8-bit weight quantization are supported for "
                                 f"DeepSpeed FP quantizaiton, but got {bits} bits.")


def _from_checkpoint(cls_name: str, q: dict, v: tuple) -> None:
    """The checks a config class's from_config / __init__ makes on the checkpoint's config
    (the ones that refuse a config.json vLLM otherwise accepts), by the class the release
    maps the method to (releases/data/quantization.json `class`)."""
    for keys in _REQUIRED_KEYS.get(cls_name, []):
        _get_from_keys(q, keys)
    if cls_name == "MoeWNA16Config":
        method = q.get("quant_method")
        if method == "gptq":
            _get_from_keys(q, ["sym"])
        elif method == "awq" or (v >= (0, 24, 0) and method == "awq_marlin"):
            _get_from_keys(q, ["zero_point"])
        else:
            raise _pyd("VllmConfig", "moe_wna16 only support gptq and awq.")
    if cls_name in ("BitBLASConfig", "GPTQBitBLASConfig"):
        raise _pyd("VllmConfig", _BITBLAS_MISSING)
    if cls_name in _MODELOPT_CLASSES and (cls_name != "ModelOptMxFp8Config" or not _minimax_mxfp8(q, v)):
        # ModelOptQuantConfigBase.from_config (0.12.0 modelopt.py:208-271): the algo must be given;
        # before 0.14.0 it is compared as written with ["FP8", "NVFP4"] (upper-cased from 0.14.0,
        # against a longer list the overrides already keep to)
        sub = q.get("quantization")
        algo = sub.get("quant_algo") if isinstance(sub, dict) else q.get("quant_algo") if "quantization" not in q \
            else None
        if "quantization" in q and not isinstance(sub, dict):
            raise _pyd("VllmConfig", "Expected 'quantization' to be a dictionary in config")
        if not algo:
            raise _pyd("VllmConfig", "Missing 'quant_algo' in quantization config")
        if v >= (0, 12, 0):
            _modelopt_types(q, sub if isinstance(sub, dict) else q, v)
        if v < (0, 14, 0) and algo not in ("FP8", "NVFP4"):
            raise _pyd("VllmConfig", "ModelOpt currently only supports: ['FP8', 'NVFP4'] quantizations in vLLM. "
                                     "Please check the `hf_quant_config.json` file for your model's quant "
                                     "configuration.")
        if v >= (0, 14, 0):
            _modelopt_class(cls_name, q, sub, str(algo).upper(), v)
        if cls_name == "ModelOptNvFp4Config" and "NVFP4" in str(algo).upper() and isinstance(sub, dict):
            # ModelOptNvFp4Config._from_config (0.12.0 modelopt.py:876-889): the legacy layout
            # must name all three
            missing = [f for f in ("group_size", "kv_cache_quant_algo", "exclude_modules") if f not in sub]
            if missing:
                raise _pyd("VllmConfig", "NVFP4 quantization requires the following fields in "
                                         f"hf_quant_config.json: {missing}")
    if cls_name in ("GPTQMarlin24Config", "HQQMarlinConfig", "RTNConfig", "DeepSpeedFPConfig"):
        _removed_classes(cls_name, q)
    if cls_name == "CompressedTensorsConfig":
        _compressed_tensors_groups(q, v)
    if cls_name == "Fp8Config":
        _fp8(q, v)
    if cls_name == "QuarkConfig":
        _quark(q)
    if cls_name == "FPQuantConfig":  # fp_quant.py from_config / __init__ (0.12.0:49-89; 0.23.0 drops pseudoquantization)
        pseudo = v < (0, 23, 0)
        for key in ["hadamard_group_size", "forward_dtype", "forward_method"] + (["pseudoquantization"] if pseudo else []) \
                + ["modules_to_not_convert"]:
            _get_from_keys(q, [key])
        if pseudo and q["pseudoquantization"]:
            raise _pyd("VllmConfig", "Pseudoquantization is not supported for vLLM")
    if cls_name in ("AutoRoundConfig", "INCConfig"):
        _auto_round(q, v)
    if cls_name == "BitsAndBytesConfig":  # bitsandbytes.py __init__ (0.12.0:60-63; until 0.27.x)
        storage = q.get("bnb_4bit_quant_storage")
        storage = "uint8" if storage is None else storage
        if not _in(storage, ("uint8",)):
            raise _pyd("VllmConfig", f"Unsupported bnb_4bit_quant_storage: {storage}")
    if cls_name == "TorchAOConfig":  # torchao.py from_config (0.12.0:154-162, the same in 0.11.0-0.33.0)
        raise Refusal("ImportError", _TORCHAO_MISSING)
    bits = q.get("w_bit", q.get("bits")) if cls_name in ("AWQConfig", "AutoAWQConfig") else q.get("bits")
    if cls_name == "GPTQConfig" and bits not in (2, 3, 4, 8):  # gptq.py:91-95 (0.12.0)
        raise _pyd("VllmConfig", "Currently, only 2/3/4/8-bit weight quantization is supported for GPTQ, "
                                 f"but got {bits} bits.")
    if cls_name == "AWQConfig" and bits != 4:  # awq.py:51-55 (0.12.0)
        raise _pyd("VllmConfig", f"Currently, only 4-bit weight quantization is supported for AWQ, but got "
                                 f"{bits} bits.")
    if cls_name == "AutoAWQConfig" and bits != 4:  # auto_awq.py:204-210 (0.33.0), since 0.24.0
        raise _pyd("VllmConfig", f"Unsupported num_bits = {bits}. Supported: 4. For 8-bit AWQ, use Marlin "
                                 "backend by setting backend='awq:marlin' or backend='marlin'.")
    if cls_name == "AutoGPTQConfig":  # auto_gptq.py __init__ (0.33.0:104-156), since 0.22.0
        group, sym, desc = q.get("group_size"), q.get("sym"), q.get("desc_act")
        if v >= (0, 30, 0) and desc and group != -1:  # utils/gptq_utils.py:23-37
            raise _pyd("VllmConfig", "GPTQ group activation ordering (desc_act=True) is no longer supported. "
                                     "Use a checkpoint with static activation ordering or desc_act=False.")
        if (bits, sym) not in ((4, True), (8, True)):
            raise _pyd("VllmConfig", f"Unsupported quantization config: bits={bits}, sym={sym}")


@reads("quantization", "dtype", model=("quantized",))
def verify_config(state: State, values: dict) -> None:
    """VllmConfig._get_quantization_config: build the method's config, then its capability
    and activation dtype checks."""
    facts = state.facts
    method = state.model_cfg.get("quantization")
    if method is None or state.model_cfg.get("quant_unread"):
        return
    rel = release_facts(state.release.version)
    if rel is None:
        return
    v = _vt(state.release.version)
    classes = rel.get("classes") or {}
    cls = classes.get(method)
    q = state.model_cfg.get("quant_config")
    if method == "modelopt_mixed" and q is not None and "quantized_layers" not in q and v >= (0, 17, 0):
        q = None  # its per-layer map is read from hf_quant_config.json instead (weight_utils, 0.17.0+)
    shorthand = q is None and v >= (0, 22, 0) and method in (rel.get("online_shorthands") or []) and method != "fp8"
    if shorthand:
        # an online-quantization shorthand builds OnlineQuantizationConfig (0.22.0+: EngineArgs resolves
        # it into model_config.quantization_config, which weight_utils.get_quant_config builds from;
        # 0.30.0+ the ambiguous mxfp4/mxfp8 are resolved there too)
        cls = classes.get("online")
    if cls is None:
        return
    if shorthand:
        pass
    elif method in ("gguf", "inc") and not (method == "inc" and v >= (0, 15, 0)):
        pass  # built with no arguments, no config file (weight_utils.get_quant_config)
    elif q is not None:
        _from_checkpoint(cls.get("class", ""), q, v)
    elif method == "bitsandbytes":
        pass  # in-flight quantization: from_config({})
    else:
        files = cls.get("config_filenames")
        if files:
            # the model folder holds only config.json here (an Assumption for a hub id)
            raise _pyd("VllmConfig", f"Cannot find the config file for {method}")
        for first, (typ, msg) in reversed(_CTOR_ERRORS.get(method, [])):
            if v >= _vt(first):
                raise (_pyd("VllmConfig", msg) if typ == "ValueError" else Refusal(typ, msg))
        if files is not None and cls.get("init_required"):
            raise Refusal("TypeError", _missing_args(cls["init_owner"], cls["init_required"]))
    cap = cls.get("min_capability")
    if cap is None and method in _CAP_ERRORS:  # get_min_capability itself raises
        first, until, (typ, msg) = _CAP_ERRORS[method]
        if _vt(first) <= v < _vt(until):
            raise Refusal(typ, msg)
    gpu_cap = state.gpu.cc
    if isinstance(cap, int) and gpu_cap < cap:
        raise _pyd("VllmConfig", f"The quantization method {method} is not supported for the current GPU. "
                                 f"Minimum capability: {cap}. Current capability: {gpu_cap}.")
    dtypes = cls.get("act_dtypes")
    dtype = model_dtype(facts, values, state.model_cfg.get("is_pooling"))
    if dtypes and dtype is not None and dtype not in dtypes:
        shown = ", ".join(f"torch.{d}" for d in dtypes)
        raise _pyd("VllmConfig", f"torch.{dtype} is not supported for quantization method {method}. "
                                 f"Supported dtypes: [{shown}]")
    if method == "quark":
        _quark_update(q, v)
    blocked = _blocked_weights(method, q, v, state.model.blocked_fp8 if state.model is not None else False)
    if state.model is not None and blocked != state.model.blocked_fp8:
        # the +quant_fp8 custom op follows the built config's blocked weights (VllmConfig
        # has_blocked_weights, 0.12.0 config/vllm.py:608-623), not config.json's fp8 keys alone
        old = state.model
        state.model = replace(old, blocked_fp8=blocked)
        state.model.__dict__.update({k: x for k, x in old.__dict__.items() if k.startswith("_")})


def _blocked_weights(method: str, q: dict | None, v: tuple, fp8_blocked: bool) -> bool:
    """The built quant config's `weight_block_size` / `has_blocked_weights()`."""
    if q is None:
        return False
    if method in ("fp8", "deepseek_v4_fp8"):
        # Fp8Config.weight_block_size, from the checkpoint's config (also a text_config's)
        return q.get("weight_block_size") is not None or fp8_blocked
    if method == "compressed-tensors" and v >= (0, 11, 1):  # compressed_tensors.py:791-799 (0.12.0)
        groups = q.get("config_groups")
        return isinstance(groups, dict) and any(
            isinstance(g, dict) and isinstance(g.get("weights"), dict) and g["weights"].get("strategy") == "block"
            for g in groups.values())
    if method == "modelopt" and v >= (0, 30, 0):  # modelopt.py:435-440 (0.33.0)
        return (_modelopt_algo(q, v) or "").upper() == "FP8_PB_WO"
    if method == "modelopt_mixed" and v >= (0, 30, 0):  # any block-FP8 layer (0.33.0 modelopt.py:1632-1638)
        sub = q.get("quantization")
        layers = sub.get("quantized_layers", {}) if isinstance(sub, dict) else q.get("quantized_layers", {})
        return isinstance(layers, dict) and any(
            isinstance(x, dict) and isinstance(x.get("quant_algo", ""), str)
            and x.get("quant_algo", "").upper() in _BLOCK_FP8_MOE_ALGOS for x in layers.values())
    return False
