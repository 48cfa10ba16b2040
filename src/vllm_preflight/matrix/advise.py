"""`--advise`: for a deployment whose CUDA graphs are off or hazardous on a release, the single
changes a deployer would consider, each resolved like any cell; those that keep graphs on with
no VP3xx hazard are listed, smallest change first. Nothing here is a table of advice: a
suggestion is kept only because the resolver says it works on that release."""
from __future__ import annotations

from dataclasses import dataclass

from vllm_preflight.matrix import outcome as oc
from vllm_preflight.matrix.cells import Cell, Plan, Settings, check_cell
from vllm_preflight.matrix.fold import release_text
from vllm_preflight.releases import PR29558, PR29558_BASE, get_release


@dataclass(frozen=True)
class Candidate:
    name: str
    combo: tuple = ()  # axis overrides
    target: str | None = None  # another target (pr29558)
    size: int = 1  # how many settings change


DECODE_KERNELS = "all2all → deepep_low_latency"
CANDIDATES = (
    Candidate(f"{DECODE_KERNELS} (decode)", (("all2all", "deepep_low_latency"),)),
    Candidate("all2all → allgather_reducescatter", (("all2all", "allgather_reducescatter"),)),
    Candidate("cudagraph_mode → PIECEWISE", (("cudagraph_mode", "PIECEWISE"),)),
    Candidate("compile mode → VLLM_COMPILE", (("mode", "VLLM_COMPILE"),)),
    Candidate("data parallel → 1", (("dp", "1"),)),
    Candidate("expert parallel → off", (("ep", "off"),)),
    Candidate(f"the PR #29558 design (vLLM {PR29558_BASE} + PR)", (), PR29558),
    Candidate("the PR #29558 design + cudagraph_mode → PIECEWISE", (("cudagraph_mode", "PIECEWISE"),), PR29558, 2),
)


def _spelling(cand: Candidate, release) -> str:
    parts = []
    for axis, value in cand.combo:
        if axis == "all2all":
            parts.append(f"--all2all-backend {value}" if "--all2all-backend" in release.options.options
                         else f"VLLM_ALL2ALL_BACKEND={value}")
        elif axis == "cudagraph_mode":
            parts.append(f"-cc '{{\"cudagraph_mode\": \"{value}\"}}'")
        elif axis == "mode":
            parts.append(f"-cc '{{\"{'level' if release.mode_field == 'level' else 'mode'}\": 3}}'")
        elif axis == "dp":
            parts.append(f"--data-parallel-size {value}")
        elif axis == "ep":
            parts.append("drop --enable-expert-parallel")
    if cand.target == PR29558:
        parts.insert(0, "--target pr29558")
    return " ".join(parts)


@dataclass
class Advice:
    target: str
    status: str
    fixes: list[tuple[Candidate, str, dict]]  # (candidate, how to write it, the resolved row)


def advise(p: Plan, rows: list[dict], settings: Settings) -> list[Advice]:
    """Advice for every row whose graphs are off or hazardous."""
    from vllm_preflight.identity import role_of

    prefill = role_of(p.base).prefill_only
    out = []
    for row in rows:
        o = oc.of(row)
        if o.status not in ("off", "hazard"):
            continue
        target = "pr29558" if row["target"] == "pr29558" else row["vllm_version"]
        if prefill and o.status == "off" and _ht_turned_off(row):
            # the split vLLM itself recommends: high-throughput kernels, graphs off, on a prefill pool
            out.append(Advice(target, "prefill", []))
            continue
        fixes = []
        for cand in CANDIDATES:
            if prefill and cand.name.startswith(DECODE_KERNELS):
                continue  # never tell a prefill pool to use decode kernels
            t = cand.target or target
            if cand.target == PR29558 and target == PR29558:
                continue
            release = get_release(t)
            trial = check_cell(p, Cell(t, cand.combo), settings) if cand.combo else \
                check_cell(p, Cell(t), settings)
            if trial.get("resolved") == row.get("resolved") and t == target:
                continue  # changes nothing here
            if oc.of(trial).status == "on":
                fixes.append((cand, _spelling(cand, release), trial))
        fixes.sort(key=lambda f: f[0].size)
        out.append(Advice(target, o.status, fixes))
    return out


def _ht_turned_off(row: dict) -> bool:
    return any(e.get("rule") == "deepep_ht.disable_cudagraphs" for e in row.get("events") or [])


def lines(advice: list[Advice], all_targets: list[str]) -> list[str]:
    """Releases with the same advice share one paragraph."""
    if not advice:
        return ["--advise: CUDA graphs are on without a hazard on every release checked; nothing to fix."]
    groups: list[tuple[list[str], Advice]] = []
    for a in advice:
        key = (a.status, tuple((c.name, how, oc.of(r).cudagraph_mode) for c, how, r in a.fixes))
        if groups and groups[-1][1].status == a.status and \
                tuple((c.name, how, oc.of(r).cudagraph_mode) for c, how, r in groups[-1][1].fixes) == key[1]:
            groups[-1][0].append(a.target)
        else:
            groups.append(([a.target], a))
    out = []
    for targets, a in groups:
        span = release_text(tuple(targets), all_targets)
        if a.status == "prefill":
            out.append(f"{span}: graphs off on DeepEP high-throughput kernels, as intended for a prefill pool; "
                       "nothing to change")
            continue
        out.append(f"{span}: graphs {'off' if a.status == 'off' else 'on but hazardous'}; "
                   + ("changes that keep graphs on without a hazard:" if a.fixes else "no single change checked here "
                      "keeps graphs on without a hazard"))
        for i, (c, how, r) in enumerate(a.fixes, 1):
            o = oc.of(r)
            out.append(f"  {i}. {c.name}: {how}  → cudagraph_mode {o.cudagraph_mode}"
                       f"{', MoE ops split out' if o.moe_split == 'split' else ''}")
    return out


def to_json(advice: list[Advice]) -> list[dict]:
    return [{"target": a.target, "status": a.status,
             "fixes": [{"change": c.name, "size": c.size, "write": how, "result": r} for c, how, r in a.fixes]}
            for a in advice]
