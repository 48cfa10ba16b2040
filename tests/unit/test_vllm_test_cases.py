"""Cases from vLLM's own tests (tests/compile/test_config.py, tests/test_config.py; collected in
the shared docs' vllm-test-cases.json), run against our config-level resolver."""
import pytest

from vllm_preflight.releases import get_release
from vllm_preflight.resolve import resolve_configs


def attention_ops(version):
    return get_release(version).facts["attention_ops"]


@pytest.mark.parametrize("version", ["0.12.0", "0.13.0", "0.33.0"])
def test_default_vllm_config_is_compiled_with_full_and_piecewise_graphs(version):
    # test_splitting_ops_dynamic[default VllmConfig()] @ 0.12.0+
    cc = resolve_configs(version).resolved["compilation_config"]
    assert cc["cudagraph_mode"] == "FULL_AND_PIECEWISE"
    assert all(op in cc["splitting_ops"] for op in attention_ops(version))
    assert cc["cudagraph_capture_sizes"] == [] and cc["max_cudagraph_capture_size"] == 0


def test_default_splitting_ops_include_the_fused_gdn_op_from_0_28():
    cc = resolve_configs("0.33.0").resolved["compilation_config"]
    assert "vllm::qwen_gdn_attention_core_fused_norm_packed" in cc["splitting_ops"]


@pytest.mark.parametrize("version,op", [("0.12.0", "vllm::unified_attention"),
                                        ("0.33.0", "vllm::unified_attention_with_output")])
def test_inductor_partition_keeps_the_user_list(version, op):
    res = resolve_configs(version, compilation_config={
        "mode": "VLLM_COMPILE", "use_inductor_graph_partition": True, "splitting_ops": [op]})
    assert res.resolved["compilation_config"]["splitting_ops"] == [op]


@pytest.mark.parametrize("version", ["0.12.0", "0.13.0", "0.33.0"])
def test_attention_fusion_forces_full_graphs_without_splitting(version):
    res = resolve_configs(version, compilation_config={
        "mode": "VLLM_COMPILE", "pass_config": {"fuse_attn_quant": True, "eliminate_noops": True},
        "custom_ops": ["+quant_fp8"], "cudagraph_mode": "PIECEWISE"})
    cc = res.resolved["compilation_config"]
    assert cc["splitting_ops"] == [] and cc["cudagraph_mode"] == "FULL"


@pytest.mark.parametrize("version", ["0.12.0", "0.33.0"])
def test_attention_fusion_with_attention_split_out_is_refused(version):
    res = resolve_configs(version, compilation_config={
        "mode": "VLLM_COMPILE", "pass_config": {"fuse_attn_quant": True, "eliminate_noops": True},
        "custom_ops": ["+quant_fp8"], "cudagraph_mode": "PIECEWISE", "splitting_ops": attention_ops(version)})
    assert res.vllm_error.type == "ValidationError"
    assert "attention ops should not be in splitting_ops" in res.vllm_error.message


def test_attention_fusion_with_inductor_partition_keeps_piecewise_graphs():
    res = resolve_configs("0.13.0", compilation_config={
        "mode": "VLLM_COMPILE", "use_inductor_graph_partition": True,
        "pass_config": {"fuse_attn_quant": True, "eliminate_noops": True}, "custom_ops": ["+quant_fp8"],
        "cudagraph_mode": "PIECEWISE"})
    cc = res.resolved["compilation_config"]
    assert cc["cudagraph_mode"] == "PIECEWISE"
    assert all(op in cc["splitting_ops"] for op in attention_ops("0.13.0"))


@pytest.mark.parametrize("version,op", [("0.13.0", "vllm::unified_attention"),
                                        ("0.33.0", "vllm::unified_attention_with_output")])
def test_moe_splitting_ops_deepep_ht_inductor_partition(version, op):
    # the one released test of PR #29558: a user list holding the MoE ops is kept as is
    user = [op, "vllm::moe_forward", "vllm::moe_forward_shared"]
    res = resolve_configs(version, parallel_config={"all2all_backend": "deepep_high_throughput",
                                                    "data_parallel_size": 8},
                          compilation_config={"mode": "VLLM_COMPILE", "use_inductor_graph_partition": True,
                                              "splitting_ops": user})
    assert res.resolved["compilation_config"]["splitting_ops"] == user


def test_parallel_config_default_backend_from_0_14():
    res = resolve_configs("0.14.1")
    assert res.resolved["parallel_config"]["all2all_backend"] == "allgather_reducescatter"


@pytest.mark.parametrize("old,new", [("enable_fusion", ["fuse_norm_quant", "fuse_act_quant"]),
                                     ("enable_attn_fusion", ["fuse_attn_quant"]),
                                     ("enable_noop", ["eliminate_noops"]),
                                     ("enable_sequence_parallelism", ["enable_sp"]),
                                     ("enable_async_tp", ["fuse_gemm_comms"])])
def test_0_12_maps_deprecated_pass_config_names(old, new):
    # test_pass_config_deprecation @ 0.12.0
    res = resolve_configs("0.12.0", compilation_config={"mode": "NONE", "pass_config": {old: True}})
    pc = res.resolved["compilation_config"]["pass_config"]
    assert all(pc[n] is True for n in new) and pc[old] is None
    assert any(f"{old} is deprecated" in e.reason for e in res.events)


def test_0_13_rejects_deprecated_pass_config_names():
    res = resolve_configs("0.13.0", compilation_config={"pass_config": {"enable_attn_fusion": True}})
    assert res.vllm_error is not None and res.vllm_error.type == "ValidationError"
