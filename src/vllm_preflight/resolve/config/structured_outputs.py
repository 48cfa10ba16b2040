"""StructuredOutputsConfig (vllm/config/structured_outputs.py): the backend literal of each release."""
from __future__ import annotations

from vllm_preflight.resolve.base.pydantic import field_error
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import State
from vllm_preflight.resolve.base.value_facts import value_facts
from vllm_preflight.resolve.parser.json_options import _reasoning_parser_problem


def structured_outputs_problem(so: dict, state: State) -> str | None:
    rec = value_facts(state)
    backend = so.get("backend")
    if backend is None or not rec or backend in rec["structured_outputs_backends"]:
        return None
    b = rec["structured_outputs_backends"]
    shown = ", ".join(f"'{x}'" for x in b[:-1]) + f" or '{b[-1]}'"
    return (f"1 validation error for StructuredOutputsConfig\nbackend\n  Input should be {shown} "
            f"[type=literal_error, input_value={backend!r}, input_type=str]")


@reads("reasoning_parser")
def reasoning_parser(state: State, values: dict) -> None:
    """create_engine_config puts --reasoning-parser in the structured-outputs config; VllmConfig
    revalidates that (its reasoning-parser registry, 0.11.1-0.12.x)."""
    parser = values.get("reasoning_parser")
    if parser:
        problem = _reasoning_parser_problem({"reasoning_parser": parser}, state)
        if problem:
            raise field_error("VllmConfig", "structured_outputs_config", f"Value error, {problem}")
