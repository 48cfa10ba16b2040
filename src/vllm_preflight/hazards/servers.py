"""VP305: servers of one deployment that must agree.

Two kinds of groups, both within one input file:
- the ranks of one data-parallel engine: the servers of one LeaderWorkerSet or KServe role
  (leader and worker templates), and servers naming the same `--data-parallel-address`;
  they must agree on the release, the MoE all2all, the parallel sizes and the compilation;
- the prefill and decode pools of one deployment: servers of one file whose role (identity.role_of:
  `--role`, labels, names, kv_role) is prefill or decode, or that carry a `--kv-transfer-config`;
  they must serve the same model over the same KV connector, each must carry the connector, a
  pool's kv_role must not contradict its role, and with NixlConnector the larger tensor-parallel
  size must be a multiple of the smaller (vLLM's NixlConnector splits one side's KV heads over the
  other's ranks: `TpKVTopology.tp_ratio` asserts divisibility in every release that has it).
"""
from __future__ import annotations

import json

from vllm_preflight.findings import Finding
from vllm_preflight.identity import argv_value, kv_transfer_config
from vllm_preflight.model import Location

RANK_SETTINGS = (
    ("vllm_version", lambda r: r.vllm_version),
    ("all2all_backend", lambda r: r.resolved["parallel_config"]["all2all_backend"]),
    ("data_parallel_size", lambda r: r.resolved["parallel_config"]["data_parallel_size"]),
    ("tensor_parallel_size", lambda r: r.resolved["parallel_config"]["tensor_parallel_size"]),
    ("enable_expert_parallel", lambda r: r.resolved["parallel_config"]["enable_expert_parallel"]),
    ("mode", lambda r: r.resolved["compilation_config"]["mode"]),
    ("cudagraph_mode", lambda r: r.resolved["compilation_config"]["cudagraph_mode"]),
    ("splitting_ops", lambda r: r.resolved["compilation_config"]["splitting_ops"]),
    ("use_inductor_graph_partition", lambda r: r.resolved["compilation_config"]["use_inductor_graph_partition"]),
    ("pass_config", lambda r: r.resolved["compilation_config"]["pass_config"]),
    ("kv_transfer_config", lambda r: _kv(r)),
)
PAIR_SETTINGS = (
    ("kv_connector", lambda r: (_kv(r) or {}).get("kv_connector")),
    ("model", lambda r: _model(r)),
)
# A Kubernetes source is `file:doc:path.container[#n]`; a pod template of a multi-node role ends the path.
_TEMPLATES = ("leaderTemplate", "workerTemplate", "template", "worker")


def _role(source: str) -> tuple | None:
    """(file, doc, role path) of a LeaderWorkerSet / KServe pod template's server, else None."""
    parts = source.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    path = parts[2].split("#", 1)[0].split(".")[:-1]  # without the container name
    if not path or path[-1] not in _TEMPLATES:
        return None
    return parts[0], parts[1], ".".join(path[:-1])


def _argv_value(r, *names: str) -> str | None:
    """The value of the last of `names` in the server's command (as argparse keeps the last)."""
    return argv_value(r.deployment.argv if r.deployment else (), *names)


def _kv(r) -> dict | None:
    return kv_transfer_config(r.deployment.argv if r.deployment else ())


def _model(r) -> str | None:
    argv = list(r.deployment.argv) if r.deployment else []
    if len(argv) > 2 and argv[1] == "serve" and not argv[2].startswith("-"):
        return argv[2]
    return _argv_value(r, "--model")


def _file(r) -> str:
    loc = r.extra.get("location") or {}
    return loc.get("file") or r.source


def rank_groups(results) -> list[list[int]]:
    """Indexes of results that are ranks of one engine."""
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(results):
        if r.resolved is None:
            continue
        role = _role(r.source)
        if role is not None:
            groups.setdefault(("role",) + role, []).append(i)
            continue
        address = _argv_value(r, "--data-parallel-address", "-dpa")
        if address is not None:
            groups.setdefault(("address", _file(r), address), []).append(i)
        elif "#" in r.source:  # one script's leader and worker branches
            groups.setdefault(("script", r.source.split("#", 1)[0]), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _pd_role(r) -> str | None:
    from vllm_preflight.identity import role_of

    return role_of(r.deployment).role


def pair_groups(results) -> list[list[int]]:
    """Indexes of the prefill and decode pools of one deployment (one file)."""
    by_file: dict[str, list[int]] = {}
    for i, r in enumerate(results):
        if r.resolved is not None and (_kv(r) is not None or _pd_role(r) in ("prefill", "decode")):
            by_file.setdefault(_file(r), []).append(i)
    return [g for g in by_file.values() if len(g) > 1]


def _pd_problems(results, group: list[int]) -> dict[int, list[str]]:
    """What one prefill/decode group breaks beyond differing values: a pool without the connector,
    a kv_role against the pool's role, NixlConnector tensor-parallel sizes that do not divide."""
    from vllm_preflight.identity import role_of

    out: dict[int, list[str]] = {}
    kvs = {i: _kv(results[i]) for i in group}
    if any(kvs.values()):
        for i in group:
            if kvs[i] is None:
                out.setdefault(i, []).append(
                    "this pool has no --kv-transfer-config while the others of its deployment do, so no KV cache "
                    "moves between them")
    for i in group:
        role = role_of(results[i].deployment)
        kv_role = (kvs[i] or {}).get("kv_role")
        wrong = {"prefill": "kv_consumer", "decode": "kv_producer"}.get(role.role or "")
        if wrong and kv_role == wrong and not role.source.startswith("--kv-transfer-config"):
            out.setdefault(i, []).append(f"kv_role {kv_role} on a {role.role} pool ({role.source}): a {role.role} "
                                         f"pool {'sends' if role.role == 'prefill' else 'receives'} the KV cache")
    prefill = [i for i in group if _pd_role(results[i]) == "prefill"]
    decode = [i for i in group if _pd_role(results[i]) == "decode"]
    for p in prefill:
        for d in decode:
            if (kvs[p] or {}).get("kv_connector") != "NixlConnector" or \
                    (kvs[d] or {}).get("kv_connector") != "NixlConnector":
                continue
            tp_p = results[p].resolved["parallel_config"]["tensor_parallel_size"] or 1
            tp_d = results[d].resolved["parallel_config"]["tensor_parallel_size"] or 1
            if max(tp_p, tp_d) % min(tp_p, tp_d):
                for i, other in ((p, d), (d, p)):
                    out.setdefault(i, []).append(
                        f"tensor_parallel_size {results[i].resolved['parallel_config']['tensor_parallel_size']} here "
                        f"and {results[other].resolved['parallel_config']['tensor_parallel_size']} on "
                        f"{_label(results[other])}: NixlConnector needs one to be a multiple of the other")
    return out


def _differences(results, group: list[int], settings) -> list[tuple[str, dict[int, object]]]:
    out = []
    for name, read in settings:
        values = {i: read(results[i]) for i in group}
        if len({json.dumps(v, sort_keys=True, default=str) for v in values.values()}) > 1:
            out.append((name, values))
    return out


def _loc(r) -> Location | None:
    loc = r.extra.get("location") or {}
    return Location(loc["file"], loc.get("line"), loc.get("column")) if loc.get("file") else None


def _label(r) -> str:
    return r.extra.get("name") or r.source


def disagreements(results) -> dict[int, list[Finding]]:
    """VP305 findings by result index."""
    out: dict[int, list[Finding]] = {}
    for kind, groups, settings in (("ranks of one data-parallel engine", rank_groups(results), RANK_SETTINGS),
                                   ("the prefill and decode pools of one deployment", pair_groups(results),
                                    PAIR_SETTINGS)):
        for group in groups:
            diffs = _differences(results, group, settings)
            if settings is PAIR_SETTINGS:
                for i, problems in _pd_problems(results, group).items():
                    out.setdefault(i, []).append(Finding(
                        "VP305", f"these servers are {kind} and must fit together: " + " · ".join(problems),
                        _loc(results[i])))
            if not diffs:
                continue
            for i in group:
                others = [j for j in group if j != i]
                parts = []
                for name, values in diffs:
                    theirs = "; ".join(f"{_label(results[j])}: {_short(values[j])}" for j in others)
                    parts.append(f"{name} is {_short(values[i])} here, but {theirs}")
                out.setdefault(i, []).append(Finding(
                    "VP305", f"these servers are {kind} and must agree: " + " · ".join(parts), _loc(results[i])))
    return out


def _short(v) -> str:
    if isinstance(v, list) and len(v) > 4:
        return f"[{', '.join(map(str, v[:3]))}, … {len(v)} in all]"
    if isinstance(v, dict):
        return json.dumps(v, sort_keys=True)
    return str(v)
