"""The split reproduces vLLM's, release by release: names matched as each release matches them,
2S+1 pieces less empty ones, original order kept, and the pieces run in order compute exactly
what the model computes. Each per-release rule is pinned to the source it follows (read in the
release's wheel; cited, never copied)."""
from __future__ import annotations

import operator

import pytest

torch = pytest.importorskip("torch")

from vllm_preflight.verify.replay import split_matches_eager
from vllm_preflight.verify.split import resolve_names, rules_for, run_split, split


class _Doubler:
    def moe(self, hidden_states, router_logits):
        return hidden_states * 2


class _Pair:
    def moe(self, hidden_states, router_logits):
        return hidden_states + 1, hidden_states * 3


def _traced(f):
    from vllm_preflight.verify import ops
    from vllm_preflight.verify.trace import Traced

    ops.register()
    ops.LAYERS["test.doubler"] = _Doubler()
    ops.LAYERS["test.pair"] = _Pair()
    return Traced(torch.fx.symbolic_trace(f), [("input", None)])


def test_attention_and_moe_split_gives_2s_plus_1_pieces(ht_bench):
    sg = ht_bench.sg  # 2 layers: 2 attention + 2 MoE call sites
    assert sg.call_sites == 4
    assert sg.expected_pieces == sg.actual_pieces == 9
    assert [p.splitting for p in sg.pieces] == [False, True] * 4 + [False]
    assert len(sg.captured) == 5


def test_getitem_joins_the_producing_split_op_from_0_11_1(ht_bench):
    """vLLM 0.12.0 `compilation/backends.py: split_graph`, the `operator.getitem` branch before
    `should_split` (PR #28533; present from 0.11.1, absent in 0.11.0): a getitem on a node of an
    earlier subgraph is assigned to its input's subgraph, so `moe_forward_shared`'s tuple is
    unpacked inside the MoE piece and the next captured piece gets two tensors, not a tuple."""
    from vllm_preflight.verify.static_checks import classify_inputs

    kinds = ht_bench.traced.placeholder_kinds()
    shared = next(p for p in ht_bench.sg.pieces if p.splitting and any(
        "moe_forward_shared" in str(n.target) for n in p.nodes))
    assert sum(1 for n in shared.nodes if n.target is operator.getitem) == 2
    uses = [u for u in classify_inputs(ht_bench.sg, kinds) if u.producer == "eager piece"]
    assert all(u.tensors == 1 for u in uses) and len(uses) == 3
    dotted = ["vllm.unified_attention_with_output", "vllm.moe_forward", "vllm.moe_forward_shared"]
    old = split(ht_bench.traced, dotted, "0.11.0")  # no getitem rule (and 0.11.0's dotted names)
    old_uses = [u for u in classify_inputs(old, kinds) if u.producer == "eager piece"]
    assert any(u.tensors == 2 for u in old_uses)  # the tuple crosses into the captured piece


def test_consecutive_split_ops_share_a_subgraph_from_0_15_1(torch_threads):
    """vLLM 0.15.1 (and 0.16.0, 0.33.0) `compilation/backends.py: split_graph`, the "keep
    consecutive splitting ops together" branch (`should_split(node.next, ...)` steps the id
    back); 0.15.0 has no such branch, so each adjacent op gets its own subgraph with an empty
    one between."""
    moe = torch.ops.pfverify.moe_forward

    def f(x):
        a = moe(x, x, "test.doubler")
        b = moe(a, a, "test.doubler")
        return b + 1

    traced = _traced(f)
    old = split(traced, ["vllm::moe_forward"], "0.15.0")
    assert [p.id for p in old.pieces] == [1, 3, 4] and old.expected_pieces == old.actual_pieces == 3
    new = split(traced, ["vllm::moe_forward"], "0.33.0")
    assert [(p.id, p.splitting, len(p.nodes)) for p in new.pieces] == [(1, True, 2), (2, False, 1)]
    x = torch.ones(2, 3)
    assert torch.equal(run_split(old, x), f(x)) and torch.equal(run_split(new, x), f(x))


def test_an_empty_only_subgraph_is_merged_back_from_0_18_0(torch_threads):
    """vLLM 0.18.0 (and 0.33.0) `compilation/backends.py: _merge_empty_only_subgraphs`, called by
    `split_graph` before `split_module`: a subgraph holding only an `empty*` allocation joins the
    previous non-splitting subgraph. 0.17.0 has no such pass."""
    moe = torch.ops.pfverify.moe_forward

    def f(x):
        y = x + 1
        a = moe(y, y, "test.doubler")
        out = torch.empty_like(x)
        b = moe(a, a, "test.doubler")
        return b + out.zero_()

    traced = _traced(f)
    old = split(traced, ["vllm::moe_forward"], "0.17.0")
    new = split(traced, ["vllm::moe_forward"], "0.18.0")
    empty = next(n for n in traced.gm.graph.nodes if n.target is torch.empty_like)
    assert old.part_of[empty] == 2 and new.part_of[empty] == 0
    assert len(new.captured) == len(old.captured) - 1


def test_size_calls_are_decomposed_from_0_19_0(torch_threads):
    """vLLM 0.19.0 (and 0.33.0) `compilation/backends.py: _decompose_size_nodes`, the first step of
    `split_graph`: `x.size()` becomes per-dimension values (static dims inlined as ints)."""
    def f(x):
        return x.view(x.size())

    for release, left in (("0.18.0", 1), ("0.19.0", 0)):
        traced = _traced(f)
        for n in traced.gm.graph.nodes:
            if n.op == "placeholder":
                n.meta["example_value"] = torch.empty(2, 3)
        split(traced, [], release)
        sizes = [n for n in traced.gm.graph.nodes if n.op == "call_method" and n.target == "size"]
        assert len(sizes) == left
        assert torch.equal(traced.gm(torch.ones(2, 3)), torch.ones(2, 3))


def test_rules_per_release():
    assert rules_for("0.11.0").matching == "name" and not rules_for("0.11.0").getitem_to_producer
    r12 = rules_for("0.12.0")
    assert r12.matching == "qualified" and r12.getitem_to_producer and not r12.keep_consecutive
    assert not rules_for("0.15.0").keep_consecutive and rules_for("0.15.1").keep_consecutive
    assert rules_for("0.16.0").keep_consecutive and not rules_for("0.17.1").merge_empty_only
    assert rules_for("0.18.1").merge_empty_only and not rules_for("0.18.1").decompose_size
    r33 = rules_for("0.33.0")
    assert r33.decompose_size and r33 == rules_for("pr-or-unknown") == rules_for("")


def test_names_are_matched_as_should_split_compares_them(torch_threads):
    """vLLM 0.12.0 / 0.33.0 `compilation/partition_rules.py: should_split`: a packet node matches
    its `ns::name`; an overload node matches `ns::name` or `ns::name.overload`. Dynamo records
    `torch.ops.vllm.moe_forward(...)` as the packet, so `vllm::moe_forward.default` never matches."""
    res = resolve_names(["vllm.moe_forward", "vllm::not_an_op", "vllm::moe_forward.default",
                         "vllm::moe_forward", "no_namespace"], "qualified")
    assert res.kept == ["vllm::moe_forward"]
    dropped = dict(res.dropped)
    assert "dotted form" in dropped["vllm.moe_forward"]
    assert "no op vllm::not_an_op" in dropped["vllm::not_an_op"]
    assert "never matches" in dropped["vllm::moe_forward.default"]
    assert "no_namespace" in dropped


def test_release_0_11_0_matches_dotted_names_by_string(ht_bench):
    sg = split(ht_bench.traced, ["vllm.unified_attention_with_output", "vllm.moe_forward", "vllm::moe_forward"],
               "0.11.0")
    # the `::` form means nothing to str(node.target) matching; the dotted ones split
    assert [n for n, _ in sg.resolved.dropped] == ["vllm::moe_forward"]
    assert sg.call_sites == 3  # two attention calls, one moe_forward (moe_forward_shared not listed)


def test_dotted_moe_names_do_not_split_on_newer_releases(ht_bench):
    sg = split(ht_bench.traced, ["vllm::unified_attention_with_output", "vllm.moe_forward",
                                 "vllm.moe_forward_shared"], "0.12.0")
    assert sg.call_sites == 2  # attention only: the MoE stays inside captured pieces


def test_pieces_in_order_equal_eager_bitwise(ht_bench):
    tally = split_matches_eager(ht_bench.model, ht_bench.sg, [1, 3, 8])
    assert tally.ok and tally.level == "EXACT"


def test_tuple_returning_op_split_runs_exactly(torch_threads):
    shared = torch.ops.pfverify.moe_forward_shared

    def f(x):
        s, o = shared(x, x, "test.pair")
        return s * o

    traced = _traced(f)
    sg = split(traced, ["vllm::moe_forward_shared"], "0.12.0")
    op_piece = next(p for p in sg.pieces if p.splitting)
    assert sum(1 for n in op_piece.nodes if n.target is operator.getitem) == 2
    x = torch.ones(2, 3)
    assert torch.equal(run_split(sg, x), f(x))
