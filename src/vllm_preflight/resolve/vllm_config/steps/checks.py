"""Final assertions and log lines of VllmConfig.__post_init__."""
from __future__ import annotations

from vllm_preflight.resolve.base import modes
from vllm_preflight.resolve.base.compilation_state import _breakable, _cg, _mode
from vllm_preflight.resolve.base.state import State, validation_error
from vllm_preflight.resolve.parallel.parallel_config import use_ubatching


def final_checks(state: State) -> None:
    cg = _cg(state)
    if modes.has_full_cudagraphs(cg) and state.has_model and not state.model_cfg["disable_cascade_attn"] \
            and not modes.has_piecewise_cudagraphs(cg) and state.release.cascade_message:
        state.log("warning", state.release.cascade_message, once=True)
    if modes.requires_piecewise_compilation(cg) and _mode(state) != "VLLM_COMPILE" and not _breakable(state):
        raise validation_error(state.release.piecewise_assert_message.format(cg=cg), "Assertion failed")


def dbo_backend_check(state: State) -> None:
    """The all2all backends microbatching supports (0.14.0+: with --ubatch-size > 1 too)."""
    if not use_ubatching(state):
        return
    backend = state.parallel["all2all_backend"]
    allowed = state.release.dbo_backends
    if backend not in allowed:
        raise validation_error(state.release.dbo_message.format(backend=backend), "Assertion failed")


def log_enabled_passes(state: State) -> None:
    """0.18.0+: vLLM lists the custom fusion passes that ended up on."""
    names = []
    for field in state.release.facts["pass_config_order"]:
        if state.pass_config.get(field):
            for prefix in ("fuse_", "enable_"):
                if field.startswith(prefix):
                    names.append(field[len(prefix):])
    if names:
        state.log("info", "Enabled custom fusions: " + ", ".join(names), once=True)
