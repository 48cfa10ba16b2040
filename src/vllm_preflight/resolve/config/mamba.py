"""MambaConfig (vllm/config/mamba.py): --mamba-backend (0.20.0+) and --mamba-ssu-algorithm (0.27.0+)."""
from __future__ import annotations

from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State

# MambaBackendEnum's members by first release (0.20.0 config/mamba.py; CPU from 0.27.0)
_MAMBA_BACKENDS = (((0, 20, 0), ("TRITON", "FLASHINFER")), ((0, 27, 0), ("TRITON", "FLASHINFER", "CPU")))


_SSU_ALGORITHM = (0, 27, 0)  # MambaConfig.validate_ssu_algorithm, called by create_engine_config


@reads("mamba_backend", "mamba_ssu_algorithm")
def mamba_flags(state: State, values: dict) -> None:
    """The Mamba config overrides after the attention config (0.20.0 arg_utils.py:2019, 0.33.0
    :2769-2786): --mamba-backend by enum name, then --mamba-ssu-algorithm only with FlashInfer."""
    key = state.release.key
    members = [m for first, m in _MAMBA_BACKENDS if key >= first]
    if not members:
        return
    backend = values.get("mamba_backend")
    if isinstance(backend, str) and backend.upper() not in members[-1]:
        raise Refusal("ValueError", f"Unknown Mamba SSU backend: '{backend.upper()}'. Valid options are: "
                                    f"{', '.join(members[-1])}")
    if key >= _SSU_ALGORITHM and values.get("mamba_ssu_algorithm") is not None \
            and str(backend or "triton").upper() != "FLASHINFER":
        raise Refusal("ValueError", "Mamba SSU algorithm selection is only supported with the FlashInfer backend. "
                                    "Please set `--mamba-backend flashinfer`, or omit `--mamba-ssu-algorithm`.")
