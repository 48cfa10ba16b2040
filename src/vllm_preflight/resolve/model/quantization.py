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
version: resolve/quantization/compressed_tensors.py); Fp8Config's activation scheme and weight block
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

from vllm_preflight.model import Assumption
from vllm_preflight.modelfacts import ModelFacts
from vllm_preflight.releases import data_file
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State

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
@reads("quantization", "allow_deprecated_quantization", model=("quantized",), env=("VLLM_BATCH_INVARIANT",))
def verify_model(state: State, values: dict) -> None:
    """ModelConfig._verify_quantization: the method vLLM resolves (kept in
    state.model_cfg["quantization"]), or a refusal."""
    facts = state.facts
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


