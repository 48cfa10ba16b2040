"""The quantization config classes' own checks of a checkpoint's config (from_config / __init__):
compressed-tensors config groups, Fp8Config, Quark, AutoRound / INC."""
from __future__ import annotations

import fnmatch

from vllm_preflight.resolve.base.state import Refusal
from vllm_preflight.resolve.model.quantization import _pyd
from vllm_preflight.resolve.quantization.compressed_tensors import quantization_args, sparsity_targets, transform_config


def _get_from_keys(q: dict, keys: list[str]):
    for k in keys:
        if k in q:
            return q[k]
    raise _pyd("VllmConfig", f"Cannot find any of {keys} in the model's quantization config.")


# compressed-tensors formats that quantize activations (compressed_tensors/utils.py, 0.12.0-0.33.0)
_CT_ACT_FORMATS = ("naive-quantized", "int-quantized", "float-quantized", "nvfp4-pack-quantized")


def _not_iterable(x) -> Refusal | None:
    """The TypeError `for t in x` raises for a JSON value (None when it iterates)."""
    if x is None or isinstance(x, (bool, int, float)):
        return Refusal("TypeError", f"'{type(x).__name__}' object is not iterable")
    return None


def _compressed_tensors_groups(q: dict, v: tuple) -> None:
    """CompressedTensorsConfig.from_config (0.12.0 compressed_tensors.py:189-277; 0.33.0
    compressed_tensors.py:235-385): from 0.15.0 groups quantizing one *Attention target are
    dropped first (reading `targets` by key; 0.15.0-0.16.x read `config_groups` by key too);
    then, per group target, its weights are validated as QuantizationArgs (the library's
    pydantic model: resolve/quantization/compressed_tensors.py), from 0.30.0 group/dynamic activation
    ordering is refused, a group in an activation-quantizing format without input_activations
    must have float weights (a bare assert), its input_activations and (0.23.0+)
    output_activations are validated as QuantizationArgs; then `sparsity_config` is validated
    (from 0.22.0 any sparsity target is refused with a DeprecationWarning), then a
    `transform_config` as the library's TransformConfig."""
    if (0, 15, 0) <= v < (0, 17, 0) and "config_groups" not in q:
        raise Refusal("KeyError", "'config_groups'")
    groups = q.get("config_groups")
    if groups is None and "config_groups" not in q:
        groups = {}
    if not isinstance(groups, dict):
        return  # not read as written here: left to vLLM
    kept = {}
    for name, g in groups.items():
        if not isinstance(g, dict):
            return  # not read as written here: left to vLLM
        if v >= (0, 15, 0):  # 0.33.0 compressed_tensors.py:240-246
            if "targets" not in g:
                raise Refusal("KeyError", "'targets'")
            t = g["targets"]
            if t is None or isinstance(t, (bool, int, float)):
                raise Refusal("TypeError", f"object of type '{type(t).__name__}' has no len()")
            if not isinstance(t, (list, str)):
                return  # not read as written here: left to vLLM
            if len(t) == 1 and not isinstance(t[0], str):
                raise Refusal("AttributeError", f"'{type(t[0]).__name__}' object has no attribute 'endswith'")
            if isinstance(t, list) and len(t) == 1 and t[0].endswith("Attention"):
                continue
        kept[name] = g
    for g in kept.values():
        targets = g.get("targets")
        bad = _not_iterable(targets)
        if bad is not None:
            raise bad
        if not targets:
            continue
        weights = quantization_args(g.get("weights"), v)
        order = weights["actorder"]
        if v >= (0, 30, 0) and order in ("group", "dynamic"):  # 0.33.0 compressed_tensors.py:336-345
            raise _pyd("VllmConfig", f"Compressed-tensors group/dynamic activation ordering (actorder={order!r}) is "
                                     "no longer supported. Use a checkpoint with static/weight activation ordering "
                                     "or without activation ordering.")
        fmt = g.get("format") if g.get("format") is not None else q.get("format")
        acts = g.get("input_activations")
        if _in(fmt, _CT_ACT_FORMATS) or acts:
            if not acts:
                if weights["type"] != "float":
                    raise Refusal("ValidationError", "1 validation error for VllmConfig\n  Assertion failed, ")
            else:
                quantization_args(acts, v)
        out = g.get("output_activations")
        if v >= (0, 23, 0) and out:
            quantization_args(out, v)
    sparsity = q.get("sparsity_config")
    if sparsity:
        targets = sparsity_targets(sparsity)
        if v >= (0, 22, 0) and targets:  # 0.33.0 compressed_tensors.py:295-300
            raise Refusal("DeprecationWarning", "Sparsity support has been removed from compressed-tensors. Please "
                                                "use a model without sparsity configuration.")
    if q.get("transform_config"):  # CompressedTensorsConfig.__init__ (0.12.0 compressed_tensors.py:100-103)
        transform_config(q["transform_config"])


def _in(x, values: tuple) -> bool:
    """`x in values` for a JSON value (an unhashable one is simply not there)."""
    return isinstance(x, str) and x in values


def _fp8(q: dict, v: tuple) -> None:
    """Fp8Config.from_config / __init__ (0.12.0 fp8.py:207-268; 0.33.0 fp8.py): the activation
    scheme must be given and be static or dynamic; a weight block size must have two
    dimensions and go with dynamic activations. (The checkpoint names an fp8 method, so it
    counts as fp8-serialized.)"""
    scheme = _get_from_keys(q, ["activation_scheme"])
    if not _in(scheme, ("static", "dynamic")):
        raise _pyd("VllmConfig", f"Unsupported activation scheme {scheme}")
    block = q.get("weight_block_size")
    if block is None:
        return
    if isinstance(block, (bool, int, float)):
        raise Refusal("TypeError", f"object of type '{type(block).__name__}' has no len()")
    if len(block) != 2:
        raise _pyd("VllmConfig", "The quantization block size of weight must have 2 dimensions, but got "
                                 f"{len(block)} dimensions")
    if scheme != "dynamic":
        raise _pyd("VllmConfig", "The block-wise quantization only supports dynamic activation scheme for now, but "
                                 f"got {scheme} activation scheme.")


def _deep_compare(a, b) -> bool:
    """quark/utils.py deep_compare: same types all the way down (a list against the other's
    first items)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_deep_compare(a[k], b[k]) for k in a)
    if isinstance(a, list):
        for i in range(len(a)):
            if i >= len(b):
                raise Refusal("IndexError", "list index out of range")
            if not _deep_compare(a[i], b[i]):
                return False
        return True
    return bool(a == b)


def _quark(q: dict) -> None:
    """QuarkConfig.from_config (0.12.0 quark/quark.py:126-196, the same through 0.33.0): an
    `export` section is required; a non-empty kv_cache_group must be matched by
    layer_quant_config entries whose output_tensors agree and are given."""
    export = q.get("export")
    if export is None:
        raise _pyd("VllmConfig", "The export key should be included in the configurations of Quark quantized model")
    if not isinstance(export, dict):
        raise Refusal("AttributeError", f"'{type(export).__name__}' object has no attribute 'get'")
    group = export.get("kv_cache_group")
    if group is None or isinstance(group, (bool, int, float)):
        raise Refusal("TypeError", f"object of type '{type(group).__name__}' has no len()")
    if len(group) == 0:
        return
    if not isinstance(group, list) or not all(isinstance(p, str) for p in group):
        return  # not read as written here: left to vLLM
    layers = q.get("layer_quant_config")
    if not isinstance(layers, dict):
        raise Refusal("AttributeError", f"'{type(layers).__name__}' object has no attribute 'keys'")
    if not (set(group) <= set(layers) or any(fnmatch.fnmatchcase(n, p) for n in layers for p in group)):
        raise _pyd("VllmConfig", "The Quark quantized model has the kv_cache_group parameter setting, but no kv_cache "
                                 "quantization settings were found in the quantization configuration.")
    matched = [c for n, c in layers.items() if any(fnmatch.fnmatchcase(n, p) for p in group)]
    if not matched:
        raise Refusal("IndexError", "list index out of range")
    if not all(isinstance(c, dict) for c in matched):
        return  # not read as written here: left to vLLM
    for c in matched:
        if "output_tensors" not in c or "output_tensors" not in matched[0]:
            raise Refusal("KeyError", "'output_tensors'")
        if not _deep_compare(c["output_tensors"], matched[0]["output_tensors"]):
            raise _pyd("VllmConfig", "The quantization method used for kv_cache should be the same, but the "
                                     "quantization method for the kv_cache layer in the config is different.")
    if matched[0].get("output_tensors") is None:
        raise _pyd("VllmConfig", "The kv_cache quantization configuration is empty.")


def _set_text(values: tuple) -> str:
    """A Python set's repr (for string sets vLLM's order follows the process's hash seed: the
    order written in the source is shown)."""
    return "{" + ", ".join(repr(x) for x in values) + "}"


def _auto_round(q: dict, v: tuple) -> None:
    """AutoRoundConfig (0.11.0-0.14.x auto_round.py) / INCConfig (0.15.0+ inc.py) from_config and
    __init__: bits, group_size and (until 0.28.x) sym are read by key; the weight bits must be
    supported; until 0.26.x the data type must be int and the packing format and backend known
    (0.27.0+ adds MX/FP8 formats with checks of their own: only the keys and the bits are
    checked there, for a plain integer group size)."""
    for keys in [["bits"], ["group_size"]] + ([["sym"]] if v < (0, 29, 0) else []):
        _get_from_keys(q, keys)
    bits = q["bits"]
    late = v >= (0, 27, 0)
    group = _inc_group(q["group_size"]) if v >= (0, 29, 0) else q["group_size"]
    if late and not isinstance(group, (int, tuple)):
        return  # 0.27.x-0.28.x: not read as written here
    values = (q.get("data_type", "int"), q.get("packing_format", "auto_round:auto_gptq"),
              q["backend"] if "backend" in q else q.get("vllm_backend", "auto"))
    for x in (bits,) + (() if late else values):
        if isinstance(x, (list, dict)):
            raise Refusal("TypeError", f"unhashable type: '{type(x).__name__}'")
    supported = (2, 3, 4, 5, 6, 7, 8) if v >= (0, 30, 0) else (2, 3, 4, 8)
    old = v < (0, 14, 0)  # "support  {...}" without the final period
    inc = (0, 15, 0) <= v < (0, 27, 0)
    tail = "" if old else "."
    if bits not in supported:
        shown = "{8, 2, 3, 4}" if supported == (2, 3, 4, 8) else "{2, 3, 4, 5, 6, 7, 8}"
        raise _pyd("VllmConfig", f"Unsupported weight_bits: {bits}, currently only support{'  ' if old else ' '}"
                                 f"{shown}{tail}")
    if late:
        if v >= (0, 29, 0):
            _inc_checks(q, bits, group)
        else:
            _inc_mxfp8_checks(q, bits, group)
        return
    dtype, fmt, backend = values
    if dtype != "int":
        raise _pyd("VllmConfig", f"Unsupported data_type: {dtype}, currently only support{'  ' if old or inc else ' '}"
                                 f"{{'int'}}{tail}")
    formats = ("auto_round:auto_gptq", "auto_round:auto_awq")
    if fmt not in formats:
        raise _pyd("VllmConfig", f"Unsupported packing_format: {fmt}, currently only support{'  ' if old else ' '}"
                                 f"{_set_text(formats)}{tail}")
    backends = ("auto", "gptq", "gptq:marlin", "awq", "awq:marlin", "marlin") + (("ipex",) if v < (0, 16, 0) else ())
    if backend not in backends:
        comma = ",  " if old or inc else ", "
        raise _pyd("VllmConfig", f"Unsupported backend: {backend}{comma}currently only support{'  ' if old else ' '}"
                                 f"{_set_text(backends)}{tail}")


def _inc_group(raw):
    """INCConfigParser._normalize_group_size (0.29.0+, 0.33.0 inc/config_parser.py:217-237)."""
    if isinstance(raw, (list, tuple)):
        if len(raw) != 2 or not all(isinstance(x, int) for x in raw):
            raise _pyd("VllmConfig", f"INC block-wise FP8 requires group_size to be a 2-D integer sequence, "
                                     f"but found {raw!r}.")
        return (raw[0], raw[1])
    if not isinstance(raw, int):
        raise _pyd("VllmConfig", f"INC group_size must be an int or a 2-D integer sequence, but found "
                                 f"{'NoneType' if raw is None else type(raw).__name__}.")
    return raw


_INC_FORMATS = ("auto_round:auto_gptq", "auto_round:auto_awq", "auto_round:fp8", "auto_round:llm_compressor")


_INC_BACKENDS = ("auto", "gptq", "gptq:marlin", "awq", "awq:marlin", "marlin")


def _inc_assert(ok: bool, message: str) -> None:
    if not ok:  # an AssertionError in INCConfig.__init__ / from_config, wrapped by pydantic
        raise Refusal("ValidationError", f"1 validation error for VllmConfig\n  Assertion failed, {message}")


def _inc_mxfp8_checks(q: dict, bits, group) -> None:
    """INCConfig (0.27.0-0.28.x, 0.28.0 inc/inc.py:126-166): after the supported-set checks (left
    to vLLM, as in `_inc_checks`), an MXFP8 checkpoint's group size, symmetry, packing format,
    backend and raw activation fields; the MXFP8 packing format needs an mx_fp data type."""
    dtype = q.get("data_type", "int")
    fmt = q.get("packing_format", "auto_round:auto_gptq")
    backend = q["backend"] if "backend" in q else q.get("vllm_backend", "auto")
    if not all(isinstance(x, str) for x in (dtype, fmt, backend)):
        return
    if (dtype not in ("int", "mx_fp") and "mx_fp" not in dtype) or fmt not in _INC_FORMATS[:2] + _INC_FORMATS[3:] \
            or backend not in _INC_BACKENDS:
        return
    mxfp8 = "mx_fp" in dtype and bits == 8
    if mxfp8:
        _inc_assert(group == 32, f"INC MXFP8 only supports group_size=32, but found group_size={group}.")
        _inc_assert(bool(q["sym"]), "INC MXFP8 only supports symmetric weights.")
        _inc_assert(fmt == "auto_round:llm_compressor", "INC MXFP8 only supports packing_format="
                                                        f"'auto_round:llm_compressor', but found {fmt!r}.")
        _inc_assert(backend == "auto", f"INC MXFP8 only supports backend='auto', but found backend={backend!r}.")
    elif fmt == "auto_round:llm_compressor" and "mx_fp" not in dtype:
        raise _pyd("VllmConfig", "packing_format='auto_round:llm_compressor' requires an 'mx_fp' data_type.")
    if mxfp8:
        for key, want in {"act_bits": 8, "act_data_type": "mx_fp", "act_group_size": 32, "act_sym": True,
                          "act_dynamic": True, "enable_quanted_input": False}.items():
            actual = q.get(key, want)
            _inc_assert(actual == want, f"INC MXFP8 only supports {key}={want!r}, but found {key}={actual!r}.")


def _inc_checks(q: dict, bits, group) -> None:
    """INCConfig (0.29.0+, 0.33.0 inc/inc.py:163-255, 285-308): after the supported-set checks
    (data type, packing format, backend: their sets print in hash order, so a value outside them
    is left to vLLM here), the scheme's own checks -- int, block-wise FP8 ("fp"), MXFP -- then
    the raw config's activation fields for block-wise FP8 and MXFP8."""
    dtype = q.get("data_type", "int")
    if not isinstance(dtype, str):
        return
    dtype = "fp" if dtype == "fp8" else dtype
    fmt = q.get("packing_format")
    if fmt is None:
        fmt = ("auto_round:fp8" if dtype == "fp" and bits == 8 and isinstance(group, tuple)
               else "auto_round:llm_compressor" if "mx_fp" in dtype else "auto_round:auto_gptq")
    backend = q["backend"] if "backend" in q else q.get("vllm_backend", "auto")
    if not isinstance(fmt, str) or not isinstance(backend, str):
        return
    if (dtype not in ("int", "mx_fp", "fp") and "mx_fp" not in dtype) or fmt not in _INC_FORMATS \
            or backend not in _INC_BACKENDS:
        return
    sym = q.get("sym", True)
    if dtype == "int":
        _inc_assert(isinstance(group, int), f"INC int quantization requires scalar group_size, but found "
                                            f"group_size={group!r}.")
        _inc_assert(fmt in ("auto_round:auto_gptq", "auto_round:auto_awq"),
                    "INC int quantization only supports packing_format in ['auto_round:auto_awq', "
                    f"'auto_round:auto_gptq'], but found packing_format={fmt!r}.")
    elif dtype in ("fp", "mx_fp"):
        name, want = ("INC block-wise FP8", "auto_round:fp8") if dtype == "fp" else \
            ("INC MXFP", "auto_round:llm_compressor")
        if dtype == "fp":
            _inc_assert(bits == 8, f"INC block-wise FP8 only supports bits=8, but found bits={bits}.")
            _inc_assert(isinstance(group, tuple), f"INC block-wise FP8 requires a 2-D group_size, but found "
                                                  f"group_size={group!r}.")
        else:
            _inc_assert(bits in (4, 8), f"INC MXFP only supports bits=4 or bits=8, but found bits={bits}.")
            _inc_assert(group == 32, f"INC MXFP only supports group_size=32, but found group_size={group}.")
        _inc_assert(bool(sym), f"{name} only supports symmetric weights.")
        _inc_assert(fmt == want, f"{name} only supports packing_format={want!r}, but found {fmt!r}.")
        _inc_assert(backend == "auto", f"{name} only supports backend='auto', but found backend={backend!r}.")
    expected: dict = {}
    if dtype == "fp" and isinstance(group, tuple):
        name = "INC block-wise FP8"
        expected = {"act_bits": 8, "act_group_size": group[0], "act_data_type": "fp", "act_sym": True,
                    "act_dynamic": True, "activation_scheme": "dynamic", "fmt": "e4m3"}
    elif "mx_fp" in dtype and bits == 8:
        name = "INC MXFP8"
        expected = {"act_bits": 8, "act_data_type": "mx_fp", "act_group_size": 32, "act_sym": True,
                    "act_dynamic": True}
    for key, want_value in expected.items():
        actual = q.get(key, want_value)
        _inc_assert(actual == want_value, f"{name} only supports {key}={want_value!r}, but found {key}={actual!r}.")
