"""The split reproduces vLLM's: names resolved per release, 2S+1 pieces less empty ones, original
order kept, and the pieces run in order compute exactly what the model computes."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from vllm_preflight.verify.replay import split_matches_eager  # noqa: E402
from vllm_preflight.verify.split import resolve_names, split  # noqa: E402


def test_attention_and_moe_split_gives_2s_plus_1_pieces(ht_bench):
    sg = ht_bench.sg  # 2 layers: 2 attention + 2 MoE call sites
    assert sg.call_sites == 4
    assert sg.expected_pieces == sg.actual_pieces == 9
    assert [p.splitting for p in sg.pieces] == [False, True] * 4 + [False]
    assert len(sg.captured) == 5


class _Doubler:
    def moe(self, hidden_states, router_logits):
        return hidden_states * 2


def test_leading_and_adjacent_split_ops_leave_no_empty_piece(torch_threads):
    from vllm_preflight.verify import ops
    from vllm_preflight.verify.trace import Traced

    ops.register()
    ops.LAYERS["test.doubler"] = _Doubler()
    moe = torch.ops.pfverify.moe_forward

    def f(x):
        a = moe(x, x, "test.doubler")   # the very first node splits: piece 0 would be empty
        b = moe(a, a, "test.doubler")   # right after another split op: the piece between is empty
        return b + 1

    gm = torch.fx.symbolic_trace(f)
    sg = split(Traced(gm, [("input", None)]), ["vllm::moe_forward"], "overload")
    assert sg.call_sites == 2
    assert [p.id for p in sg.pieces] == [1, 3, 4]  # ids 0 and 2 hold no node
    assert sg.expected_pieces == sg.actual_pieces == 3
    from vllm_preflight.verify.split import run_split

    x = torch.ones(2, 3)
    assert torch.equal(run_split(sg, x), f(x))


def test_unresolvable_names_are_dropped_and_reported(torch_threads):
    res = resolve_names(["vllm.moe_forward", "vllm::not_an_op", "vllm::moe_forward.nope",
                         "vllm::moe_forward", "no_namespace"], "overload")
    assert res.kept == ["vllm::moe_forward"]
    dropped = dict(res.dropped)
    assert "dotted form" in dropped["vllm.moe_forward"]
    assert "no op vllm::not_an_op" in dropped["vllm::not_an_op"]
    assert "no overload 'nope'" in dropped["vllm::moe_forward.nope"]
    assert "no_namespace" in dropped


def test_release_0_11_0_matches_dotted_names_by_string(ht_bench):
    sg = split(ht_bench.traced, ["vllm.unified_attention_with_output", "vllm.moe_forward", "vllm::moe_forward"],
               "name")
    # the `::` form means nothing to str(node.target) matching; the dotted ones split
    assert [n for n, _ in sg.resolved.dropped] == ["vllm::moe_forward"]
    assert sg.call_sites == 3  # two attention calls, one moe_forward (moe_forward_shared not listed)


def test_dotted_moe_names_do_not_split_on_newer_releases(ht_bench):
    sg = split(ht_bench.traced, ["vllm::unified_attention_with_output", "vllm.moe_forward",
                                 "vllm.moe_forward_shared"], "overload")
    assert sg.call_sites == 2  # attention only: the MoE stays inside captured pieces


def test_pieces_in_order_equal_eager_bitwise(ht_bench):
    tally = split_matches_eager(ht_bench.model, ht_bench.sg, [1, 3, 8])
    assert tally.ok and tally.level == "EXACT"
