"""What vLLM reads from a model that changes its compilation settings.

From the model's own files where vLLM finds them (a local folder, the Hugging Face cache, the
Hub: vllm_preflight.model_files), else for a hub id from a small table of well-known
architectures (the offline fallback), else a stated guess. `--assume model.FACT=VALUE`
overrides any of them; every fact not read from the model itself is reported as an assumption,
and the `model` assumption says where the facts came from.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from vllm_preflight.model import Assumption

if TYPE_CHECKING:
    from vllm_preflight.model_files import ModelFiles, ModelRequest


@dataclass(frozen=True)
class ModelFacts:
    """The model facts the resolver reads."""

    architecture: str = "LlamaForCausalLM"
    is_moe: bool = False
    is_pooling: bool = False  # vLLM's runner resolves to "pooling"
    is_encoder_decoder: bool = False
    is_mla: bool = False
    blocked_fp8: bool = False  # fp8 weights with weight_block_size: vLLM adds +quant_fp8
    max_position_embeddings: int = 8192
    hidden_size: int = 4096
    quantized: bool = False
    num_attention_heads: int = 0  # 0: not known (TP divisibility is then not checked)
    num_key_value_heads: int = 0  # 0: not known (decode context parallel limits not checked)
    # what max_model_len is derived from (resolve/model/max_model_len.py), read from the text config:
    # the position key vLLM picks ("?": nothing read, nothing checked; "": no key at all) and
    # its value, a truthy model_max_length, the RoPE type ("" none; legacy names normalised),
    # its factor as JSON text ("" none, "null", "4.0", "3"), original_max_position_embeddings
    # in the RoPE parameters and at the top level, the sliding window (0 none), model_type
    max_len_key: str = "?"
    max_len_value: int = 0
    model_max_length: int = 0
    rope_type: str = ""
    rope_factor: str = ""
    rope_original_max_position_embeddings: int = 0
    original_max_position_embeddings: int = 0
    sliding_window: int = 0
    text_model_type: str = ""
    # files beside config.json that cap the length (resolve/model_len.py): the tokenizer's
    # model_max_length (0: none read) and a sentence-transformers config's max_seq_length
    tokenizer_model_max_length: int = 0
    encoder_max_seq_length: int = 0

    @property
    def raw_config(self) -> dict | None:
        """config.json as read (None: nothing read); kept beside the facts, not a fact of its
        own (`--assume` cannot set it)."""
        return self.__dict__.get("_raw_config")

    def config_value(self, key: str, default: Any = None, text: bool = False) -> Any:
        """A raw config.json key as vLLM's hf_config attribute reads it (`default` when the
        file lacks it or nothing was read); `text=True` reads the language model's config
        (`text_config` when the model nests one, as vLLM's hf_text_config)."""
        cfg = self.raw_config or {}
        if text and isinstance(cfg.get("text_config"), dict):
            cfg = cfg["text_config"]
        return cfg.get(key, default)


# Hub ids we know without fetching anything: the config.json keys the resolver reads, kept
# as data (releases/data/models.json) and read the same way as a local config.json.
class _KnownModels:
    """hub id -> ModelFacts, loaded on first use (one small JSON file)."""

    _facts: dict[str, ModelFacts] | None = None
    _configs: dict[str, dict]  # set by _load

    def _load(self) -> dict[str, ModelFacts]:
        if self._facts is None:
            path = os.path.join(os.path.dirname(__file__), "releases", "data", "models.json")
            with open(path) as f:
                data = json.load(f)["models"]
            self._configs = {name: entry["config"] for name, entry in data.items()}
            self._facts = {name: facts_from_config(cfg) for name, cfg in self._configs.items()}
        return self._facts

    def config(self, name: str) -> dict:
        """The table's config.json keys for a hub id."""
        self._load()
        return self._configs[name]

    def __contains__(self, name: object) -> bool:
        return name in self._load()

    def __getitem__(self, name: str) -> ModelFacts:
        return self._load()[name]

    def __iter__(self):
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


KNOWN_MODELS = _KnownModels()

_MOE_KEYS = ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts", "num_experts_per_tok")
MOE_KEYS = _MOE_KEYS[:-1]  # the expert counts (the last one is per token)
# vLLM serves these as pooling models by default; a bare decoder `XxxModel` stays "generate"
_POOLING_SUFFIXES = ("ForSequenceClassification", "ForRewardModel", "ForEmbedding", "ForTokenClassification")
_POOLING_ENCODERS = ("BertModel", "RobertaModel", "XLMRobertaModel", "ModernBertModel", "NomicBertModel",
                     "GteModel", "GteNewModel", "BertSpladeSparseEmbeddingModel",
                     # embedding / late-interaction classes of the per-architecture hooks
                     "LlamaBidirectionalModel", "LlamaNemotronVLModel", "ColQwen3_5")
_MLA_TYPES = ("deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm_moe_dsa")


def _bool(text: str) -> bool:
    low = str(text).strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"not a boolean: {text!r}")




# the position keys vLLM reads for the model's length, in its order (the first smallest wins)
_LEN_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
             "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")
# Transformers' attribute_map: these configs answer max_position_embeddings with n_positions
_N_POSITIONS_AS_MPE = ("gpt2", "gpt_bigcode", "gptj", "codegen", "gpt_neo")
# config classes' defaults for a key the config.json leaves out (Transformers' __init__ defaults)
_LEN_DEFAULTS = {"llama": 2048, "mistral": 131072, "mixtral": 131072, "qwen2": 32768, "qwen2_moe": 32768,
                 "qwen3": 32768, "qwen3_moe": 32768, "gemma": 8192, "gemma2": 8192, "gemma3_text": 131072,
                 "phi3": 4096, "cohere": 8192, "deepseek_v2": 2048, "deepseek_v3": 4096, "gpt2": 1024,
                 "whisper": 448, "mpt": 2048}
_LEN_DEFAULT_KEY = {"whisper": "max_target_positions", "mpt": "max_seq_len"}
# config classes with RoPE (a rope_theta default) although config.json may not say so
_ROPE_TYPES = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2",
               "gemma3_text", "phi3", "cohere", "deepseek_v2", "deepseek_v3", "deepseek_v32", "gpt_oss", "glm4_moe",
               "kimi_k2", "llama4_text", "minimax_m2", "minimax_text_01", "modernbert")
# Qwen2-family configs drop sliding_window unless use_sliding_window
_USE_SLIDING_WINDOW = ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe")


def _max_len_keys(t: dict) -> dict:
    """The text config's facts for the derived max_model_len (resolve/model/max_model_len.py)."""
    mtype = str(t.get("model_type") or "")
    values = {k: t.get(k) for k in _LEN_KEYS}
    if mtype in _N_POSITIONS_AS_MPE and values["n_positions"] is not None:
        values["max_position_embeddings"] = values["n_positions"]
    if mtype in _LEN_DEFAULTS:
        values[_LEN_DEFAULT_KEY.get(mtype, "max_position_embeddings")] = values.get(
            _LEN_DEFAULT_KEY.get(mtype, "max_position_embeddings")) or _LEN_DEFAULTS[mtype]
    key, value = "", 0
    for k in _LEN_KEYS:
        v = values[k]
        if isinstance(v, (int, float)) and not isinstance(v, bool) and (not key or v < value):
            key, value = k, int(v)
    rope_given = t.get("rope_parameters") if isinstance(t.get("rope_parameters"), dict) else t.get("rope_scaling")
    rope: dict = rope_given if isinstance(rope_given, dict) else {}
    rtype = str(rope.get("rope_type") or rope.get("type") or "")
    rtype = {"su": "longrope", "mrope": "default"}.get(rtype, rtype)
    if not rtype and ("rope_theta" in t or mtype in _ROPE_TYPES):
        rtype = "default"
    factor = rope.get("factor", "") if rope else ""
    window = t.get("sliding_window")
    if mtype in _USE_SLIDING_WINDOW and not t.get("use_sliding_window", False):
        window = None
    top_ompe = t.get("original_max_position_embeddings")
    return {"max_len_key": key, "max_len_value": value,
            "model_max_length": int(t.get("model_max_length") or 0),
            "rope_type": rtype, "rope_factor": "" if factor == "" else json.dumps(factor),
            "rope_original_max_position_embeddings": int(rope.get("original_max_position_embeddings")
                                                         or top_ompe or 0),
            "original_max_position_embeddings": int(top_ompe or 0),
            "sliding_window": int(window) if isinstance(window, int) and not isinstance(window, bool) else 0,
            "text_model_type": mtype}


def _quantization_keys(cfg: dict) -> dict:
    """What --quantization is checked against (resolve/model/quantization.py and resolve/quantization/): config.json's
    quantization_config / compression_config (also text_config's), dtype and model_type. Kept
    beside the facts (`_quantization`), not a fact of its own (`--assume` cannot set it)."""
    text: dict = cfg["text_config"] if isinstance(cfg.get("text_config"), dict) else {}
    keys = ("quantization_config", "compression_config", "torch_dtype", "dtype", "model_type")
    return {**{k: cfg.get(k) for k in keys}, "text_config": {k: text.get(k) for k in keys}}


def facts_from_config(cfg: dict) -> ModelFacts:
    facts = _facts_from_config(cfg)
    object.__setattr__(facts, "_quantization", _quantization_keys(cfg))
    return facts


def _facts_from_config(cfg: dict) -> ModelFacts:
    arch = (cfg.get("architectures") or ["?"])[0]
    nested = cfg.get("text_config")  # multimodal configs keep the language model's fields here
    text_cfg: dict = nested if isinstance(nested, dict) else cfg
    n_experts = 0
    for k in _MOE_KEYS[:-1]:
        if isinstance(text_cfg.get(k), int):
            n_experts = max(n_experts, text_cfg[k])
    quant = cfg.get("quantization_config") or {}
    blocked = (quant.get("quant_method") == "fp8" and quant.get("weight_block_size") is not None)
    facts = ModelFacts(
        architecture=arch,
        is_moe=n_experts > 0,
        is_pooling=arch.endswith(_POOLING_SUFFIXES) or arch in _POOLING_ENCODERS,
        is_encoder_decoder=bool(cfg.get("is_encoder_decoder")),
        is_mla=text_cfg.get("model_type") in _MLA_TYPES and bool(text_cfg.get("kv_lora_rank")),
        blocked_fp8=blocked,
        max_position_embeddings=int(text_cfg.get("max_position_embeddings")
                                    or text_cfg.get("max_target_positions") or 2048),
        hidden_size=int(text_cfg.get("hidden_size") or text_cfg.get("d_model") or 4096),
        quantized=bool(quant),
        num_attention_heads=int(text_cfg.get("num_attention_heads")
                                or text_cfg.get("decoder_attention_heads") or 0),
        # HF's default: as many KV heads as attention heads
        num_key_value_heads=int(text_cfg.get("num_key_value_heads") or text_cfg.get("num_attention_heads") or 0),
        **_max_len_keys(text_cfg),
    )
    return _keep_raw(facts, cfg)


def _keep_raw(facts: ModelFacts, cfg: dict | None) -> ModelFacts:
    object.__setattr__(facts, "_raw_config", cfg)
    return facts


_CONFIG_CACHE: dict[str, tuple[float, ModelFacts | None, str | None]] = {}
_RAW_CONFIGS: dict[str, dict] = {}  # config.json as read, for --hf-overrides


def apply_hf_overrides(cfg: dict, overrides: dict) -> dict:
    """config.json as vLLM sees it after `--hf-overrides` (ModelConfig.__post_init__, 0.12.0
    config/model.py:453-510, the same in 0.33.0): non-dict values replace top-level keys
    (`config.update`); a dict value merges into a nested sub-config (`text_config`, ...),
    recursively where both sides are objects, and otherwise replaces the key."""
    out = dict(cfg)
    for key, value in overrides.items():
        if not isinstance(value, dict):
            out[key] = value
    for key, value in overrides.items():
        if isinstance(value, dict):
            current = out.get(key)
            # transformers turns a `*_config` object into a PretrainedConfig: merged; a plain
            # dict attribute (rope_scaling, quantization_config) is replaced
            out[key] = _merge(current, value) if isinstance(current, dict) and key.endswith("_config") \
                and key != "quantization_config" else value
    return out


def _merge(target: dict, updates: dict) -> dict:
    out = dict(target)
    for key, value in updates.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _facts_from_file(cfg_path: str) -> ModelFacts | None:
    """config.json facts, read once per file in a process (one run resolves many configs)."""
    hit = _CONFIG_CACHE.get(cfg_path)
    if hit is not None:
        if hit[2] is not None:
            _config_failure(cfg_path, hit[2])
        return hit[1]
    try:
        mtime = os.stat(cfg_path).st_mtime
    except OSError:
        _CONFIG_CACHE[cfg_path] = (0.0, None, None)
        return None
    facts, problem = _read_config(cfg_path)
    _CONFIG_CACHE[cfg_path] = (mtime, facts, problem)
    if problem is not None:
        _config_failure(cfg_path, problem)
    return facts


def _read_config(cfg_path: str) -> tuple[ModelFacts | None, str | None]:
    """(facts, None), or (None, why the file cannot be used). Never blocks (a FIFO is not
    opened) and reads no more than an input may hold."""
    from vllm_preflight.errors import InputFailure
    from vllm_preflight.load.source import read_bytes

    try:
        data = read_bytes(cfg_path, what="a model config.json")
    except InputFailure as e:
        return None, e.error.message
    except OSError as e:
        return None, f"cannot read: {e.strerror or e}"
    # the problems name the place and the kind, never the file's text (a model folder can be
    # anywhere on the machine: README "Limits and hostile input")
    try:
        cfg = json.loads(data)
    except RecursionError:
        return None, "JSON nested too deeply"
    except json.JSONDecodeError as e:
        return None, f"not valid JSON ({e.msg} at line {e.lineno}, column {e.colno})"
    except UnicodeDecodeError:
        return None, "not valid JSON (not UTF-8 text)"
    except ValueError as e:  # a number over Python's digit limit
        return None, f"not valid JSON ({type(e).__name__})"
    facts, problem = facts_of_dict(cfg)
    if facts is not None:
        _RAW_CONFIGS[cfg_path] = cfg
    return facts, problem


def facts_of_dict(cfg: Any) -> tuple[ModelFacts | None, str | None]:
    """(facts, None) of a config.json value, or (None, why vLLM could not use it)."""
    if not isinstance(cfg, dict):
        return None, "not a JSON object"
    archs = cfg.get("architectures")
    if archs is not None and not (isinstance(archs, list) and all(isinstance(a, str) for a in archs)):
        return None, "`architectures` is not a list of class names"
    try:
        return facts_from_config(cfg), None
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, OverflowError, RecursionError) as e:
        return None, f"unexpected value ({type(e).__name__}: a key holds a value of a type vLLM cannot use)"


def _config_failure(cfg_path: str, problem: str):
    from vllm_preflight.errors import InputError, InputFailure

    raise InputFailure(InputError(cfg_path, f"model config.json unusable: {problem}"))


class TextConfigNotAConfig(Exception):
    """--hf-overrides gave `text_config` to a model without a nested text config: transformers keeps
    the plain dict, which has no `num_attention_heads` attribute (vLLM's get_hf_text_config)."""


def _overridden(cfg: dict | None, hf_overrides: dict, facts: ModelFacts, assumptions: list[Assumption]) -> ModelFacts:
    """The facts of config.json with --hf-overrides applied."""
    if cfg is None:
        return facts
    if isinstance(hf_overrides.get("text_config"), dict) and not isinstance(cfg.get("text_config"), dict):
        raise TextConfigNotAConfig()
    try:
        return facts_from_config(apply_hf_overrides(cfg, hf_overrides))
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, OverflowError, RecursionError) as e:
        assumptions.append(Assumption("--hf-overrides", "not applied", f"its values do not fit config.json "
                                                                       f"({type(e).__name__})"))
        return facts


def local_config(model: str, base_dir: str | None, revision: str | None = None,
                 env: dict[str, str] | None = None) -> dict | None:
    """config.json of a model as read: a local folder's (a relative path next to the input, as
    model_facts looks it up), else a hub id's from the cache or the Hub (model_files); None when
    there is none. A speculators-format checkpoint is recognised by it (resolve/engine/speculators.py)."""
    path = os.path.normpath(model if os.path.isabs(model) else os.path.join(base_dir or os.getcwd(), model))
    memo = _run_memo()
    if ("no config", path, revision) in memo:  # asked on every resolution; files are read once per run anyway
        return None
    facts = _facts_from_file(os.path.join(path, "config.json"))
    if facts is None and not os.path.lexists(path):
        from vllm_preflight import model_files
        from vllm_preflight.model_files.request import cache_dirs

        # at the server's --revision, in the caches its environment names (as read_model asks)
        found = model_files.find(model_files.ModelRequest(model, base_dir, revision=revision or None,
                                                          cache_dirs=cache_dirs(env or {}))).config
        if found is None:
            memo["no config", path, revision] = True
        return found
    return facts.raw_config if facts is not None else None


def path_exists(name: str, base_dir: str | None) -> bool:
    """Whether a model name is a path on disk (a relative one next to the input)."""
    path = name if os.path.isabs(name) else os.path.join(base_dir or os.getcwd(), name)
    return os.path.lexists(path)


UNKNOWN_MODEL = "unknown model"  # the start of the Assumption source for a model nothing was read of
FILES_FACT = "model.files"  # an Assumption saying why a hub model's files could not be read (finding VP130)


def _not_read(files: ModelFiles | None) -> str:
    """Why no config was read, for the `model` assumption ("" when the run was offline and the
    model not cached, or nothing was tried: the plain table text)."""
    if files is None:
        return ""
    if files.problem is not None:
        return "; see finding VP130"
    if files.not_read and "offline" not in files.not_read:
        return f"; {files.not_read}"
    return ""


def with_files(cfg: dict, files: ModelFiles | None) -> dict:
    """config.json as vLLM's get_config holds it: ModelOpt's hf_quant_config.json becomes the
    quantization_config of a config.json without one (0.12.0 / 0.33.0 transformers_utils/config.py)."""
    if files is not None and files.quant_config is not None and cfg.get("quantization_config") is None:
        return {**cfg, "quantization_config": files.quant_config}
    return cfg


def _length_files(facts: ModelFacts, files: ModelFiles | None) -> ModelFacts:
    """The lengths of the tokenizer's and the sentence-transformers config (resolve/model_len.py)."""
    if files is None:
        return facts
    changes: dict[str, Any] = {}
    tok = (files.tokenizer_config or {}).get("model_max_length")
    if isinstance(tok, (int, float)) and not isinstance(tok, bool) and 0 < tok < 1 << 62:
        changes["tokenizer_model_max_length"] = int(tok)
    enc = files.encoder_config or {}
    # get_sentence_transformer_tokenizer_config keeps a config holding both keys
    if "do_lower_case" in enc and isinstance(enc.get("max_seq_length"), int) and not isinstance(
            enc.get("max_seq_length"), bool):
        changes["encoder_max_seq_length"] = enc["max_seq_length"]
    return _keep_raw(replace(facts, **changes), facts.raw_config) if changes else facts


def _facts_of_files(files: ModelFiles) -> tuple[ModelFacts | None, dict | None]:
    """(facts, config) of a cached or fetched config.json; None when there is none or it is unusable
    (said in `files.problem`, the finding's text: never the file's own text)."""
    if files.mistral:
        from vllm_preflight.model_files.mistral import config_of_params

        adapted = config_of_params(files.params or {}, files.config)
        if adapted is None:
            name = files.request.hf_config_path or files.request.model
            files.problem = ("unreadable", f"{name}: its params.json ({files.where}) is not one vLLM adapts")
            return None, None
        base: dict = adapted
    elif files.config is None:
        return None, None
    else:
        base = files.config
    cfg = with_files(base, files)
    facts, _ = facts_of_dict(cfg)  # why it is unusable is the file's own text: not shown
    if facts is None:
        name = files.request.hf_config_path or files.request.model
        files.problem = ("unreadable", f"{name}: its config.json ({files.where}) is not usable by vLLM")
        return None, None
    _RAW_CONFIGS[f"{files.where}:{files.request.hf_config_path or files.request.model}"] = cfg
    return _length_files(facts, files), cfg


def _where(files: ModelFiles) -> str:
    from vllm_preflight.model_files.hub import endpoint

    read = ", ".join(files.read)
    hub = f" from {endpoint()}" if files.origin == "hub" else ""
    return f"facts read from {files.where} ({read}{hub})"


_MEMO: dict = {}  # this run's answers: model_facts and local_config by their inputs
_MEMO_RUN: list = [None]  # the model_files run they belong to (a new run may read other files)


def _run_memo() -> dict:
    from vllm_preflight import model_files

    run = model_files._RUN
    if _MEMO_RUN[0] is not run or len(_MEMO) > 4096:
        _MEMO.clear()
        _MEMO_RUN[0] = run
    return _MEMO


def model_facts(model: str | None, base_dir: str | None, overrides: dict[str, str],
                experts_wanted: str | None = None,
                hf_overrides: dict | None = None,
                request: ModelRequest | None = None) -> tuple[ModelFacts, list[Assumption]]:
    """_model_facts, memoised per run for the same inputs (files are read once per run anyway;
    every resolution of a matrix or a folder asks for the same few models)."""
    if hf_overrides is not None:
        return _model_facts(model, base_dir, overrides, experts_wanted, hf_overrides, request)
    key = ("facts", model, base_dir, None if base_dir else os.getcwd(), tuple(sorted(overrides.items())),
           experts_wanted, request)
    memo = _run_memo()
    try:
        hit = memo.get(key)
    except TypeError:  # an unhashable value in the request
        return _model_facts(model, base_dir, overrides, experts_wanted, hf_overrides, request)
    if hit is None:
        hit = memo[key] = _model_facts(model, base_dir, overrides, experts_wanted, hf_overrides, request)
    return hit[0], list(hit[1])


def _model_facts(model: str | None, base_dir: str | None, overrides: dict[str, str],
                 experts_wanted: str | None = None,
                 hf_overrides: dict | None = None,
                 request: ModelRequest | None = None) -> tuple[ModelFacts, list[Assumption]]:
    """Facts for a model name as written in the command, plus what was assumed.

    `request` (the server's model options, model_files.request_of) lets a hub id be read from
    the cache or the Hub, --hf-config-path and --tokenizer from where vLLM reads them; without
    it only a local folder's config.json is read. A model with no readable config and no table
    entry is never guessed silently: when the command's flags require experts (`experts_wanted`
    names them) it is taken as MoE, else as dense, each stated as a `model.is_moe` assumption
    (the caller also checks the other outcome and reports it under depends_on)."""
    assumptions: list[Assumption] = []
    facts: ModelFacts | None = None
    files: ModelFiles | None = None
    if model:
        # A relative model path is looked up in the input file's folder (`base_dir`; the working
        # directory only for a `--` command line), never also in the caller's working directory:
        # the same file gives the same result wherever the tool runs.
        path = os.path.normpath(model if os.path.isabs(model) else os.path.join(base_dir or os.getcwd(), model))
        cfg_path = os.path.join(path, "config.json")
        if request is not None:
            from vllm_preflight import model_files

            files = model_files.find(request)
        own = request is None or not (request.hf_config_path or (files is not None and files.mistral))
        facts = _facts_from_file(cfg_path) if own else None
        raw = _RAW_CONFIGS.get(cfg_path) if facts is not None else None
        if facts is not None:
            if files is not None and files.quant_config is not None and raw is not None \
                    and raw.get("quantization_config") is None:
                raw = with_files(raw, files)
                facts = facts_from_config(raw)
            facts = _length_files(facts, files)
            assumptions.append(Assumption("model", model, f"facts read from {cfg_path} "
                                                          f"(a relative model path is looked up next to the input)"))
        elif files is not None:
            facts, raw = _facts_of_files(files)
            if facts is not None:
                assumptions.append(Assumption("model", model, _where(files)))
        if facts is not None and hf_overrides:
            facts = _overridden(raw, hf_overrides, facts, assumptions)
        if facts is None and model in KNOWN_MODELS:
            facts = KNOWN_MODELS[model]
            if hf_overrides:
                facts = _overridden(KNOWN_MODELS.config(model), hf_overrides, facts, assumptions)
            assumptions.append(Assumption("model", model, "table of well-known hub models (config.json not read"
                                                          + _not_read(files) + ")"))
        if files is not None and files.problem is not None:
            assumptions.append(Assumption(FILES_FACT, files.problem[0], files.problem[1]))
    if facts is None:
        facts = ModelFacts(is_moe=bool(experts_wanted))
        shown = model or "(none)"
        nothing = "no config.json here, not in the built-in table" + _not_read(files)
        if "is_moe" in overrides:
            assumptions.append(Assumption("model", shown, f"{UNKNOWN_MODEL} `{shown}` ({nothing}): facts not pinned "
                                                          f"are a decoder-only LLM's"))
        elif experts_wanted:
            why = (f"{UNKNOWN_MODEL} `{shown}` ({nothing}): taken as "
                   f"a mixture-of-experts decoder because {experts_wanted} requires experts; "
                   f"pin it with --assume model.is_moe=VALUE")
        else:
            why = (f"{UNKNOWN_MODEL} `{shown}` ({nothing}): taken as a "
                   f"dense decoder-only LLM; the outcome with a mixture-of-experts model is checked too; "
                   f"pin it with --assume model.is_moe=VALUE")
        if "is_moe" not in overrides:
            assumptions.append(Assumption("model.is_moe", facts.is_moe, why))
    names = {f.name: f.type for f in fields(ModelFacts)} if overrides else {}
    changes: dict[str, Any] = {}
    for key, text in overrides.items():
        if key not in names:
            from vllm_preflight.errors import UsageProblem

            raise UsageProblem(f"--assume model.{key}: unknown model fact; known: {', '.join(names)}")
        cur = getattr(facts, key)
        try:
            value = _bool(text) if isinstance(cur, bool) else int(text) if isinstance(cur, int) else text
        except ValueError as e:
            from vllm_preflight.errors import UsageProblem

            raise UsageProblem(f"--assume model.{key}={text}: {e}") from None
        changes[key] = value
        assumptions.append(Assumption(f"model.{key}", value, "--assume"))
    if changes:
        facts = _keep_raw(replace(facts, **changes), facts.raw_config)
    return facts, assumptions
