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

from vllm_preflight.capture.plan import plan_from_resolved
from vllm_preflight.verify import gpu_child, timing
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
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append("gc") or 0)
    fake = FakeCuda()
    graphs = CudaGraphs(torch.device("cpu"), cuda=fake)
    capture_and_replay(ht_bench.model, GraphRunner("piecewise", ht_bench.sg, graphs.wrapper, AddressLog()),
                       [1, 2], [], replays=1)
    assert graphs.regime == {"gc_on": 2, "gc_off": 8, "gc_calls_while_off": 16}
    assert len(calls) == 2 and fake.empty_cache_calls == 2  # the first piece, once per size
    assert regime_check([("piecewise", 2, graphs.regime)]).status == "pass"
    every_piece = dict(graphs.regime, gc_on=10, gc_off=0, gc_calls_while_off=0)  # gc left on: not vLLM's
    assert regime_check([("piecewise", 2, every_piece)]).status == "fail"


def test_a_failed_capture_is_a_finding_with_torchs_message_and_the_stream_restored(standin, rd):
    """A capture that raises is G1 FAIL naming torch's error (exit 1), never an internal error;
    the stream current before the capture is current again and no capture stays open; the
    controls still run."""
    fake = standin(fail_during=1)
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
    # without deep_ep's LL API a dense stand-in ran: LL's capturability is assumed, and C3 says so
    (c3,) = [c for c in run.checks if c.id == "C3"]
    assert c3.status == "warn" and "assumed" in c3.detail and _status(run, "C0") == ["info"]
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

    def __init__(self, group=None, num_nvl_bytes=0, num_rdma_bytes=0, low_latency_mode=False, num_qps_per_rank=24,
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


def test_plans_that_do_not_dispatch_through_deepep_run_without_it(monkeypatch, rd, torch_threads):
    """deep_ep is required for DeepEP-HT plans only: a low-latency plan runs (real LL where
    deep_ep has it, else a dense stand-in and a C3 warning) and a plan without DeepEP never asks."""
    from vllm_preflight.verify import environment

    monkeypatch.setattr(environment, "cuda_devices", lambda: (2, "stand-in"))
    monkeypatch.setattr(environment, "deep_ep_status", lambda import_it: {"legacy_ht": False, "detail": "not installed"})
    monkeypatch.setattr(torch.distributed, "is_nccl_available", lambda: True)

    def needs(**kw):
        return multi_gpu.requirements({"plan": plan_from_resolved(rd.resolved(**kw), "0.13.0")})

    assert needs(backend="deepep_low_latency") == [] and needs(backend="naive") == [] and needs(dp=1) == []
    (missing,) = needs()
    assert "deep_ep with the legacy Buffer" in missing
    assert multi_gpu.dispatch_kind(plan_from_resolved(rd.resolved(backend="deepep_low_latency"), "0.13.0")) == "deepep_ll"


def test_the_coverage_says_what_lies_beyond_one_node(rd):
    wide = multi_gpu.coverage_check(plan_from_resolved(rd.resolved(dp=16), "0.13.0"), 8)
    assert wide.status == "info" and "NOT covered" in wide.detail and "data_parallel_size 16" in wide.detail


def _child(output="", timed_out=False, returncode=0):
    from vllm_preflight.verify.watchdog import ChildResult

    return ChildResult(None if timed_out else returncode, timed_out, output, 60.0 if timed_out else 3.0)


def test_n8_is_caught_by_a_hang_or_every_rank_raising_and_not_by_a_capture_that_works():
    from vllm_preflight.verify.dist_worker import DRILL_TAG

    def line(rank, outcome, error=None):
        return f"[rank {rank}] " + DRILL_TAG + __import__("json").dumps({"rank": rank, "outcome": outcome, "error": error})

    assert multi_gpu.n8_check(_child("[rank 0] capturing ...", timed_out=True), 2).status == "expected-fail-observed"
    both = "\n".join(line(r, "raised", "RuntimeError: DeepEP error: CPU recv timeout") for r in (0, 1))
    assert multi_gpu.n8_check(_child(both), 2).status == "expected-fail-observed"
    worked = "\n".join([line(0, "raised", "x"), line(1, "captured")])
    c = multi_gpu.n8_check(_child(worked), 2)
    assert c.status == "fail" and "rank 1 captured and replayed" in c.detail
    assert multi_gpu.n8_check(_child("[rank 0] ImportError", returncode=1), 2).status == "fail"


class _HostWaitingBuffer(_FakeBuffer):
    """The HT buffer's host wait: the receive counts are read on the host before the receive
    tensors are allocated, as DeepEP's CPU spins on its mapped counters."""

    def dispatch(self, x, num_tokens_per_rank, *args, **kwargs):
        int(num_tokens_per_rank.sum().item())
        return super().dispatch(x, num_tokens_per_rank, *args, **kwargs)


@pytest.mark.parametrize("moe, outcome", [("deepep", "raised"), ("dense", "captured")])
def test_the_full_graph_drill_reports_what_the_capture_did(torch_threads, moe, outcome):
    """N8's rank side, in this process with the CUDA stand-in: HT's host wait makes the capture
    raise; a capturable MoE would be captured (the control then reports NOT CAUGHT)."""
    from vllm_preflight.verify import dist_worker

    job = {"moe": moe, "toy": {f: getattr(SMALL, f) for f in ("hidden", "ffn", "experts", "top_k", "layers")}}
    got = dist_worker.full_ht_drill(job, 0, torch.device("cpu"), {"buffer": _HostWaitingBuffer(None)}, cuda=FakeCuda())
    assert got["outcome"] == outcome and (got["error"] is None) == (outcome == "captured")


class _FakeLowLatencyBuffer(_FakeBuffer):
    """deep_ep's low-latency API for one rank: tokens packed per local expert into a fixed-shape
    slab, combine weighing and summing the top-k slots."""

    def low_latency_dispatch(self, x, topk_idx, max_tokens, num_experts, use_fp8=False, async_finish=False,
                             return_recv_hook=False):
        slab = torch.zeros(num_experts, max_tokens, x.shape[1], dtype=x.dtype)
        count = torch.zeros(num_experts, dtype=torch.int32)
        where = torch.full(topk_idx.shape, -1)
        for t in range(x.shape[0]):
            for k in range(topk_idx.shape[1]):
                e = int(topk_idx[t, k])
                slab[e, count[e]] = x[t]
                where[t, k] = count[e]
                count[e] += 1
        return slab, count, where, None, None

    @staticmethod
    def get_low_latency_rdma_size_hint(max_tokens, hidden, ranks, experts):
        return 1 << 20

    def low_latency_combine(self, x, topk_idx, topk_weights, handle, async_finish=False, return_recv_hook=False):
        out = torch.zeros(topk_idx.shape[0], x.shape[2])
        for t in range(topk_idx.shape[0]):
            for k in range(topk_idx.shape[1]):
                out[t] += topk_weights[t, k] * x[int(topk_idx[t, k]), int(handle[t, k])].float()
        return out.to(torch.bfloat16), None, None


def test_the_low_latency_moe_calls_deepeps_ll_api_and_matches_the_dense_reference(torch_threads, monkeypatch):
    from vllm_preflight.verify.moe import deepep
    from vllm_preflight.verify.moe.experts import Experts, dense_moe, route

    monkeypatch.setitem(sys.modules, "deep_ep", types.SimpleNamespace(Buffer=_FakeLowLatencyBuffer))
    buf = deepep.make_ll_buffer(None, SMALL, 1, 8)
    assert isinstance(buf, _FakeLowLatencyBuffer) and buf.nvl == 0

    assert deepep.has_low_latency(types.SimpleNamespace(Buffer=_FakeLowLatencyBuffer))
    assert not deepep.has_low_latency(types.SimpleNamespace(Buffer=_FakeBuffer))
    g = torch.Generator().manual_seed(5)
    experts = Experts(32, 32, 4, False, g)
    x = torch.randn(6, 32, generator=g)
    idx, w = route(torch.randn(6, 4, generator=g), 2)
    got = deepep.DeepEPLowLatencyMoE(_FakeLowLatencyBuffer(None), max_tokens=8)(x, idx, w, experts)
    want = dense_moe(x.to(torch.bfloat16).float(), idx, w, experts)
    assert got.shape == (6, 32) and torch.allclose(got, want, atol=5e-2)


@pytest.mark.parametrize("where", ["during", "capture_end"])
def test_a_capture_that_raises_anywhere_ends_the_capture_and_restores_the_stream(torch_threads, where):
    """torch.cuda.graph restores the stream only when capture_end succeeds; CudaGraphs ends a
    failed capture itself and puts the stream back, whether an op or capture_end raised."""
    from vllm_preflight.verify.cudagraphs import CaptureFailed, CudaGraphs

    fake = FakeCuda(fail_at_end=int(where == "capture_end"), fail_during=int(where == "during"))
    fake.current = "side stream"
    graphs = CudaGraphs(torch.device("cpu"), cuda=fake)
    with pytest.raises(CaptureFailed) as failed:
        graphs.capture(fake.CUDAGraph(), lambda t: t * 2, (torch.ones(4),), size=4, name="submod_0")
    assert failed.value.stream_restored and fake.current == "side stream" and not fake.is_current_stream_capturing()
    assert "stand-in" in failed.value.message and failed.value.unit == "submod_0"
