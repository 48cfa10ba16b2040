"""The seed's three unit tests (PR #29558 at 7 of 11 commits), as tests of our pr29558 target.

They build VllmConfig without a model, as tests/compile/test_config.py does in vLLM.
"""
from vllm_preflight.resolve import resolve_configs

MOE_OPS = ("vllm::moe_forward", "vllm::moe_forward_shared")
DEEPEP_DP8 = {"all2all_backend": "deepep_high_throughput", "data_parallel_size": 8}


def test_moe_splitting_ops_deepep_ht_piecewise():
    # DeepEP HT with dp>1, no inductor partition, no attention fusion: the MoE ops are
    # added to the default (attention) splitting ops
    res = resolve_configs("pr29558", parallel_config=DEEPEP_DP8,
                          compilation_config={"mode": "VLLM_COMPILE"})
    ops = res.resolved["compilation_config"]["splitting_ops"]
    assert ops is not None
    assert "vllm::moe_forward" in ops and "vllm::moe_forward_shared" in ops
    assert "vllm::unified_attention" in ops


def test_moe_splitting_ops_deepep_ht_inductor_partition():
    # a user list holding the MoE ops is kept unchanged under inductor partition
    user = ["vllm::unified_attention", "vllm::moe_forward", "vllm::moe_forward_shared"]
    res = resolve_configs("pr29558", parallel_config=DEEPEP_DP8,
                          compilation_config={"mode": "VLLM_COMPILE", "use_inductor_graph_partition": True,
                                              "splitting_ops": user})
    assert res.resolved["compilation_config"]["splitting_ops"] == user


def test_moe_splitting_ops_deepep_ht_attn_fusion_no_inductor():
    # pure attention+quant fusion without partition: no piecewise graphs, no MoE split
    res = resolve_configs("pr29558", parallel_config=DEEPEP_DP8, compilation_config={
        "mode": "VLLM_COMPILE", "pass_config": {"enable_attn_fusion": True, "enable_noop": True},
        "custom_ops": ["+quant_fp8"], "cudagraph_mode": "PIECEWISE"})
    cc = res.resolved["compilation_config"]
    assert cc["splitting_ops"] == []
    assert cc["cudagraph_mode"] == "FULL"


def test_user_list_without_moe_ops_is_refused():
    # the design's ValueError, raised inside config construction: callers see ValidationError
    res = resolve_configs("pr29558", parallel_config=DEEPEP_DP8,
                          compilation_config={"mode": "VLLM_COMPILE",
                                              "splitting_ops": ["vllm::unified_attention"]})
    assert res.vllm_error is not None and res.vllm_error.type == "ValidationError"
    assert "requires splitting MoE ops" in res.vllm_error.message


def test_released_0_12_turns_graphs_off_instead():
    res = resolve_configs("0.12.0", parallel_config=DEEPEP_DP8, compilation_config={"mode": "VLLM_COMPILE"})
    cc = res.resolved["compilation_config"]
    assert cc["cudagraph_mode"] == "NONE"
    assert not any(op in cc["splitting_ops"] for op in MOE_OPS)
    assert any(e.rule == "deepep_ht.disable_cudagraphs" for e in res.events)
