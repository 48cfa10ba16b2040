"""KVTransferConfig (vllm/config/kv_transfer.py): its parse-time literals, and the connector lookups
VllmConfig.__post_init__ makes (0.17.0+ with full CUDA graphs, 0.22.0+ for any KV-transfer config
without a hybrid-KV-cache-manager preference)."""
from __future__ import annotations

from vllm_preflight.model import Assumption
from vllm_preflight.resolve.base.pydantic import validator_error as _pyd
from vllm_preflight.resolve.base.pydantic import value_error
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State, option_json
from vllm_preflight.resolve.base.value_facts import value_facts


# ------------------------------------------------------------------ the parser
def kv_transfer_problem(kv: dict, state: State) -> str | None:
    """`--kv-transfer-config` is validated by its argparse type (pydantic): the role is a
    literal; a connector needs a role. The connector name itself is resolved only when the
    engine starts (not a config-time refusal)."""
    rec = value_facts(state)
    roles = tuple(rec["kv_roles"]) if rec else ("kv_producer", "kv_both", "kv_consumer")
    role = kv.get("kv_role")
    cls = "1 validation error for KVTransferConfig"
    if role is not None and role not in roles:
        shown = ", ".join(f"'{r}'" for r in roles[:-1]) + f" or '{roles[-1]}'"
        return f"{cls}\nkv_role\n  Input should be {shown} [type=literal_error, input_value={role!r}, input_type=str]"
    if rec and rec.get("kv_extra") == "forbid":
        extra = [k for k in kv if k not in rec["kv_fields"]]
        if extra:
            return (f"{cls}\n{extra[0]}\n  Unexpected keyword argument [type=unexpected_keyword_argument, "
                    f"input_value={kv[extra[0]]!r}]")
    if kv.get("kv_connector") is not None and role is None:
        key = "kv_disagg_role" if state.release.key < (0, 11, 1) else "kv_role"  # 0.11.0's wording
        return (f"{cls}\n  Value error, Please specify {key} when kv_connector is set, supported roles are "
                f"{roles} [type=value_error, input_value={kv!r}, input_type=dict]")
    return None


@reads("kv_transfer_config")
def kv_transfer_config(state: State, values: dict) -> None:
    """The KVTransferConfig VllmConfig holds (the compilation steps read it)."""
    state.kv_transfer = _kv_dict(values)


def _kv_dict(values: dict):
    kv = option_json(values, "kv_transfer_config")
    return kv if isinstance(kv, dict) else None


@reads("kv_transfer_config", "disable_hybrid_kv_cache_manager")
def kv_connector_check(state: State, values: dict) -> None:
    """From 0.22.0 VllmConfig.__post_init__ looks the connector class up whenever a KV-transfer
    config is given and no hybrid-KV-cache-manager preference is (its HMA default: 0.22.0
    config/vllm.py:1440-1451, 0.33.0 :2257-2264; recorded on 0.24.0, 0.27.0 and 0.33.0);
    0.17.0-0.21.0 only with full CUDA graphs (`kv_connector_full_graphs`, after the mode
    is resolved), which stays for every later release too."""
    kv = _kv_dict(values)
    if kv is None or state.release.rules.get("kv_connector_checked_in_config") != "always":
        return
    if values.get("disable_hybrid_kv_cache_manager") is not None:
        return  # --[no-]disable-hybrid-kv-cache-manager: that block is skipped (0.33.0 oracle)
    name = kv.get("kv_connector")
    if name is None:
        raise _pyd("VllmConfig", "Connector name is not set in KVTransferConfig")
    _p2p_nccl_msgpack(state, kv, state.assumptions)
    _lookup_connector(state, kv)


def _p2p_nccl_msgpack(state: State, kv: dict, assumptions: list[Assumption]) -> None:
    """P2pNcclConnector's module imports msgpack, which vLLM installs only with ray: while a
    release still registers the connector (through 0.23.0) and no longer installs ray (0.18.0+),
    looking it up fails (recorded on 0.21.0), unless the launch shows ray on the node (ray
    requires msgpack)."""
    if kv["kv_connector"] != "P2pNcclConnector" or kv.get("kv_connector_module_path"):
        return
    if state.release.rules.get("ray_installed", True) or state.node.get("ray") \
            or kv["kv_connector"] not in state.release.rules["kv_connectors"]:
        return
    assumptions.append(Assumption("node.msgpack", False, "P2pNcclConnector imports msgpack, not a vLLM "
                                                         "dependency without ray; taken as not installed"))
    raise Refusal("ModuleNotFoundError", "No module named 'msgpack'")


@reads("kv_transfer_config")
def kv_connector_full_graphs(state: State, values: dict) -> None:
    """After the compilation steps: the connector lookup for full CUDA graphs (0.17.0+, recorded
    on 0.21.0: a KV-transfer instance, a connector and a valid role, when the resolved mode has
    full graphs; every later release keeps it)."""
    assumptions = state.assumptions
    kv = _kv_dict(values)
    if kv is None or state.release.rules.get("kv_connector_checked_in_config") not in ("full_graphs", "always"):
        return
    if kv.get("kv_connector") is None or kv.get("kv_role") is None:
        return
    from vllm_preflight.resolve.base import modes

    if not modes.has_full_cudagraphs(state.cc.get("cudagraph_mode") or "NONE"):
        return
    _p2p_nccl_msgpack(state, kv, assumptions)
    _lookup_connector(state, kv)


def _lookup_connector(state: State, kv: dict) -> None:
    if kv.get("kv_connector_module_path"):
        return  # an external module: not importable here
    rec = value_facts(state)
    name = kv["kv_connector"]
    # the recorded value set, else the registry read in the release's kv_connector/factory.py
    known = rec["kv_connectors"] if rec and rec.get("kv_connectors") else state.release.rules["kv_connectors"]
    if name not in known:
        raise _pyd("VllmConfig", f"Unsupported connector type: {name}")


_OFFLOADING_NEEDS_SIZE = ((0, 11, 1), (0, 14, 0))  # (first release, first release without)


@reads("kv_offloading_backend", "kv_offloading_size")
def kv_offloading(state: State, values: dict) -> None:
    """VllmConfig._post_init_kv_transfer_config, near the end of VllmConfig.__post_init__ (0.12.0
    config/vllm.py:459-476): a KV offloading backend without a size is refused until 0.13.x;
    from 0.14.0 offloading simply stays off without a size."""
    first, until = _OFFLOADING_NEEDS_SIZE
    if first <= state.release.key < until and values.get("kv_offloading_backend") is not None \
            and values.get("kv_offloading_size") is None:
        raise value_error("VllmConfig", "You must set kv_offloading_size when kv_offloading_backend is set.")
