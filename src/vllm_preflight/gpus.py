"""GPUs a deployment can name with --gpu: what vLLM would query from the hardware."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Gpu:
    name: str
    device_name: str  # as NVML reports it (vLLM matches "a100" in it)
    capability: tuple[int, int]
    memory_gib: float
    per_node: int = 8

    @property
    def is_sm100_family(self) -> bool:
        return self.capability[0] == 10


GPUS = {g.name: g for g in (
    Gpu("H100", "NVIDIA H100 80GB HBM3", (9, 0), 79.6),
    Gpu("H200", "NVIDIA H200", (9, 0), 140.4),
    Gpu("B200", "NVIDIA B200", (10, 0), 178.4),
    Gpu("GB200", "NVIDIA GB200", (10, 0), 184.0),
    Gpu("A100", "NVIDIA A100-SXM4-80GB", (8, 0), 79.2),
)}
DEFAULT_GPU = "H200"


def get_gpu(name: str) -> Gpu:
    key = name.upper()
    if key not in GPUS:
        from vllm_preflight.errors import UsageProblem

        raise UsageProblem(f"unknown --gpu {name!r}; choose from {', '.join(GPUS)}")
    return GPUS[key]
