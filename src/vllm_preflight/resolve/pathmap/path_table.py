"""The map's last section: the registry's steps (resolve/path.py) in the order `resolve()` runs
them, each with its module and the stage it belongs to."""
from __future__ import annotations

from vllm_preflight.releases import SUPPORTED, get_release
from vllm_preflight.resolve.path import PATH, STAGES
from vllm_preflight.resolve.pathmap.table import port_text

INTRO = ("Generated from `resolve/path.py` (the registry): one function per step, `(state, values)`, in the "
         "stage package named by what vLLM runs. Where the compilation pipeline stands, each release's own "
         "compilation steps run (`releases/changes.py: pipeline`; `resolve/vllm_config/steps/`); a step marked "
         "*in the pipeline* runs right after the named compilation step. `resolve/plan.py` compiles this "
         "once per release.")


def _pipelines() -> str:
    """The distinct compilation pipelines and the releases that run each."""
    seen: dict[tuple, list[str]] = {}
    for version in (*SUPPORTED, "pr29558"):
        seen.setdefault(tuple(get_release(version).pipeline), []).append(version)
    lines = []
    for steps, versions in seen.items():
        span = versions[0] if len(versions) == 1 else f"{versions[0]}–{versions[-1]}"
        lines.append(f"- {span}: " + ", ".join(f"`{s}`" for s in steps))
    return "\n".join(lines)


def render(number: int) -> str:
    titles = {s.key: s.title for s in STAGES}
    out = [f"## {number}. The path as `resolve()` runs it", "", INTRO, "",
           "| # | step | stage (what vLLM runs) | port |", "|---|---|---|---|"]
    for i, step in enumerate(PATH, 1):
        if step.run is None:
            out.append(f"| {i} | the release's compilation pipeline | {titles['vllm_config']} | "
                       "`resolve/vllm_config/steps/` (below) |")
            continue
        where = f" (in the pipeline, after `{step.after}`)" if step.after else ""
        out.append(f"| {i} | `{step.name}`{where} | {titles[step.stage]} | {port_text(step.run)} |")
    out += ["", "The compilation pipelines, by release:", "", _pipelines()]
    return "\n".join(out)
