"""How the MoE op hands back its outputs, and the address contract that depends on it.

vLLM's `moe_forward` / `moe_forward_shared` return what the layer's forward computes: new
tensors (or views of a kernel workspace), not a persistent per-layer buffer (0.12.0
`fused_moe/layer.py: moe_forward` returns `self.forward_impl(...)`; 0.33.0
`fused_moe/runner/moe_runner.py: _moe_forward` returns `layer._forward_impl(...)`). Between
captured pieces that output is what the next piece reads, from the address it captured: vLLM's
CUDAGraphWrapper never copies inputs. Whether the address repeats is up to the CUDA caching
allocator, which hands a freed block of the same size back.

Modes:
- `allocator` (vLLM's behaviour, the default): a new tensor per call. On a GPU the real caching
  allocator places it. On CPU, `CachingAllocator` emulates the CUDA allocator's reuse of freed
  blocks so that the emulated replay reads what a real one would.
- `fresh` (a fault, control N3): a new tensor per call that never reuses a block, because the
  last `keep_alive` outputs stay referenced; a captured piece then reads a stale block.
"""
from __future__ import annotations

import weakref
from collections import deque

import torch

# The CUDA caching allocator rounds small requests up to 512 bytes.
BLOCK_ROUND = 512


def rounded(nbytes: int) -> int:
    return max(BLOCK_ROUND, -(-nbytes // BLOCK_ROUND) * BLOCK_ROUND)


class CachingAllocator:
    """CPU emulation of the CUDA caching allocator for the MoE outputs: a block freed when its
    last user lets go goes to a free list keyed by its rounded size, and the next request of that
    size gets the lowest-address free block (the allocator's best fit among equal sizes). Larger
    blocks are not split and other tensors are not modelled: only the op outputs go through it."""

    def __init__(self):
        self.free: dict[tuple, list[torch.Tensor]] = {}
        self.allocated = 0
        self.reused = 0

    def take(self, like: torch.Tensor) -> torch.Tensor:
        nbytes = like.numel() * like.element_size()
        key = (rounded(nbytes), like.dtype, like.device)
        free = self.free.get(key)
        if free:
            free.sort(key=lambda b: b.data_ptr())
            block = free.pop(0)
            self.reused += 1
        else:
            block = torch.empty(key[0] // like.element_size(), dtype=like.dtype, device=like.device)
            self.allocated += 1
        out = block[:like.numel()].view(like.shape)  # a new tensor object over the block
        # when the op's output is dropped by its last user, the block is free again
        weakref.finalize(out, self.free.setdefault(key, []).append, block)
        return out


class OutputContract:
    MODES = ("allocator", "fresh")

    def __init__(self, mode: str = "allocator", keep_alive: int = 2):
        if mode not in self.MODES:
            raise ValueError(f"unknown MoE output mode {mode!r}")
        self.mode = mode
        self.keep_alive = keep_alive
        self.allocator = CachingAllocator()
        self.ring: dict[str, deque] = {}

    def emit(self, key: str, value: torch.Tensor) -> torch.Tensor:
        if self.mode == "fresh":
            # the fault: keep the last outputs referenced so that no block is ever handed back
            self.ring.setdefault(key, deque(maxlen=max(1, self.keep_alive))).append(value)
            return value
        if value.device.type != "cpu":
            return value  # the real caching allocator decides, and replay checks every address
        out = self.allocator.take(value)
        out.copy_(value)
        return out
