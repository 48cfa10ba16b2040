"""GPUs a deployment can name with --gpu: what vLLM would query from the hardware.

The runtime stage (attention backend choice, FlashInfer TRTLLM kernels) depends on the exact
compute capability: B300 (SM103) fails 0.12.0's exact-SM100 TRTLLM test where B200 passes, and
consumer Blackwell (SM120) takes other priority lists. `--gpu-cc 9.0` names any other part.
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Gpu:
    """A GPU model and the facts of it the resolver reads."""

    name: str
    device_name: str  # as NVML reports it (vLLM matches "a100" in it)
    capability: tuple[int, int]
    memory_gib: float
    per_node: int = 8

    @property
    def is_sm100_family(self) -> bool:
        return self.capability[0] == 10

    @property
    def cc(self) -> int:
        """vLLM's DeviceCapability.to_int(): 9.0 -> 90, 10.3 -> 103."""
        return self.capability[0] * 10 + self.capability[1]


GPUS = {g.name: g for g in (
    Gpu("H100", "NVIDIA H100 80GB HBM3", (9, 0), 79.6),
    Gpu("H200", "NVIDIA H200", (9, 0), 140.4),
    Gpu("H20", "NVIDIA H20", (9, 0), 95.6),
    Gpu("B200", "NVIDIA B200", (10, 0), 178.4),
    Gpu("GB200", "NVIDIA GB200", (10, 0), 184.0),
    Gpu("B300", "NVIDIA B300 SXM6 AC", (10, 3), 268.0),
    Gpu("GB300", "NVIDIA GB300", (10, 3), 277.0),
    Gpu("A100", "NVIDIA A100-SXM4-80GB", (8, 0), 79.2),
    Gpu("L40S", "NVIDIA L40S", (8, 9), 44.4),
    Gpu("RTX4090", "NVIDIA GeForce RTX 4090", (8, 9), 23.5),
    Gpu("RTX5090", "NVIDIA GeForce RTX 5090", (12, 0), 31.4),
    Gpu("RTXPRO6000", "NVIDIA RTX PRO 6000 Blackwell Server Edition", (12, 0), 94.6),
    Gpu("GB10", "NVIDIA GB10", (12, 1), 119.7, per_node=1),
    # the other GPUs deployers name (NVML's name, its memory as torch reports it)
    Gpu("T4", "Tesla T4", (7, 5), 14.6),
    Gpu("V100", "Tesla V100-SXM2-32GB", (7, 0), 31.7),
    Gpu("A10", "NVIDIA A10", (8, 6), 22.1),
    Gpu("A10G", "NVIDIA A10G", (8, 6), 22.1),
    Gpu("L4", "NVIDIA L4", (8, 9), 22.0),
    Gpu("L40", "NVIDIA L40", (8, 9), 44.4),
    Gpu("GH200", "NVIDIA GH200 480GB", (9, 0), 94.5, per_node=1),
)}
# AMD Instinct parts: vLLM runs them on its ROCm platform, which this tool does not model
NOT_CUDA = ("MI100", "MI210", "MI250", "MI250X", "MI300A", "MI300X", "MI308X", "MI325X", "MI350X", "MI355X")
DEFAULT_GPU = "H200"


def get_gpu(name: str) -> Gpu:
    """`H200`, or `H200@10.3` / `@9.0` (what `--gpu-cc` passes: the capability replaced)."""
    if "@" in name:
        base, _, cc = name.partition("@")
        return with_capability(get_gpu(base or DEFAULT_GPU), cc)
    key = name.upper().replace(" ", "").replace("-", "")
    if key in NOT_CUDA or key.removeprefix("AMD").removeprefix("INSTINCT") in NOT_CUDA:
        from vllm_preflight.errors import UsageProblem

        raise UsageProblem(f"--gpu {name!r} is an AMD Instinct GPU: vLLM runs it on its ROCm platform, and "
                           "vllm-preflight resolves vLLM's CUDA platform only (NVIDIA GPUs)")
    if key not in GPUS:
        from vllm_preflight.errors import UsageProblem

        raise UsageProblem(f"unknown --gpu {name!r}; choose from {', '.join(GPUS)} (or give --gpu-cc X.Y)")
    return GPUS[key]


def parse_cc(text: str) -> tuple[int, int]:
    """`--gpu-cc 9.0` / `10.3` / `12.0` -> (major, minor)."""
    major, dot, minor = str(text).strip().partition(".")
    if not (major.isdigit() and (not dot or minor.isdigit())) or not 7 <= int(major) <= 15 \
            or (dot and len(minor) != 1):
        from vllm_preflight.errors import UsageProblem

        raise UsageProblem(f"--gpu-cc {text!r}: give a CUDA compute capability such as 9.0, 10.0, 10.3 or 12.0")
    return int(major), int(minor or 0)


def with_capability(gpu: Gpu, cc: str | None) -> Gpu:
    """The GPU with its compute capability replaced (memory and count stay those of `gpu`)."""
    if not cc:
        return gpu
    capability = parse_cc(cc)
    if capability == gpu.capability:
        return gpu
    return replace(gpu, name=f"{gpu.name}@sm{capability[0]}{capability[1]}", capability=capability)
