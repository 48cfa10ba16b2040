"""The DeepEP-HT protocol emulation against the dense reference, and its invariants."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from vllm_preflight.verify.compare import CLOSE, compare
from vllm_preflight.verify.moe.contract import OutputContract
from vllm_preflight.verify.moe.experts import Experts, dense_moe, route
from vllm_preflight.verify.moe.ht import HTEmulatedMoE, ProtocolStats, experts_on_rank, get_layout, local_ids


@pytest.fixture(scope="module")
def experts(torch_threads):
    return Experts(32, 32, 8, shared=False, generator=torch.Generator().manual_seed(0))


def test_layout_counts_tokens_per_rank_and_expert():
    idx = torch.tensor([[0, 5], [1, 2], [7, -1]])
    lay = get_layout(idx, num_experts=8, num_ranks=4)  # 2 experts per rank
    assert lay.is_token_in_rank.tolist() == [[True, False, True, False], [True, True, False, False],
                                             [False, False, False, True]]
    assert lay.num_tokens_per_rank.tolist() == [2, 1, 1, 1]
    assert lay.num_tokens_per_expert.tolist() == [1, 1, 1, 0, 0, 1, 0, 1]
    assert local_ids(idx, rank=2, per_rank=2).tolist() == [[-1, 1], [-1, -1], [-1, -1]]


@pytest.mark.parametrize("ranks", [1, 2, 4, 8])
@pytest.mark.parametrize("tokens", [1, 7, 20])
def test_ht_emulation_matches_dense_and_keeps_invariants(experts, ranks, tokens):
    g = torch.Generator().manual_seed(tokens * 10 + ranks)
    x = torch.randn(tokens, 32, generator=g)
    idx, w = route(torch.randn(tokens, 8, generator=g), 2)
    stats = ProtocolStats()
    got = HTEmulatedMoE(ranks, stats)(x, idx, w, experts)
    assert compare(got, dense_moe(x, idx, w, experts)).at_least(CLOSE)
    assert stats.calls == 1 and stats.violations == []


def test_a_wrong_host_count_is_an_invariant_violation(experts):
    x = torch.randn(5, 32)
    idx, w = route(torch.randn(5, 8), 2)
    stats = ProtocolStats()
    local = local_ids(idx, 0, 8)
    true_counts = torch.bincount(local[local >= 0], minlength=8).tolist()
    lying = [c + 1 for c in true_counts]
    experts_on_rank(x, local, w, experts, 0, 8, lying, stats)
    assert len(stats.violations) == 8


def test_route_renormalises_topk():
    idx, w = route(torch.randn(6, 8), 3)
    assert idx.dtype == torch.int64 and idx.shape == (6, 3)
    assert torch.allclose(w.sum(-1), torch.ones(6))


def test_moe_outputs_are_new_tensors_whose_blocks_the_allocator_hands_back():
    """vLLM 0.12.0 `model_executor/layers/fused_moe/layer.py: moe_forward` returns
    `self.forward_impl(...)` (a new tensor), as does 0.33.0 `fused_moe/runner/moe_runner.py:
    _moe_forward` (`layer._forward_impl(...)`): no persistent output buffer. Whether the next call
    lands at the same address is the caching allocator's doing: a freed block of the same
    (rounded) size is handed back; a block still referenced is not."""
    c = OutputContract()
    a = c.emit("k", torch.ones(3, 4))
    first = a.data_ptr()
    kept = c.emit("k", torch.ones(3, 4) * 2)       # `a` is still alive: another block
    assert kept.data_ptr() != first and torch.equal(a, torch.ones(3, 4))
    del a
    again = c.emit("k", torch.ones(3, 4) * 5)      # `a` was dropped: its block comes back
    assert again.data_ptr() == first and torch.equal(again, torch.full((3, 4), 5.0))
    small = c.emit("k", torch.ones(1, 4))          # any size works (no buffer to outgrow)
    assert small.shape == (1, 4) and c.allocator.reused == 1


def test_fresh_outputs_never_reuse_a_block():
    """The fault control N3: outputs kept alive, so no block is ever handed back."""
    f = OutputContract("fresh", keep_alive=2)
    outs = [f.emit("k", torch.ones(3, 4) * i) for i in range(4)]
    assert len({o.data_ptr() for o in outs}) == 4 and len(f.ring["k"]) == 2
    with pytest.raises(ValueError):
        OutputContract("persistent")
