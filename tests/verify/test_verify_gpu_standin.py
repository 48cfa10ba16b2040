"""The gpu and multi-gpu tiers' code, run on CPU with a CUDA stand-in (tests/verify/cuda_standin.py),
so that a typo in cudagraphs.py, tiers/gpu.py, gpu_child.py, tiers/multi_gpu.py or moe/deepep.py
fails CI. This proves the orchestration, not CUDA: the gpu tier is unproven on hardware."""
from __future__ import annotations

import functools
import sys
import types
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).parent))
from cuda_standin import FakeCuda

from vllm_preflight.verify import gpu_child, timing
from vllm_preflight.verify.plan import plan_from_resolved
from vllm_preflight.verify.render import Reporter
from vllm_preflight.verify.tiers import gpu, multi_gpu
from vllm_preflight.verify.toy import ToyConfig

SMALL = ToyConfig(hidden=32, ffn=32, experts=4, top_k=2, layers=2)


@pytest.fixture
def standin(monkeypatch, torch_threads):
    def install(recording=True, devices=1, fail_at_end=0, fail_during=0):
        fake = FakeCuda(recording=recording, devices=devices, fail_at_end=fail_at_end, fail_during=fail_during)
        cpu = torch.device("cpu")
        monkeypatch.setattr(gpu, "cuda_runtime", lambda: (fake, cpu))
        monkeypatch.setattr(gpu, "GPU_TOY", SMALL)
        monkeypatch.setattr(multi_gpu, "GPU_TOY", SMALL)
        monkeypatch.setattr(timing, "time_forward", functools.partial(timing.time_forward, warmup=1, iters=3))
        # N4's child, in this process: the same capture, with the stand-in
        monkeypatch.setattr(gpu, "capture_fails_in_child",
                            lambda: gpu.n4_check(gpu_child.capture_report(fake, cpu)))
        return fake
    return install


def _run(tier, rd, **kw):
    plan = plan_from_resolved(rd.resolved(sizes=[1, 2, 4], **kw), "0.12.0")
    return tier.run(plan, Reporter(quiet=True), {})


def _status(run, cid, dtype=None):
    return [c.status for c in run.checks if c.id == cid and (dtype is None or c.metrics.get("dtype") == dtype)]


def test_gpu_tier_runs_with_the_standin_and_every_control_is_caught(standin, rd):
    standin()
    run = _run(gpu, rd)
    assert _status(run, "G1") == ["pass", "pass"] and _status(run, "G2") == ["pass", "pass"]
    g1 = next(c for c in run.checks if c.id == "G1")
    assert g1.metrics["address_mismatches"] == 0 and g1.metrics["relies_on_allocator_reuse"]
    assert {c.id: c.status for c in run.checks if c.id.startswith("N")} == {
        f"N{i}": "expected-fail-observed" for i in range(8)}
    n4 = next(c for c in run.checks if c.id == "N4")
    assert "inside moe_forward" in n4.detail
    rows = run.timings
    assert [r["size"] for r in rows] == [1, 2, 4] and all(r["pool_bytes"] == 2 << 20 for r in rows)
    # vLLM's allocator regime: 5 pieces x 3 sizes x 2 dtypes, gc on for the first piece only
    g0 = next(c for c in run.checks if c.id == "G0")
    assert g0.status == "pass" and g0.metrics == {"gc_on": 6, "gc_off": 24}
    assert run.plan_extra["budget"]["cut"] == []


def test_the_capture_regime_turns_gc_and_empty_cache_off_after_the_first_piece(ht_bench, monkeypatch):
    """vLLM 0.12.0 `compilation/backends.py`: the piecewise backend's wrapper gets
    `CUDAGraphOptions(gc_disable=not is_first_graph)`, and `cuda_graph.py: CUDAGraphWrapper`
    patches `gc.collect` and `torch.cuda.empty_cache` to no-ops while capturing then."""
    import gc

    from vllm_preflight.verify.cudagraphs import CudaGraphs
    from vllm_preflight.verify.replay import AddressLog, GraphRunner, capture_and_replay
    from vllm_preflight.verify.tiers.common import regime_check

    calls = []
    real_collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append("gc") or real_collect(*a))
    fake = FakeCuda()
    graphs = CudaGraphs(torch.device("cpu"), cuda=fake)
    capture_and_replay(ht_bench.model, GraphRunner("piecewise", ht_bench.sg, graphs.wrapper, AddressLog()),
                       [1, 2], [], replays=1)
    assert graphs.regime == {"gc_on": 2, "gc_off": 8, "gc_calls_while_off": 16}
    assert len(calls) == 2 and fake.empty_cache_calls == 2  # the first piece, once per size
    assert regime_check([("piecewise", 2, graphs.regime)]).status == "pass"
    every_piece = dict(graphs.regime, gc_on=10, gc_off=0, gc_calls_while_off=0)  # gc left on: not vLLM's
    assert regime_check([("piecewise", 2, every_piece)]).status == "fail"


@pytest.mark.parametrize("where", ["during", "capture_end"])
def test_a_failed_capture_is_a_finding_with_torchs_message_and_the_stream_restored(standin, rd, where):
    """A capture that raises (an op inside it, or capture_end on an invalidated capture) is
    G1 FAIL naming torch's error (exit 1), never an internal error; the stream current before
    the capture is current again and no capture stays open; the controls still run."""
    fake = standin(fail_at_end=int(where == "capture_end"), fail_during=int(where == "during"))
    run = _run(gpu, rd)
    g1 = [c for c in run.checks if c.id == "G1"]
    assert [c.status for c in g1] == ["fail"] and g1[0].metrics["stream_restored"] is True
    assert "stand-in" in g1[0].detail and "operation" in g1[0].detail
    assert fake.current == "default stream" and not fake.is_current_stream_capturing()
    assert {c.id for c in run.checks if c.id.startswith("N") and c.status == "expected-fail-observed"} == {
        f"N{i}" for i in range(8)}


def test_capture_time_excludes_the_graph_contexts_entry_and_pool_bytes_read_the_pool(torch_threads):
    """capture_s times the capture alone (torch.cuda.graph's entry synchronises, collects and
    empties the cache first); pool_bytes sums the allocator segments of this runner's pool only."""
    from vllm_preflight.verify.cudagraphs import CudaGraphs

    fake = FakeCuda(entry_s=0.3)
    graphs = CudaGraphs(torch.device("cpu"), cuda=fake)
    out = graphs.capture(fake.CUDAGraph(), lambda t: t * 2, (torch.ones(4),), size=4)
    assert torch.equal(out, torch.full((4,), 2.0))
    assert 0 < graphs.capture_s[4] < 0.3
    assert graphs.pool_bytes() == 2 << 20  # the (0, 7) segment; the other pool's 1 MiB is not ours


@pytest.mark.parametrize("recording", [True, False])
def test_g1_reads_what_the_graph_replays(ht_bench, recording):
    """With the stand-in's recording graph the CUDA-graph runner replays bitwise; with a graph
    that replays nothing, the same check fails (G1 can fail)."""
    from vllm_preflight.verify.cudagraphs import CudaGraphs
    from vllm_preflight.verify.replay import AddressLog, GraphRunner, capture_and_replay
    from vllm_preflight.verify.tiers.common import replay_checks

    graphs, log = CudaGraphs(torch.device("cpu"), cuda=FakeCuda(recording=recording)), AddressLog()
    res = capture_and_replay(ht_bench.model, GraphRunner("piecewise", ht_bench.sg, graphs.wrapper, log),
                             [1, 2, 4], [], replays=1)
    (g1,) = replay_checks(("G1", "G2"), res, log, "piecewise", "float32", "CUDA-graph piecewise")
    assert g1.status == ("pass" if recording else "fail")


def test_n4_needs_a_host_read_under_capture_not_an_error_text():
    assert gpu.n4_check({"raised": True, "error": "RuntimeError: operation not permitted when stream is capturing",
                         "host_syncs_under_capture": []}).status == "fail"
    ok = gpu.n4_check({"raised": True, "error": "RuntimeError: x",
                       "host_syncs_under_capture": [{"op": "aten._local_scalar_dense", "in": "moe_forward"}]})
    assert ok.status == "expected-fail-observed" and "inside moe_forward" in ok.detail


def test_multi_gpu_tier_runs_checks_and_controls_for_a_capturable_plan(standin, rd, monkeypatch):
    """Non-HT plans get run-time checks too (C2 with the capturable MoE behind the op), and the
    tier runs N0-N2 and N4. The ranks' launch is exercised by the cpu tier's gloo run; here the
    job the tier would send them is checked and their answer stands in."""
    standin(devices=2)
    sent = {}

    def ranks(job, world, deadline):
        sent.update(job, world=world)
        answer = {"id": "C2", "status": "pass", "detail": "stand-in", "metrics": {}}
        return [{"rank": r, "checks": [answer], "error": None} for r in range(world)], None

    monkeypatch.setattr(multi_gpu, "run_ranks", ranks)
    run = _run(multi_gpu, rd, backend="deepep_low_latency", cudagraph_mode="PIECEWISE")
    assert sent["moe"] == "dense" and sent["ids"] == ["C2"] and not sent["protocol"] and sent["world"] == 2
    assert _status(run, "C2") == ["pass"] and len(run.ranks) == 2
    assert {c.id for c in run.checks if c.status == "expected-fail-observed"} == {
        "N0", "N1", "N2", "N4", "N5", "N6", "N7"}
    assert run.device == "2x CUDA stand-in (CPU)"


def test_a_rank_behind_a_capturable_plan_runs_the_dense_moe():
    from vllm_preflight.verify.dist_worker import _moe_impl
    from vllm_preflight.verify.moe.experts import DenseMoE

    assert isinstance(_moe_impl({"moe": "dense"}, None, {}), DenseMoE)


class _FakeBuffer:
    """deep_ep's legacy Buffer for one rank: every token is received, ids are already local."""

    num_sms = 20

    def __init__(self, group, num_nvl_bytes=0, num_rdma_bytes=0, low_latency_mode=False, num_qps_per_rank=24,
                 explicitly_destroy=False):
        self.group_size, self.rank, self.nvl = 1, 0, num_nvl_bytes
        self.destroyed = False

    @staticmethod
    def get_dispatch_config(n):
        return types.SimpleNamespace(get_nvl_buffer_size_hint=lambda hidden_bytes, ranks: 1 << 20)

    get_combine_config = get_dispatch_config

    def get_dispatch_layout(self, topk_idx, num_experts):
        from vllm_preflight.verify.moe.ht import get_layout

        lay = get_layout(topk_idx, num_experts, 1)
        return lay.num_tokens_per_rank, None, lay.num_tokens_per_expert, lay.is_token_in_rank, None

    def dispatch(self, x, num_tokens_per_rank, num_tokens_per_rdma_rank, is_token_in_rank, num_tokens_per_expert,
                 topk_idx, topk_weights, async_finish=False):
        return x, topk_idx, topk_weights, num_tokens_per_expert.tolist(), "handle", None

    def combine(self, x, handle):
        return x, None, None

    def destroy(self):
        self.destroyed = True


def test_deepep_moe_calls_the_legacy_buffer_in_vllms_order(monkeypatch, torch_threads):
    from vllm_preflight.verify.moe import deepep
    from vllm_preflight.verify.moe.experts import Experts, dense_moe, route

    monkeypatch.setitem(sys.modules, "deep_ep", types.SimpleNamespace(Buffer=_FakeBuffer))
    buf = deepep.make_buffer(None, SMALL, 1)
    assert buf.nvl == 1 << 20
    g = torch.Generator().manual_seed(3)
    experts = Experts(32, 32, 4, False, g)
    x = torch.randn(5, 32, generator=g)
    idx, w = route(torch.randn(5, 4, generator=g), 2)
    got = deepep.DeepEPMoE(buf)(x, idx, w, experts)
    want = dense_moe(x.to(torch.bfloat16).float(), idx, w, experts)
    assert torch.allclose(got, want, atol=5e-2) and got.shape == (5, 32)
    buf.destroy()
    assert buf.destroyed
