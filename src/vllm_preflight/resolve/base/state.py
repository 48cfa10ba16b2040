"""The resolver's working state: the config objects vLLM builds, as plain dicts.

Steps read the state, change it through `State.set` (which records an Event when a value
really changes) and raise `Refusal` where vLLM would refuse to start.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vllm_preflight.gpus import Gpu
from vllm_preflight.model import Event
from vllm_preflight.modelfacts import ModelFacts


class Refusal(Exception):
    """vLLM would not start: the exception type its caller sees, and its message."""

    def __init__(self, type_: str, message: str):
        super().__init__(message)
        self.type = type_
        self.message = message


def validation_error(message: str, kind: str = "Value error") -> Refusal:
    """An exception raised inside a pydantic config's __post_init__ reaches the caller
    wrapped in pydantic's ValidationError."""
    return Refusal("ValidationError", f"1 validation error for VllmConfig\n  {kind}, {message}")


@dataclass
class State:
    release: Any  # releases.Release
    gpu: Gpu
    env: dict[str, str]
    model: ModelFacts | None
    cc: dict = field(default_factory=dict)  # CompilationConfig fields
    pass_config: dict = field(default_factory=dict)  # PassConfig fields
    parallel: dict = field(default_factory=dict)  # ParallelConfig fields
    scheduler: dict = field(default_factory=dict)  # max_num_seqs, max_num_batched_tokens...
    model_cfg: dict = field(default_factory=dict)  # enforce_eager, max_model_len, runner...
    optimization_level: int | None = None
    num_speculative_tokens: int = 0
    speculative_method: str | None = None
    speculative_method_resolved: str | None = None  # as SpeculativeConfig names it (MTP aliases: mtp)
    dynamic_sd_schedule: list | None = None  # num_speculative_tokens_per_batch_size; None: static
    cc_given: set = field(default_factory=set)  # compilation fields the user set
    assumptions: list = field(default_factory=list)  # what a config check could not know (Assumption)
    kv_transfer: dict | None = None  # --kv-transfer-config as given
    base_dir: str | None = None  # the deployment's folder: relative model paths (a draft model) are looked up there
    # what the stages before create_engine_config hand on (resolve/path.py runs them in order)
    words: tuple[str, ...] = ()  # the server command as written
    serve_stage: bool = True  # whether `vllm serve`'s own checks run (False: the engine config alone)
    tail: list[str] = field(default_factory=list)  # the words the parser sees
    parsed: Any = None  # parser.argument_parser.ParsedArgs
    values: dict = field(default_factory=dict)  # the parsed option values by dest (what was set)
    serve_entry: str | None = None  # "serve" | "api_server" | None (not through vLLM's server entry)
    serve_mode: Any = None  # serve.serve.ServeMode once `vllm serve`'s front door ran
    model_assume: dict = field(default_factory=dict)  # --assume model.X=V
    node: dict = field(default_factory=dict)  # optional packages the launch shows on the node (Deployment.node_facts)
    fact_assumptions: list = field(default_factory=list)  # what reading the model's config.json assumed
    runtime: dict | None = None  # the runtime stage's block of the resolved result
    events: list[Event] = field(default_factory=list)
    logs: list[tuple[str, str]] = field(default_factory=list)  # (level, message) vLLM would log
    _once: set = field(default_factory=set)

    # ---------------------------------------------------------------- changes
    def set(self, path: str, value: Any, rule: str, reason: str, level: str = "info") -> None:
        """Set `cc.x`, `pass_config.x`, `parallel.x`, `scheduler.x`, `model.x` or a
        top-level field, recording an Event when the value changes."""
        slot = _PATHS.get(path) or _path_slot(path)
        attr, key, name = slot
        if attr is None:
            before = getattr(self, key)
            setattr(self, key, value)
        else:
            obj = getattr(self, attr)
            before = obj.get(key)
            obj[key] = value
        if before != value:
            self.events.append(Event(name, list(before) if type(before) in _SEQUENCES else before,
                                     list(value) if type(value) in _SEQUENCES else value, rule, reason, level))

    def note(self, field_name: str, rule: str, reason: str, level: str = "info", value: Any = None) -> None:
        """An event that explains without changing a value (e.g. a warning vLLM logs)."""
        self.events.append(Event(field_name, _plain(value), _plain(value), rule, reason, level))

    def log(self, level: str, message: str, once: bool = False) -> None:
        if once:
            if message in self._once:
                return
            self._once.add(message)
        self.logs.append((level, message))

    # ---------------------------------------------------------------- helpers
    @property
    def facts(self) -> ModelFacts:
        """The served model's facts: set by model.read_model, before every later step."""
        return self.model  # type: ignore[return-value]

    @property
    def has_model(self) -> bool:
        return self.model is not None

    @property
    def enforce_eager(self) -> bool:
        return bool(self.model_cfg.get("enforce_eager"))

    def env_flag(self, name: str) -> bool:
        v = self.env.get(name)
        return v is not None and v.strip().lower() in ("1", "true")


_SLOTS = {"cc": "cc", "pass_config": "pass_config", "parallel": "parallel", "scheduler": "scheduler",
          "model": "model_cfg"}
_HEADS = {"cc": "compilation_config", "pass_config": "compilation_config.pass_config",
          "parallel": "parallel_config", "scheduler": "scheduler_config", "model": "model_config"}
_SEQUENCES = (list, tuple)
# path -> (the state's dict attribute or None for a field of the state, key, the field's name in events)
_PATHS: dict[str, tuple[str | None, str, str]] = {}


def _path_slot(path: str) -> tuple[str | None, str, str]:
    head, _, rest = path.partition(".")
    slot = (_SLOTS[head], rest, _HEADS.get(head, head) + "." + rest) if rest else (None, head, _HEADS.get(head, head))
    _PATHS[path] = slot
    return slot


def _plain(v: Any) -> Any:
    # lists are copied: vLLM (and we) append to custom_ops in place after the event
    return list(v) if type(v) in (list, tuple) else v


def option_json(values: dict, dest: str) -> Any:
    """A JSON-typed option's value as parsed (argparse already converted most of them; a value
    still in text form is parsed here), or None when it is unset or not valid JSON."""
    value = values.get(dest)
    if isinstance(value, str):
        import json

        try:
            return json.loads(value)
        except ValueError:
            return None
    return value
