"""`--quantization` against the checkpoint's `quantization_config`, per release.

Two places in vLLM check it while the config is built:

1. `ModelConfig._verify_quantization` (0.12.0 vllm/config/model.py:965-1061; 0.33.0
   config/model.py:1383-1485): the checkpoint's quantization_config (or compression_config,
   or the text_config's, with ModelOpt's `producer` layout given a quant_method) names a
   method; the override classes are probed in order (`overrides`, per release) and may swap
   it for a faster kernel or claim it (gptq -> gptq_marlin, awq -> awq_marlin; from 0.22.0
   gptq -> auto_gptq, from 0.24.0 awq -> auto_awq; modelopt, gpt_oss_mxfp4, ...). What the user
   gave must then equal it ("does not match"), be a known method ("Unknown quantization
   method"), and (0.14.0+) not be deprecated unless `--allow-deprecated-quantization`.
   CUDA's `verify_quantization` accepts every method (its supported list is empty).
2. `VllmConfig._get_quantization_config` (0.12.0 config/vllm.py:357-386, 0.33.0
   config/vllm.py:916-949): the method's config class is built from the checkpoint's config
   (or, without one, from a config file next to the weights, or with no arguments), then
   its minimum GPU capability and its supported activation dtypes are checked against the
   GPU (an H200: 90) and the model's dtype.

The per-release lists (methods, overrides, deprecated, online shorthands) and per-class facts
(minimum capability, activation dtypes, config file names, constructor arguments) are data:
releases/data/quantization.json, read from each release's sources by
tools/extract_quantization_facts.py. The override rules themselves are ported below, each
with the releases it holds for. Where the rules change (read in the sources; goldens on real
0.12.0, pr29558, 0.16.0, 0.33.0 and others recorded in tests/golden/data/model_families/quantization/):
0.11.1 fp_quant; 0.12.0 cpu_gptq/cpu_awq (CPU only); 0.14.0 deprecated methods and
--allow-deprecated-quantization, ModelOpt producer algos FP8_PER_CHANNEL_PER_TOKEN/FP8_PB_WO,
"FP8" in the algo upper-cased; 0.15.0 auto-round runs as inc; 0.16.0 bitblas, marlin_24, ipex
gone, ModelOpt FP8 exact, modelopt_mxfp8; 0.17.0 modelopt_mixed, one ModelOpt algo reader,
modelopt_mixed reads hf_quant_config.json without quantized_layers; 0.20.0 gpt_oss_mxfp4,
deepseek_v4_fp8, humming (probed first when asked), gguf claims every checkpoint (to 0.23),
VLLM_BATCH_INVARIANT skips awq_marlin; 0.21.0 humming refuses gpt-oss MXFP4; 0.22.0 gptq ->
auto_gptq, online shorthands; 0.22.0 any "modelopt*" method is read as ModelOpt; 0.24.0 awq ->
auto_awq, gguf gone; 0.26.0 legacy ModelOpt configs; 0.28.0 bitsandbytes gone; 0.30.0 GPTQ
act-order refused (no-op act-order accepted by moe_wna16); 0.33.0 ModelOpt MIXED_PRECISION.
The config classes' own from_config / __init__ checks on the checkpoint's config (by the
class the release maps the method to): required keys; GPTQ/AWQ/AutoGPTQ/AutoAWQ bits; MoeWNA16;
ModelOpt algo and field types; compressed-tensors config groups, QuantizationArgs, sparsity and
transform configs (the compressed-tensors library's pydantic models, per pinned library
version: resolve/compressed_tensors_args.py); Fp8Config's activation scheme and weight block
size; Quark's export section and kv-cache groups (0.17.0-0.19.x also its global weight dtype,
read by key after the dtype check); AutoRound/INC bits, keys, data type, packing format and
backend (the latter three until 0.26.x; their sets of strings print in hash order in vLLM,
shown here in source order); FP-Quant's keys and pseudoquantization (until 0.22.x);
bitsandbytes 4-bit storage; torchao's import; ModelOpt's QUANT_ALGOS (0.14.0+ upper-cased, per
release) and each class's own algo checks (FP8 0.14.0+, NVFP4 0.21.0+, MXFP8 serialized / fields
0.16.0+ with MiniMax's layout 0.24.0+, MIXED_PRECISION layers 0.17.0+ and block sizes 0.30.0+); INC's
group size, int / block-wise FP8 / MXFP scheme and raw activation checks (0.29.0+; MXFP8 only in
0.27.0-0.28.x); the
gptq_marlin_24 (until 0.15.x), hqq, rtn and deepspeedfp (until 0.14.x) constructors. Goldens of
these: tests/golden/data/model_families/quant_schemes_2/.
Assumptions: the bitblas and torchao packages are not installed (gptq_bitblas never claims a
checkpoint, a torchao checkpoint fails to import it, as on the oracle); a model folder holds no quantization file besides config.json; a
checkpoint's config is otherwise valid for its method (only the refusals ported below).
"""
from __future__ import annotations

import fnmatch
from dataclasses import replace

from vllm_preflight.model import Assumption
from vllm_preflight.modelfacts import ModelFacts
from vllm_preflight.releases import data_file
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.quantization.compressed_tensors import quantization_args, sparsity_targets, transform_config

_DATA: dict | None = None


def release_facts(version: str) -> dict | None:
    """The release's quantization facts (None for a release the data does not hold)."""
    global _DATA
    if _DATA is None:
        _DATA = data_file("quantization.json")["releases"]
    return _DATA.get(version)


def _vt(version: str) -> tuple:
    return tuple(int(x) for x in version.split("."))


def _pyd(cls: str, message: str) -> Refusal:
    return Refusal("ValidationError", f"1 validation error for {cls}\n  Value error, {message}")


# --------------------------------------------------------------- the checkpoint's config
_MODELOPT_FP8_ALGOS = ("FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_PB_WO")  # 0.33.0 model_arch_config_convertor.py:258


def checkpoint_quant_config(facts: ModelFacts, v: tuple) -> dict | None:
    """The quantization config vLLM parses from config.json (a copy: quant_method normalised
    as vLLM writes it back), or None. 0.12.0 config/model.py:945-988; 0.33.0
    transformers_utils/model_arch_config_convertor.py:241-291."""
    keys = _keys(facts)
    if keys is None:
        return None
    quant = _normalised(keys, v)
    text = keys.get("text_config")
    if quant is None and isinstance(text, dict):
        quant = _normalised(text, v)
    return quant


def _keys(facts: ModelFacts) -> dict | None:
    """The config.json keys read for the model (kept beside the facts by modelfacts
    `facts_from_config`); None when no config was read."""
    keys = facts.__dict__.get("_quantization")
    if keys is None:  # facts rebuilt by --assume: from the raw config where the facts keep it
        raw = getattr(facts, "raw_config", None)
        if isinstance(raw, dict):
            from vllm_preflight.modelfacts import _quantization_keys

            keys = _quantization_keys(raw)
    return keys if isinstance(keys, dict) else None


def _normalised(cfg: dict, v: tuple) -> dict | None:
    quant = cfg.get("quantization_config")
    if quant is None:
        quant = cfg.get("compression_config")  # compressed-tensors
        if not isinstance(quant, dict):
            return None
        quant = dict(quant)
    else:
        if not isinstance(quant, dict):
            return None
        quant = dict(quant)
        producer: dict = quant["producer"] if isinstance(quant.get("producer"), dict) else {}
        sub: dict = quant["quantization"] if isinstance(quant.get("quantization"), dict) else {}
        legacy = v >= (0, 26, 0) and "modelopt_quant_config" in sub  # 0.26.0+
        if producer.get("name") == "modelopt" or legacy:
            algo = sub.get("quant_algo")
            if algo is not None:
                method: str | None
                if v >= (0, 14, 0):  # transformers_utils/model_arch_config_convertor.py (0.14.0:145-160)
                    up = str(algo).upper()
                    method = ("modelopt" if up in _MODELOPT_FP8_ALGOS else "modelopt_fp4" if up == "NVFP4"
                              else "modelopt_mixed" if up == "MIXED_PRECISION" and v >= (0, 33, 0) else None)
                else:  # 0.12.0 config/model.py:951-961
                    method = "modelopt" if algo == "FP8" else "modelopt_fp4" if algo == "NVFP4" else None
                if method is None:
                    raise _pyd("ModelConfig", f"Unknown ModelOpt quant algo: {algo}")
                quant["quant_method"] = method
    method = quant.get("quant_method", "")
    if isinstance(method, str):
        quant["quant_method"] = method.lower().replace("compressed_tensors", "compressed-tensors")
    return quant


# --------------------------------------------------------------- the override rules
_MARLIN_GROUPS = (-1, 32, 64, 128)  # utils/marlin_utils.py:29 (0.12.0)


def _gptq_marlin_ok(q: dict) -> bool:
    """GPTQMarlinConfig.is_gptq_marlin_compatible (0.12.0 gptq_marlin.py:273-295): 4/8-bit
    symmetric, a Marlin group size, every key present; capability >= 80 (the H200 has it)."""
    bits, group, sym, desc = q.get("bits"), q.get("group_size"), q.get("sym"), q.get("desc_act")
    if q.get("quant_method") != "gptq" or None in (bits, group, sym, desc):
        return False
    return (bits, sym) in ((4, True), (8, True)) and group in _MARLIN_GROUPS


def _awq_marlin_ok(q: dict) -> bool:
    """AWQMarlinConfig.is_awq_marlin_compatible (0.12.0 awq_marlin.py:223-245): 4-bit with a
    zero point (Marlin's AWQ type), a Marlin group size."""
    bits, group, zp = q.get("bits"), q.get("group_size"), q.get("zero_point")
    if q.get("quant_method") != "awq" or None in (bits, group, zp):
        return False
    return bits == 4 and bool(zp) and group in _MARLIN_GROUPS


def _moe_wna16_ok(q: dict, v: tuple) -> bool:
    """MoeWNA16Config.is_moe_wna16_compatible (0.12.0 moe_wna16.py:138-160): GPTQ 4/8-bit
    without act-order, or AWQ 4-bit (capability >= AWQ's 75). From 0.30.0 act-order is
    accepted where it is a no-op (group_size -1)."""
    method, bits = q.get("quant_method"), q.get("bits")
    act_order_ok = not q.get("desc_act") or (v >= (0, 30, 0) and q.get("group_size") == -1)
    return (method == "gptq" and act_order_ok and bits in (4, 8)) or (method == "awq" and bits == 4)


def _modelopt_algo(q: dict, v: tuple) -> str | None:
    """The ModelOpt quant_algo an override reads (None: not a ModelOpt config): 0.17.0+
    ModelOptQuantConfigBase._extract_modelopt_quant_algo, upper-cased (quant_method
    "modelopt", from 0.22.0 any "modelopt*"); before 0.17.0 each class read it the same way
    itself (0.12.0 modelopt.py:311-340, 828-857), as written."""
    method = q.get("quant_method", "")
    if not isinstance(method, str):
        return None
    if not (method.startswith("modelopt") if v >= (0, 22, 0) else method == "modelopt"):
        return None
    if "quantization" in q:
        sub = q["quantization"]
        if not isinstance(sub, dict):
            return None
        algo = sub.get("quant_algo", "")
    else:
        algo = q.get("quant_algo", "")
    return str(algo).upper() if v >= (0, 17, 0) else algo if isinstance(algo, str) or "quantization" in q else None


def _modelopt_override(name: str, q: dict, v: tuple) -> str | None:
    algo = _modelopt_algo(q, v)
    if algo is None:
        return None
    nested = "quantization" in q
    if name == "modelopt":
        if v >= (0, 16, 0):
            return name if str(algo).upper() == "FP8" else None
        if v >= (0, 14, 0):
            return name if "FP8" in str(algo).upper() else None
        return name if isinstance(algo, str) and "FP8" in algo else None
    if name == "modelopt_fp4":
        if v >= (0, 17, 0):
            return name if "NVFP4" in algo or "FP4" in algo else None
        if nested:
            return name if isinstance(algo, str) and "NVFP4" in algo else None
        return name if isinstance(algo, str) and "FP4" in algo.upper() else None
    if name == "modelopt_mxfp8":
        return name if "MXFP8" in str(algo).upper() else None
    if name == "modelopt_mixed":
        return name if algo == "MIXED_PRECISION" else None
    return None


def _override(name: str, q: dict, user: str | None, facts: ModelFacts, v: tuple, env: dict) -> str | None:
    """What `name`'s override_quantization_method returns on a CUDA H200 (None: no claim)."""
    if name == "gptq_marlin" and v < (0, 22, 0):
        return name if _gptq_marlin_ok(q) and user in (None, "marlin", "gptq_marlin") else None
    if name == "awq_marlin" and v < (0, 24, 0):
        if v >= (0, 20, 0) and env.get("VLLM_BATCH_INVARIANT", "0") not in ("", "0"):  # awq_marlin.py:239 (0.20.0)
            return None
        return name if _awq_marlin_ok(q) and user in (None, "marlin", "awq_marlin") else None
    if name == "auto_gptq":  # 0.22.0+ auto_gptq.py (0.33.0:214-233)
        ok = q.get("quant_method") == "gptq" and user in (None, "gptq", "gptq_marlin", "auto_gptq", "marlin")
        return name if ok else None
    if name == "auto_awq":  # 0.24.0+ auto_awq.py
        ok = q.get("quant_method") == "awq" and user in (None, "awq", "awq_marlin", "auto_awq", "marlin")
        return name if ok else None
    if name == "bitblas":  # until 0.15.x: bitblas.py:161-181 (0.12.0)
        fmt = q.get("checkpoint_format") == "bitblas" or bool(q.get("is_bitblas_format", False))
        return name if fmt and user in (None, "gptq", "bitblas") else None
    if name == "gptq_marlin_24":  # until 0.15.x: gptq_marlin_24.py:115-131 (0.12.0)
        fmt = q.get("checkpoint_format") == "marlin_24"
        return name if fmt and user in (None, "gptq", "gptq_marlin_24") else None
    if name == "moe_wna16":
        return name if user == "moe_wna16" and _moe_wna16_ok(q, v) else None
    if name == "gguf" and (0, 20, 0) <= v < (0, 24, 0):  # gguf.py:86-93 (0.20.0): --quantization gguf wins
        return name if user == "gguf" else None
    if name in ("modelopt", "modelopt_fp4", "modelopt_mxfp8", "modelopt_mixed"):
        return _modelopt_override(name, q, v)
    if name == "gpt_oss_mxfp4":  # 0.20.0+ mxfp4.py GptOssMxfp4Config
        ok = q.get("quant_method") in ("mxfp4", "gpt_oss_mxfp4") and (_keys(facts) or {}).get("model_type") == "gpt_oss"
        return name if ok else None
    if name == "deepseek_v4_fp8":  # DeepseekV4FP8Config (0.20.0 models/deepseek_v4.py:136-148; 0.33.0 models/deepseek_v41/quant_config.py:164-192)
        if q.get("quant_method") not in ("fp8", "deepseek_v4_fp8"):
            return None
        types = ("deepseek_v4",) + (("deepseek_v4_text", "deepseek_v41", "deepseek_v41_text") if v >= (0, 30, 0) else ())
        return name if (_keys(facts) or {}).get("model_type") in types or user == name else None
    if name == "humming":  # 0.20.0+ humming.py
        if v >= (0, 21, 0) and user == "humming" and (_keys(facts) or {}).get("model_type") == "gpt_oss" \
                and q.get("quant_method") == "mxfp4":
            raise _pyd("ModelConfig", "For gpt-oss model, use '--moe-backend humming' instead of "
                                      "'--quantization humming'.")
        return "humming" if user == "humming" else None
    if name == "inc" and v >= (0, 15, 0):  # inc.py: the auto-round checkpoint format runs as inc
        return name if q.get("quant_method") == "auto-round" else None
    # ipex (XPU), cpu_gptq / cpu_awq (CPU), petit_nvfp4 (ROCm): never on CUDA. gptq_bitblas
    # needs the bitblas package (taken as not installed: see the module's Assumptions).
    return None


# --------------------------------------------------------------- ModelConfig
def verify_model(state: State, facts: ModelFacts, values: dict) -> None:
    """ModelConfig._verify_quantization: the method vLLM resolves (kept in
    state.model_cfg["quantization"]), or a refusal."""
    v = _vt(state.release.version)
    if values.get("quantization") is None and checkpoint_quant_config(facts, v) is None:
        return  # nothing quantized: the per-release tables are not even loaded
    rel = release_facts(state.release.version)
    if rel is None or rel.get("methods") is None:
        return
    user = values.get("quantization")
    user = str(user).lower() if user is not None else None  # validate_quantization_before (0.12.0 config/model.py:722-727)
    q = checkpoint_quant_config(facts, v)
    unread = _keys(facts) is None
    if unread and user is not None:
        state.assumptions.append(Assumption(
            "model.quantization_config", None, "the model's config.json was not read: --quantization "
            f"{user} is checked only as a method name of this release; whether it matches the checkpoint, "
            "the method's config, GPU capability and dtype are not checked"))
    methods: list[str] = rel["methods"]
    if q is not None:
        method = q.get("quant_method", "")
        overrides: list[str] = list(rel["overrides"] or [])
        if v >= (0, 20, 0) and user == "humming":  # "if the user specifies humming ..." (0.20.0+)
            overrides = ["humming"] + overrides
        order = [m for m in methods if m not in overrides] + overrides
        for name in order:
            got = _override(name, q, user, facts, v, state.env) if name in overrides else None
            if got is not None:
                method = user = got
                break
        if method == "":
            method = None
        if user is None:
            user = method
        elif user != method:
            raise _pyd("ModelConfig", f"Quantization method specified in the model config ({method}) does not "
                                      f"match the quantization method specified in the `quantization` argument "
                                      f"({user}).")
    if user is not None:
        if user not in methods:
            raise _pyd("ModelConfig", f"Unknown quantization method: {user}. Must be one of {methods}.")
        deprecated = rel.get("deprecated") or []
        if user in deprecated and not values.get("allow_deprecated_quantization"):
            # vLLM passes the %s-format and the name as two arguments to ValueError, so the
            # message is the tuple's repr (0.14.0 config/model.py:958-963, the same in 0.33.0)
            text = ("The quantization method %s is deprecated and will be removed in future versions of "
                    "vLLM. To bypass, set `--allow-deprecated-quantization`.")
            raise _pyd("ModelConfig", repr((text, user)))
        if user in deprecated:
            msg = f"The quantization method {user} is deprecated and will be removed in future versions of vLLM."
            state.log("warning", msg)
            state.note("model_config.quantization", "quant.deprecated_method", msg, "warning", user)
    state.model_cfg["quantization"] = user
    state.model_cfg["quant_config"] = q
    state.model_cfg["quant_unread"] = unread
    # ModelConfig._verify_bnb_config (0.12.0 config/model.py:1075-1100; gone in 0.28.0 with
    # bitsandbytes): 8-bit bitsandbytes checkpoints run eagerly
    top = (_keys(facts) or {}).get("quantization_config")
    if (v < (0, 28, 0) and user == "bitsandbytes" and isinstance(top, dict) and top.get("load_in_8bit", False)
            and not state.model_cfg.get("enforce_eager")):
        msg = "CUDA graph is not supported on BitsAndBytes 8bit yet, fallback to the eager mode."
        state.log("warning", msg)
        state.set("model.enforce_eager", True, "quant.bnb_8bit_eager", msg, "warning")


# --------------------------------------------------------------- dtype
_DTYPES = {"half": "float16", "float16": "float16", "bfloat16": "bfloat16", "float": "float32", "float32": "float32"}


def model_dtype(facts: ModelFacts, values: dict, is_pooling: bool | None = None) -> str | None:
    """ModelConfig.dtype (0.12.0 config/model.py `_get_and_verify_dtype`, `_resolve_auto_dtype`):
    a given --dtype, else the config's dtype with float32 downcast to the GPU's first supported
    dtype (bfloat16 on an H200; float16 for pooling models). None when not known."""
    given = str(values.get("dtype") or "auto").lower()
    if given != "auto":
        return _DTYPES.get(given)
    keys = _keys(facts)
    if keys is None:
        return None
    found = keys.get("dtype") or keys.get("torch_dtype")
    text = keys.get("text_config")
    if found is None and isinstance(text, dict):
        found = text.get("dtype") or text.get("torch_dtype")
    found = _DTYPES.get(str(found).replace("torch.", "")) if found is not None else "float32"
    if found == "float32" or found is None:
        return "float16" if (facts.is_pooling if is_pooling is None else is_pooling) else "bfloat16"
    return found


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


# the keys each from_config reads with get_from_keys, in its order (a missing one is refused):
# 0.12.0 gptq.py / gptq_marlin.py / awq.py / awq_marlin.py / moe_wna16.py:102-116 from_config,
# 0.33.0 auto_gptq.py:190-198, auto_awq.py from_config
_REQUIRED_KEYS: dict[str, list[list[str]]] = {
    "GPTQConfig": [["bits"], ["group_size"], ["desc_act"]],
    "GPTQMarlinConfig": [["bits"], ["group_size"], ["desc_act"], ["sym"]],
    "AutoGPTQConfig": [["bits"], ["group_size"], ["desc_act"], ["sym"]],
    "AWQConfig": [["w_bit", "bits"], ["q_group_size", "group_size"], ["zero_point"]],
    "AutoAWQConfig": [["w_bit", "bits"], ["q_group_size", "group_size"], ["zero_point"]],
    "AWQMarlinConfig": [["bits"], ["group_size"], ["zero_point"]],
    "MoeWNA16Config": [["quant_method"], ["bits"], ["group_size"]],
    "GPTQMarlin24Config": [["bits"], ["group_size"]],  # until 0.15.x
    "RTNConfig": [["bits"], ["group_size"]],  # until 0.14.x
    "DeepSpeedFPConfig": [["bits"], ["group_size"]],  # until 0.14.x
}
# BitBLASConfig / GPTQBitBLASConfig import the bitblas package when built (0.12.0
# bitblas.py:55-71); it is taken as not installed (as on the oracle)
_BITBLAS_MISSING = ("Trying to use the bitblas backend, but could not importwith the following error: No module "
                    "named 'bitblas'. Please install bitblas through the following command: "
                    "`pip install bitblas>=0.1.0`")


def _get_from_keys(q: dict, keys: list[str]):
    for k in keys:
        if k in q:
            return q[k]
    raise _pyd("VllmConfig", f"Cannot find any of {keys} in the model's quantization config.")


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
    pydantic model: resolve/compressed_tensors_args.py), from 0.30.0 group/dynamic activation
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


_TORCHAO_MISSING = ("Please install torchao>=0.10.0 via `pip install torchao>=0.10.0` to use torchao "
                    "quantization.")


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


def verify_config(state: State, facts: ModelFacts, values: dict) -> None:
    """VllmConfig._get_quantization_config: build the method's config, then its capability
    and activation dtype checks."""
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
