"""Issue 9: the first release of each config-time rule, read in every release's sources instead of
assumed like its neighbours. Each expectation names the source it comes from (vLLM file:line of that
release) or the real-vLLM recording that backs it."""
import json

import pytest

from vllm_preflight.model import Deployment
from vllm_preflight.releases import SUPPORTED, get_release
from vllm_preflight.releases.runtime_rules import V2_RUNNER_DEFAULT_FIRST
from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.runtime import runtime_rules

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
MIXTRAL = "mistralai/Mixtral-8x7B-Instruct-v0.1"
P2P = json.dumps({"kv_connector": "P2pNcclConnector", "kv_role": "kv_both"})


def _run(version, *args, env=(), model=LLAMA):
    return resolve(Deployment(argv=("vllm", "serve", model) + args, env=tuple(env)), version)


def _err(res):
    return None if res.vllm_error is None else f"{res.vllm_error.type}: {res.vllm_error.message}"


# ------------------------------------------------------------ PassConfig pass-key names
@pytest.mark.parametrize("version", SUPPORTED)
def test_pass_key_names_are_passconfig_fields_of_their_release(version):
    """sp_name / async_tp_name / attn_fusion_name name fields of that release's PassConfig
    (config/compilation.py; recorded field lists in releases/data/facts.json)."""
    rel = get_release(version)
    fields = set(rel.facts["pass_config_order"])
    for knob in ("sp_name", "async_tp_name", "attn_fusion_name"):
        name = rel.rules[knob]
        assert name is None or name in fields, (version, knob, name)


@pytest.mark.parametrize("version", ["0.32.0", "0.33.0"])
def test_sequence_parallel_keys_are_gone_from_0_32(version):
    """0.32.0 removed the SP and async-TP passes: PassConfig (config/compilation.py:114-150) has no
    enable_sp / fuse_gemm_comms field, so no rule reads one and -cc naming it is refused."""
    rel = get_release(version)
    assert rel.rules["sp_name"] is None and rel.rules["async_tp_name"] is None
    for key in ("enable_sp", "fuse_gemm_comms"):
        res = _run(version, "-tp", "2", "-cc", json.dumps({"pass_config": {key: True}}))
        assert res.vllm_error is not None and f"pass_config.{key}\n  Unexpected keyword argument" in \
            res.vllm_error.message
    res = _run(version, "-tp", "2")
    assert res.vllm_error is None and "enable_sp" not in res.resolved["compilation_config"]["pass_config"]


def test_0_31_still_names_enable_sp():
    rel = get_release("0.31.0")
    assert rel.rules["sp_name"] == "enable_sp" and rel.rules["async_tp_name"] == "fuse_gemm_comms"


# ------------------------------------------------------------ KV connector lookup
def test_kv_connector_lookup_without_full_graphs_starts_in_0_22():
    """0.21.0 looks the connector up only with full CUDA graphs (config/vllm.py:1108-1117; its HMA
    default :1340 does not ask the class); 0.22.0's HMA default does (:1440-1451), for any
    KV-transfer config. P2pNcclConnector (registered through 0.23.0) imports msgpack, not
    installed from 0.18.0 (recorded on 0.21.0)."""
    assert _err(_run("0.21.0", "--enforce-eager", "--kv-transfer-config", P2P)) is None
    for version in ("0.22.0", "0.22.1", "0.23.0"):
        assert _err(_run(version, "--enforce-eager", "--kv-transfer-config", P2P)) == \
            "ModuleNotFoundError: No module named 'msgpack'"
        no_name = _run(version, "--enforce-eager", "--kv-transfer-config", '{"kv_role": "kv_both"}')
        assert "Connector name is not set in KVTransferConfig" in _err(no_name)
    # 0.24.0 no longer registers it (kv_connector/factory.py): the recorded value set refuses it
    assert "Unsupported connector type: P2pNcclConnector" in _err(
        _run("0.24.0", "--enforce-eager", "--kv-transfer-config", P2P))


@pytest.mark.parametrize("flag", ["--disable-hybrid-kv-cache-manager", "--no-disable-hybrid-kv-cache-manager"])
def test_an_hma_preference_skips_that_lookup(flag):
    """The HMA-default block runs only when disable_hybrid_kv_cache_manager is None (0.33.0
    config/vllm.py:2257); recorded on real 0.33.0: with either flag and no full graphs an unknown
    connector and a missing connector name pass; with full graphs the layerwise check (:1976-1989)
    still looks the connector up."""
    for version in ("0.22.0", "0.33.0"):
        assert _err(_run(version, "--enforce-eager", flag, "--kv-transfer-config", P2P)) is None
        assert _err(_run(version, flag, "--kv-transfer-config", '{"kv_role": "kv_both"}')) is None
    assert "Unsupported connector type: P2pNcclConnector" in _err(_run("0.33.0", flag, "--kv-transfer-config", P2P))


# ------------------------------------------------------------ ray (and msgpack with it)
def test_ray_is_installed_through_0_17_1():
    """Each wheel's METADATA: `Requires-Dist: ray[cgraph]>=2.48.0` in 0.14.0-0.17.1, no ray
    requirement in 0.18.0-0.21.0 (read 0.14.0-0.21.0)."""
    assert [v for v in SUPPORTED if get_release(v).rules["ray_installed"]][-1] == "0.17.1"
    assert _err(_run("0.17.1", "-tp", "2", "--distributed-executor-backend", "ray")) is None
    assert "Failed to import Ray" in _err(_run("0.18.0", "-tp", "2", "--distributed-executor-backend", "ray"))


def test_msgpack_comes_with_ray():
    """With full CUDA graphs 0.17.0+ look the connector up; P2pNcclConnector's msgpack import
    fails only where ray (which requires msgpack) is no longer installed."""
    assert _err(_run("0.17.1", "--kv-transfer-config", P2P)) is None
    assert _err(_run("0.18.0", "--kv-transfer-config", P2P)) == "ModuleNotFoundError: No module named 'msgpack'"


def _on_ray_node(version, *args):
    """A server whose launch shows ray on its node (a Ray cluster's pod, a script that runs
    `ray start`): the loaders give it node_facts and the node.ray assumption."""
    from vllm_preflight.model import Assumption

    d = Deployment(argv=("vllm", "serve", LLAMA) + args, node_facts=(("ray", True),),
                   assumptions=(Assumption("node.ray", True, "the server runs on a Ray cluster (RayCluster)"),))
    return resolve(d, version), resolve(d, version, full_plan=True)


@pytest.mark.parametrize("version", ["0.18.0", "0.22.0", "0.33.0"])
def test_a_launch_that_shows_ray_on_the_node_is_not_refused_for_a_missing_ray(version):
    """The release's wheel lacks ray, but the node has it (the deployment's node_facts): the ray
    executor (and msgpack, which ray requires) is there; the report says node.ray once, the
    launch's True, and the pruned plan resolves like the full one."""
    for args in (("-tp", "2", "--distributed-executor-backend", "ray"),
                 ("-tp", "2", "-dp", "2", "--data-parallel-backend", "ray")):
        res, full = _on_ray_node(version, *args)
        assert _err(res) is None, (args, _err(res))
        assert [a.value for a in res.assumptions if a.fact == "node.ray"] == [True]
        assert (res.resolved, res.assumptions, res.events) == (full.resolved, full.assumptions, full.events)
    if version == "0.18.0":  # P2pNcclConnector is registered through 0.23.0
        res, _full = _on_ray_node(version, "--kv-transfer-config", P2P)
        assert _err(res) is None and not any(a.fact == "node.msgpack" for a in res.assumptions)


# ------------------------------------------------------------ async scheduling + PP
V1 = [("VLLM_USE_V2_MODEL_RUNNER", "0")]


@pytest.mark.parametrize("version", ["0.15.0", "0.29.0", "0.30.0"])
def test_async_pp_not_checked_0_15_to_0_30(version):
    """No release 0.15.0-0.30.0 checks async scheduling with PP (config/vllm.py of each)."""
    assert _err(_run(version, "-pp", "2", "--async-scheduling", env=V1)) is None


@pytest.mark.parametrize("version", ["0.31.0", "0.32.0"])
def test_async_pp_refused_by_the_v1_runner_check_0_31(version):
    """0.31.0: _get_v1_model_runner_unsupported_features lists "pipeline parallelism with async
    scheduling" (config/vllm.py:3120-3124), refused by _validate_v1_model_runner (:2051-2054)."""
    want = ("ValidationError: 1 validation error for VllmConfig\n  Value error, Model Runner V1 does not "
            "support: pipeline parallelism with async scheduling")
    assert _err(_run(version, "-pp", "2", "--async-scheduling", env=V1)) == want
    assert _err(_run(version, "-pp", "2", "--async-scheduling")) is None  # V2 by default
    assert _err(_run(version, "-pp", "2", env=V1)) is None  # async off: nothing to refuse


def test_async_pp_stock_compile_takes_v1_on_0_31():
    """0.31.0: stock torch.compile is a feature V2 lacks (config/vllm.py _get_v2_..., 'stock
    torch.compile'), so the V1 runner runs and refuses async scheduling with PP."""
    assert "Model Runner V1 does not support" in _err(_run("0.31.0", "-pp", "2", "--async-scheduling",
                                                             "-cc.mode=1"))
    assert _err(_run("0.32.0", "-pp", "2", "--async-scheduling", "-cc.mode=1")) is None  # 0.32.0: V2 takes it


def test_async_pp_recorded_on_0_31():
    """Recorded on real 0.31.0 (llama-dense): the runner is validated at the end of __post_init__,
    after sequence parallelism was switched off for a model below the SP threshold (so V2 stays);
    prefill context parallel is listed first."""
    fixture = "tests/fixtures/models/llama-dense"
    assert _err(_run("0.31.0", "-pp", "2", "-tp", "2", "--async-scheduling", "-cc.pass_config.enable_sp=true",
                     model=fixture)) is None
    assert _err(_run("0.31.0", "-pp", "2", "--async-scheduling", "-pcp", "2", env=V1, model=fixture)).endswith(
        "Model Runner V1 does not support: prefill context parallel, pipeline parallelism with async scheduling")
    # P2pNcclConnector is not registered from 0.24.0: refused without a recorded value set (0.31.0)
    assert "Unsupported connector type: P2pNcclConnector" in _err(
        _run("0.31.0", "--enforce-eager", "--kv-transfer-config", P2P, model=fixture))


@pytest.mark.parametrize("version", ["0.29.0", "0.30.0"])
def test_v1_runner_refuses_prefill_context_parallel_from_0_29(version):
    """_validate_v1_model_runner appears in 0.29.0 (config/vllm.py:1653-1656): prefill context
    parallel on the V1 runner is refused (recorded on real 0.30.0); 0.28.0 has no such check."""
    fixture = "tests/fixtures/models/llama-dense"
    assert _err(_run(version, "-pp", "2", "--async-scheduling", "-pcp", "2", env=V1, model=fixture)).endswith(
        "Model Runner V1 does not support: prefill context parallel")
    assert _err(_run(version, "-pcp", "2", model=fixture)) is None  # V2 by default
    assert _err(_run("0.28.0", "-pcp", "2", env=V1, model=fixture)) is None


def test_async_pp_up_front_on_0_33():
    assert _err(_run("0.33.0", "-pp", "2", "--async-scheduling", env=V1)).endswith(
        "Async scheduling is not supported by the V1 model runner with pipeline parallelism.")


# ------------------------------------------------------------ the V2 model runner's default
def test_v2_default_release_is_one_fact():
    """0.29.0 config/vllm.py:645-677: V2 unless a feature it lacks; 0.28.0 :615-660 only for
    `_is_default_v2_model_runner_model` (listed architectures, or dense models from 0.25.0)."""
    assert V2_RUNNER_DEFAULT_FIRST == "0.29.0"
    assert next(v for v in SUPPORTED if runtime_rules(v).v2_runner == "default") == V2_RUNNER_DEFAULT_FIRST
    assert "v2_runner_default" not in get_release("0.33.0").rules  # no second copy in releases/changes.py
    assert _run("0.28.0", model=MIXTRAL).resolved["runtime"]["model_runner"] == "V1"
    assert _run("0.29.0", model=MIXTRAL).resolved["runtime"]["model_runner"] == "V2"


CONFIGS = [(), ("--enable-dbo", "-dp", "2", "-ep", "--all2all-backend", "deepep_low_latency"), ("-tp", "2"),
           ("--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 4}')]


@pytest.mark.parametrize("version", ["0.32.0", "0.33.0"])
def test_config_time_and_runtime_agree_on_the_runner(version):
    """V2's stock-compile rule (config time, 0.32.0 config/vllm.py:2016-2017) runs exactly when
    the runtime stage says the runner is V2: one decision (vllm_config/model_runner.choose_runner) for both."""
    seen = set()
    for args in CONFIGS:
        for model in (LLAMA, MIXTRAL):
            res = _run(version, "-cc.mode=1", "-cc.cudagraph_mode=FULL", *args, model=model)
            if res.vllm_error is not None:  # expert parallelism on a dense model
                assert "-ep" in args and model == LLAMA
                continue
            v2 = res.resolved["runtime"]["model_runner"] == "V2"
            seen.add(v2)
            assert any(e.rule == "v2_runner.stock_compile" for e in res.events) == v2, (version, args, model)
    assert seen == {True, False}


@pytest.mark.parametrize("version,args,model,want", [
    # features V2 lacks, in vLLM's words (recorded: these warnings in the goldens of each release)
    ("0.29.0", ("-cc.mode=1",), LLAMA, "stock torch.compile"),
    ("0.29.0", ("--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 4}'),
     LLAMA, "ngram/ngram_gpu speculative decoding"),
    ("0.30.0", ("--speculative-config", '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 4}'),
     LLAMA, "speculative method 'ngram'"),
    ("0.32.0", ("-cc.mode=1",), LLAMA, None),  # 0.32.0: V2 takes stock torch.compile (no graphs)
    ("0.33.0", ("--enable-dbo", "-dp", "2", "-ep", "--all2all-backend", "deepep_low_latency"), MIXTRAL, "dual batch overlap"),
    ("0.25.0", ("-cc.mode=1",), LLAMA, "stock torch.compile"),  # dense: a default-V2 model from 0.25.0
    ("0.25.0", ("-cc.mode=1",), MIXTRAL, None),  # an unlisted MoE model never asks
])
def test_v2_unsupported_features(version, args, model, want):
    res = _run(version, *args, model=model)
    assert res.vllm_error is None
    reasons = [e["reason"] for e in res.resolved["runtime"]["events"] if e.get("rule") == "runtime.v2_unsupported"]
    if want is None:
        assert reasons == []
    else:
        assert reasons == [f"Model Runner V2 does not yet support {want}; using the V1 model runner instead."]
        assert res.resolved["runtime"]["model_runner"] == "V1"


# ------------------------------------------------------------ neighbours read, not assumed
def test_0_20_2_rules_equal_0_20_1():
    """0.20.1 -> 0.20.2 changes no config file (config/*, engine/arg_utils.py identical)."""
    a, b = get_release("0.20.1").rules, get_release("0.20.2").rules
    assert {k: v for k, v in a.items() if k != "version"} == {k: v for k, v in b.items() if k != "version"}


CONFIG_CHECK_KNOBS = ("async_pp", "scheduler_field_bounds", "kv_connector_checked_in_config", "parallel_field_bounds",
                      "dcp_check_in_parallel_config", "dcp_message_spaced", "custom_ops_conflicts",
                      "dcp_messages_v0_27", "executor_class_lookup", "ray_installed",
                      "draft_model_not_implemented")


def test_0_30_0_config_checks_equal_0_29_0():
    """Each of these rules read in 0.29.0, 0.30.0 and 0.31.0's sources: 0.30.0 changes none of them
    (0.31.0 adds the V1 runner's async+PP refusal; 0.30.0 registers one more KV connector, HiSparseConnector)."""
    a, b = get_release("0.29.0").rules, get_release("0.30.0").rules
    assert {k: a[k] for k in CONFIG_CHECK_KNOBS} == {k: b[k] for k in CONFIG_CHECK_KNOBS}


def test_kv_connector_registry_per_release():
    """KVConnectorFactory's registry read in each release's kv_connector/factory.py equals the
    recorded value sets where a release was recorded, and is known on every other release too."""
    from vllm_preflight.resolve.base.value_facts import _all_facts

    for version, rec in _all_facts().items():
        if isinstance(rec, dict) and rec.get("kv_connectors"):
            assert sorted(rec["kv_connectors"]) == list(get_release(version).rules["kv_connectors"]), version
    assert "HiSparseConnector" not in get_release("0.29.0").rules["kv_connectors"]
    assert "HiSparseConnector" in get_release("0.30.0").rules["kv_connectors"]
    kv = json.dumps({"kv_connector": "HiSparseConnector", "kv_role": "kv_both"})
    assert "Unsupported connector type: HiSparseConnector" in _err(_run("0.29.0", "--enforce-eager",
                                                                        "--kv-transfer-config", kv))


def test_flex_attention_always_from_0_20_0():
    """v1/attention/backends/flex_attention.py declares AttentionCGSupport.ALWAYS from 0.20.0."""
    assert runtime_rules("0.19.1").sup_flex == "NEVER" and runtime_rules("0.20.0").sup_flex == "ALWAYS"
