"""What `vllm serve` refuses around the engine config: its front door, per release.

vLLM runs, for `vllm serve` (vllm/entrypoints/cli/main.py):
  1. argparse (parser/argument_parser.py), then `ServeSubcommand.validate` = `validate_parsed_serve_args`
     (0.12.0 entrypoints/openai/cli_args.py:283; 0.29.0 entrypoints/launchers/cli_args.py;
     0.33.0 entrypoints/common/cli_args.py:531) -> `validate_parsed`;
  2. `ServeSubcommand.cmd` (entrypoints/cli/serve.py): --headless / --api-server-count, the data
     parallel load-balancing modes and the api_server_count default (0.15.0+) -> `dispatch`;
  3. per mode: `run_headless` (api_server_count > 1; create_engine_config(headless=True);
     data_parallel_size_local <= 0), `run_multi_api_server` (setup_server; create_engine_config;
     VLLM_ALLOW_RUNTIME_LORA_UPDATING with api_server_count > 1), or `run_server` (setup_server,
     then the engine). `setup_server` -> `validate_api_server_args` (0.12.0
     openai/api_server.py:1750, 0.29.0 launchers/launcher.py, 0.33.0 common/cli_args.py:615):
     the registered tool-call and reasoning parsers (releases/data/serve_parsers.json).
`python -m vllm.entrypoints.openai.api_server` runs 1 and then `run_server`.

`before_engine` runs everything up to create_engine_config, `after_engine` what follows it.
Value sets and rules are keyed by the first release that has them.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from vllm_preflight.model import Assumption
from vllm_preflight.releases import data_file
from vllm_preflight.resolve.base.reads import reads
from vllm_preflight.resolve.base.state import Refusal, State

# rule -> the first release with it (v1_only: the first release without it)
FIRST = {
    "v1_only": (0, 11, 1),  # 0.11.0 still had VLLM_USE_V1=0: headless / several API servers refused there
    "api_server_count_default_none": (0, 15, 0),  # default None, LB-mode defaults, --headless check
    "grpc": (0, 18, 0),  # --grpc: the Python gRPC server instead of the HTTP one
    "elastic_ep_single_server": (0, 19, 0),
    "multi_port_lb": (0, 22, 0),  # --data-parallel-multi-port-external-lb; "more than one" LB message
    "rust_frontend": (0, 22, 0),
    "per_request_metrics": (0, 25, 0),
    "multi_port_ssl_pair": (0, 25, 0),  # the multi-port HTTPS refusal became a keyfile/certfile pair check
    "sse_keep_alive": (0, 29, 0),
    "grpc_port": (0, 32, 0),
    "reasoning_effort_map": (0, 33, 0),
}
REGISTRY_SORTED = (0, 11, 1)  # list_registered() (sorted); 0.11.0 lists its registries in registration order
REASONING_EFFORTS = {(0, 33, 0): ("none", "minimal", "low", "medium", "high", "xhigh", "max")}


def _has(state: State, rule: str) -> bool:
    return state.release.key >= FIRST[rule]


def _keyed(table: dict, key: tuple):
    best = max((k for k in table if k <= key), default=None)
    return table[best] if best is not None else None


@lru_cache(maxsize=1)
def _parsers() -> dict:
    return data_file("serve_parsers.json")["releases"]


def registered(version: str, kind: str) -> list[str] | None:
    """The tool ("tool") or reasoning ("reasoning") parser names a release lists, in its order."""
    rel = _parsers().get(version)
    return None if rel is None else rel[kind]


@dataclass
class ServeMode:
    """How `vllm serve` starts this command: "single" (one API server in this process),
    "multi" (api_server_count API server processes), "headless" (engines only),
    "supervisor" (one server per local DP rank, 0.22.0+) or "grpc" (0.18.0+)."""

    kind: str
    api_server_count: int = 1


def _int(v, default: int | None = None) -> int | None:
    if v is None:
        return default
    try:
        return int(v)
    except (TypeError, ValueError):
        return default


# ------------------------------------------------------------------ validate_parsed_serve_args
def chat_template(state: State, v: dict) -> None:
    """validate_chat_template: a value without `{`, `}` or a newline is a path that must exist on the
    node; the tool does not read it."""
    tpl = v.get("chat_template")
    if isinstance(tpl, str) and not any(c in tpl for c in "{}\n"):
        state.assumptions.append(Assumption(
            "chat_template.exists", tpl,
            f"not checked: vLLM {state.release.version} refuses `--chat-template {tpl}` unless that file exists on "
            f"the node (\"The supplied chat template string ({tpl}) appears path-like, but doesn't exist!\")"))


def grpc_port(state: State, v: dict, entry: str) -> None:
    """validate_grpc_port_arg (0.32.0+): the Rust front-end's gRPC listener."""
    port = v.get("grpc_port")
    if port is None or not _has(state, "grpc_port"):
        return
    if v.get("grpc"):
        raise Refusal("ValueError", "--grpc and --grpc-port are mutually exclusive. Use --grpc --port for the "
                      "Python gRPC server, or VLLM_USE_RUST_FRONTEND=1 with --grpc-port for the Rust frontend.")
    if not _rust_enabled(state) or entry != "serve":
        raise Refusal("ValueError", "--grpc-port requires VLLM_USE_RUST_FRONTEND=1 vllm serve")
    count = _int(v.get("api_server_count"))
    if v.get("headless") or (count is not None and count <= 0):
        raise Refusal("ValueError", "--grpc-port requires a Rust frontend; remove --headless and non-positive "
                      "--api-server-count")
    if v.get("data_parallel_multi_port_external_lb"):
        raise Refusal("ValueError", "--grpc-port is incompatible with --data-parallel-multi-port-external-lb: its "
                      "frontends would share the same gRPC port")
    if not 0 <= port <= 65535:
        raise Refusal("ValueError", "--grpc-port must be between 0 and 65535")
    if port != 0 and port == _int(v.get("port"), 8000) and v.get("uds") is None:
        raise Refusal("ValueError", "--grpc-port must differ from --port when HTTP uses TCP")


def reasoning_effort_map(state: State, v: dict) -> None:
    """validate_reasoning_effort_map (0.33.0+): a JSON object of effort -> string."""
    m = v.get("reasoning_effort_map")
    if m is None or not _has(state, "reasoning_effort_map"):
        return
    efforts = _keyed(REASONING_EFFORTS, state.release.key)
    if not isinstance(m, dict) or not all(isinstance(x, str) for x in m.values()):
        raise Refusal("ValueError", "Error: --reasoning-effort-map must be a JSON object mapping reasoning efforts "
                      "to strings.")
    unknown = sorted(set(m) - set(efforts))
    if unknown:
        raise Refusal("ValueError", f"Error: --reasoning-effort-map has unknown efforts {unknown}; keys must be one "
                      f"of {list(efforts)}.")


def flag_pairs(state: State, v: dict) -> None:
    """Flags that need another flag (every release), the SSE keep-alive interval (0.29.0+) and
    per-request metrics without engine statistics (0.25.0+)."""
    if v.get("enable_auto_tool_choice") and not v.get("tool_call_parser"):
        raise Refusal("TypeError", "Error: --enable-auto-tool-choice requires --tool-call-parser")
    if v.get("enable_log_outputs") and not v.get("enable_log_requests"):
        raise Refusal("TypeError", "Error: --enable-log-outputs requires --enable-log-requests")
    if _has(state, "sse_keep_alive") and (_int(v.get("sse_keep_alive_interval"), 0) or 0) < 0:
        raise Refusal("ValueError", "Error: --sse-keep-alive-interval must be a non-negative integer (0 disables "
                      "keep-alive comments).")
    if _has(state, "per_request_metrics") and v.get("enable_per_request_metrics") and v.get("disable_log_stats"):
        raise Refusal("ValueError", "Error: --enable-per-request-metrics requires engine statistics logging; remove "
                      "--disable-log-stats to enable per-request metrics.")


def multi_port_args(state: State, v: dict) -> None:
    """validate_multi_port_external_lb_args (0.22.0+ entrypoints/openai/dp_supervisor.py)."""
    if not (_has(state, "multi_port_lb") and v.get("data_parallel_multi_port_external_lb")):
        return
    pre = "Error: --data-parallel-multi-port-external-lb "
    if v.get("grpc"):
        raise Refusal("ValueError", pre + "does not support --grpc")
    if v.get("uds") is not None:
        raise Refusal("ValueError", pre + "does not support --uds")
    if _has(state, "multi_port_ssl_pair"):
        if bool(v.get("ssl_keyfile")) != bool(v.get("ssl_certfile")):
            raise Refusal("ValueError", "Error: --ssl-keyfile and --ssl-certfile must be provided together")
    elif any((v.get("ssl_keyfile"), v.get("ssl_certfile"), v.get("ssl_ca_certs"))):
        raise Refusal("ValueError", pre + "does not support HTTPS yet")
    if v.get("api_server_count") not in (None, 1):
        raise Refusal("ValueError", pre + "currently requires --api-server-count=1")
    if v.get("data_parallel_rank") is not None:
        raise Refusal("ValueError", pre + "manages child --data-parallel-rank values internally")
    if v.get("data_parallel_external_lb") or v.get("data_parallel_hybrid_lb"):
        raise Refusal("ValueError", pre + "cannot be combined with --data-parallel-external-lb or "
                      "--data-parallel-hybrid-lb")
    dp = _int(v.get("data_parallel_size"), 1) or 1
    if dp < 2:
        raise Refusal("ValueError", pre + "requires --data-parallel-size > 1")
    local = _int(v.get("data_parallel_size_local"))
    if local is None or local < 2:
        raise Refusal("ValueError", pre + "requires --data-parallel-size-local >= 2")
    if local > dp:
        raise Refusal("ValueError", "Error: --data-parallel-size-local cannot exceed --data-parallel-size")
    if dp % local != 0:
        raise Refusal("ValueError", "Error: --data-parallel-size must be divisible by --data-parallel-size-local")
    start = _int(v.get("data_parallel_start_rank"))
    if start is None:
        start = (_int(v.get("node_rank"), 0) or 0) * local
    if start + local > dp:
        raise Refusal("ValueError", "Error: multi-port supervised ranks would exceed --data-parallel-size")
    sup, port = _int(v.get("data_parallel_supervisor_port"), 9256), _int(v.get("port"), 8000)
    if sup is not None and port is not None and port <= sup <= port + local - 1:
        raise Refusal("ValueError", f"Error: --data-parallel-supervisor-port {sup} overlaps with child rank ports "
                      f"{port}-{port + local - 1}")


def validate_parsed(state: State, v: dict, entry: str) -> None:
    """validate_parsed_serve_args, in vLLM's order."""
    chat_template(state, v)
    grpc_port(state, v, entry)
    reasoning_effort_map(state, v)
    flag_pairs(state, v)
    multi_port_args(state, v)


# ------------------------------------------------------------------ ServeSubcommand.cmd
def _rust_enabled(state: State) -> bool:
    """VLLM_USE_RUST_FRONTEND=<nonzero int> (0.22.0+); the vllm-rs binary is assumed present."""
    if not _has(state, "rust_frontend"):
        return False
    return _int(state.env.get("VLLM_USE_RUST_FRONTEND", "0"), 0) != 0


def dispatch(state: State, v: dict) -> ServeMode:
    """ServeSubcommand.cmd: which server `vllm serve` starts, and the refusals on the way."""
    count = _int(v.get("api_server_count"))
    headless = bool(v.get("headless"))
    if not _has(state, "api_server_count_default_none"):  # 0.11.0-0.14.1: default 1
        count = 1 if count is None else count
        if headless or count < 1:
            return ServeMode("headless", count)
        return ServeMode("multi" if count > 1 else "single", count)
    if _has(state, "grpc") and v.get("grpc"):
        return ServeMode("grpc", 1)
    if headless:
        if count is not None and count > 0:
            raise Refusal("ValueError", f"--api-server-count={count} cannot be used with --headless (no API servers "
                          "are started in headless mode).")
        count = 0
    external = bool(v.get("data_parallel_external_lb")) or v.get("data_parallel_rank") is not None
    start_set = v.get("data_parallel_start_rank") is not None
    multi_port = False
    if not _has(state, "multi_port_lb"):
        hybrid = bool(v.get("data_parallel_hybrid_lb")) or start_set
        if external and hybrid:
            raise Refusal("ValueError", "Cannot use both external and hybrid data parallel load balancing modes. "
                          "External LB is enabled via --data-parallel-external-lb or --data-parallel-rank. Hybrid LB "
                          "is enabled via --data-parallel-hybrid-lb or --data-parallel-start-rank. Use one mode or "
                          "the other.")
    else:
        if not v.get("data_parallel_hybrid_lb") and not v.get("data_parallel_multi_port_external_lb"):
            hybrid = start_set
        else:
            hybrid = bool(v.get("data_parallel_hybrid_lb"))
            multi_port = bool(v.get("data_parallel_multi_port_external_lb"))
        if sum([multi_port, external, hybrid]) > 1:
            raise Refusal("ValueError", "Cannot use more than one data parallel load balancing mode. Choose one of: "
                          "--data-parallel-multi-port-external-lb, --data-parallel-external-lb (or "
                          "--data-parallel-rank), --data-parallel-hybrid-lb (or --data-parallel-start-rank).")
    rust = _rust_enabled(state)
    if rust:
        state.assumptions.append(Assumption(
            "vllm-rs.present", True, "not checked: VLLM_USE_RUST_FRONTEND=1 needs the vllm-rs binary of the vLLM "
            "package (or VLLM_RUST_FRONTEND_PATH) on the node"))
    if count is None:
        if multi_port or external or rust:
            count = 1
        elif hybrid:
            count = _int(v.get("data_parallel_size_local")) or 1
            if count > 1:
                state.log("info", f"Defaulting api_server_count to data_parallel_size_local ({count}) for hybrid "
                          "LB mode.")
        else:
            count = _int(v.get("data_parallel_size"), 1) or 1
            if count > 1:
                state.log("info", f"Defaulting api_server_count to data_parallel_size ({count}).")
    elif rust and count > 1:
        state.log("warning", f"Ignoring --api-server-count={count} when using rust front-end process")
        count = 1
    if _has(state, "elastic_ep_single_server") and v.get("enable_elastic_ep") and count > 1:
        state.log("warning", "Elastic EP only supports running with with at most one API server. Capping "
                  f"api_server_count from {count} to 1.")
        count = 1
    if multi_port:
        return ServeMode("supervisor", count)
    if count < 1:
        return ServeMode("headless", count)
    if count > 1 or rust:
        return ServeMode("multi", count)
    return ServeMode("single", count)


# ------------------------------------------------------------------ setup_server
def _parser_names(state: State, kind: str) -> list[str] | None:
    names = registered(state.release.version, kind)
    return names


def _unknown_parser(state: State, kind: str, name: str, names: list[str], plugin) -> Refusal | None:
    if plugin and len(str(plugin)) > 3:  # a plugin file may register the name at run time
        flag = "--tool-parser-plugin" if kind == "tool" else "--reasoning-parser-plugin"
        state.assumptions.append(Assumption(
            f"{kind}_parser.registered", name,
            f"not checked: `{name}` is not one of vLLM {state.release.version}'s own {kind} parsers; the {flag} "
            f"file {plugin} is assumed to register it"))
        return None
    what = "tool call parser" if kind == "tool" else "reasoning parser"
    return Refusal("KeyError", repr(f"invalid {what}: {name} (chose from {{ {','.join(names)} }})"))


def api_server_args(state: State, v: dict) -> None:
    """setup_server -> validate_api_server_args: the registered parsers."""
    if v.get("enable_auto_tool_choice"):
        names = _parser_names(state, "tool")
        name = v.get("tool_call_parser")
        if names is not None and name not in names:
            r = _unknown_parser(state, "tool", str(name), names, v.get("tool_parser_plugin"))
            if r is not None:
                raise r
    so = v.get("structured_outputs_config")
    name = so.get("reasoning_parser") if isinstance(so, dict) else None
    if name:
        names = _parser_names(state, "reasoning")
        if names is not None and name not in names:
            r = _unknown_parser(state, "reasoning", str(name), names, v.get("reasoning_parser_plugin"))
            if r is not None:
                raise r


# ------------------------------------------------------------------ the stage around the engine
def before_engine(state: State, v: dict, entry: str) -> ServeMode:
    """Everything `vllm serve` (entry "serve") or `-m vllm.entrypoints.openai.api_server`
    (entry "api_server") runs before create_engine_config."""
    validate_parsed(state, v, entry)
    mode = ServeMode("single", 1) if entry == "api_server" else dispatch(state, v)
    if mode.kind == "headless":
        if mode.api_server_count > 1:
            raise Refusal("ValueError", "api_server_count can't be set in headless mode")
        if v.get("data_parallel_hybrid_lb"):  # create_engine_config(headless=True)'s launch-option assert
            raise Refusal("AssertionError", "data_parallel_hybrid_lb is not applicable in headless mode")
    if mode.kind == "multi" and mode.api_server_count > 1 and v.get("use_gpu_for_pooling_score"):
        # 0.17.x run_multi_api_server (the flag exists in 0.17.0-0.17.1 only)
        raise Refusal("ValueError", "--use-gpu-for-pooling-score cannot be used with api_server_count > 1 now")
    if mode.kind in ("single", "multi"):
        api_server_args(state, v)
    return mode


def after_engine(state: State, v: dict, mode: ServeMode) -> None:
    """What run_headless / run_multi_api_server check on the engine config."""
    v0 = state.release.key < FIRST["v1_only"] and _int(state.env.get("VLLM_USE_V1", "1"), 1) == 0
    if mode.kind == "headless":
        if v0:
            raise Refusal("ValueError", "Headless mode is only supported for V1")
        local = _int(v.get("data_parallel_size_local"))
        if local is not None and local <= 0:
            raise Refusal("ValueError", "data_parallel_size_local must be > 0 in headless mode")
    elif mode.kind == "multi" and mode.api_server_count > 1:
        if v0:
            raise Refusal("ValueError", "api_server_count > 1 is only supported for V1")
        lora = str(state.env.get("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "0")).strip().lower() in ("1", "true")
        if lora:
            raise Refusal("ValueError", "VLLM_ALLOW_RUNTIME_LORA_UPDATING cannot be used with api_server_count > 1")


def front_door(state: State, v: dict) -> None:
    """What `vllm serve` checks before create_engine_config (only through its entry point)."""
    if state.serve_entry is None:
        return
    state.serve_mode = before_engine(state, v, state.serve_entry)
    if state.serve_mode.kind == "headless":  # create_engine_config(headless=True) infers no hybrid LB
        v["data_parallel_start_rank"] = None


@reads(always=True)
def after_engine_config(state: State, v: dict) -> None:
    """What `vllm serve` checks once the engine config is built."""
    if state.serve_mode is not None:
        after_engine(state, v, state.serve_mode)
