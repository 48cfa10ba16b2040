"""The address contract on the MoE op's outputs.

vLLM's CUDAGraphWrapper never copies a piece's inputs: a captured piece reads, at replay, the
addresses it saw at capture. An eager MoE op between two pieces must therefore hand back its
result at the same address every time. `persistent` (the vLLM-faithful default) copies the result
into a per-layer buffer sized for the largest capture size and returns the `[:T]` view, as vLLM
writes into an output or workspace buffer. `fresh` returns a newly allocated tensor: the negative
control N3 whose stale reads the replay checks must catch. `keep_alive` holds the last few fresh
outputs so that a caching allocator cannot hand the same block back by luck (GPU tiers).
"""
from __future__ import annotations

from collections import deque

import torch


class OutputContract:
    def __init__(self, mode: str = "persistent", keep_alive: int = 0):
        if mode not in ("persistent", "fresh"):
            raise ValueError(f"unknown MoE output mode {mode!r}")
        self.mode = mode
        self.keep_alive = keep_alive
        self.buffers: dict[str, torch.Tensor] = {}
        self.ring: dict[str, deque] = {}

    def reserve(self, key: str, max_tokens: int, like: torch.Tensor) -> None:
        """Allocate the buffer before any capture (vLLM sizes its workspaces at start-up)."""
        if self.mode == "persistent":
            self.buffers[key] = torch.zeros(max_tokens, like.shape[-1], dtype=like.dtype, device=like.device)

    def emit(self, key: str, value: torch.Tensor) -> torch.Tensor:
        if self.mode == "fresh":
            if self.keep_alive:
                self.ring.setdefault(key, deque(maxlen=self.keep_alive)).append(value)
            return value
        buf = self.buffers.get(key)
        n = value.shape[0]
        if buf is None or buf.shape[0] < n or buf.dtype != value.dtype or buf.device != value.device:
            raise RuntimeError(f"no persistent MoE output buffer for {key} holding {n} tokens "
                               "(reserve() before running)")
        out = buf[:n]
        out.copy_(value)
        return out
