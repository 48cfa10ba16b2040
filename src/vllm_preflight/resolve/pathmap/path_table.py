"""The map's last section: the registry's steps (resolve/path.py) in the order `resolve()` runs
them, each with its module and the stage it belongs to."""
from __future__ import annotations

from vllm_preflight.releases import SUPPORTED, get_release
from vllm_preflight.resolve.base.reads import Reads, reads_of
from vllm_preflight.resolve.path import HEAD_ENDS_WITH, PATH, STAGES
from vllm_preflight.resolve.pathmap.table import port_text

INTRO = ("Generated from `resolve/path.py` (the registry): one function per step, `(state, values)`, in the "
         "stage package named by what vLLM runs. Where the compilation pipeline stands, each release's own "
         "compilation steps run (`releases/changes.py: pipeline`; `resolve/vllm_config/steps/`); a step marked "
         "*in the pipeline* runs right after the named compilation step. `resolve/plan.py` compiles this "
         "once per release. *Reads*: the step's `@reads` declaration (base/reads.py): the options "
         "(`--flag`), environment variables and model facts it reads; a resolution runs a step when the "
         "deployment sets one of them, or always. The steps up to the model's facts run for every deployment.")


def _reads(r: Reads, head: bool) -> str:
    if head or r.always:
        return "always"
    parts = [", ".join(f"`--{o.replace('_', '-')}`" for o in sorted(r.options))]
    if r.env:
        parts.append("env " + ", ".join(f"`{e}`" for e in sorted(r.env)))
    if r.model:
        parts.append("model: " + ", ".join(sorted(r.model)))
    return "; ".join(p for p in parts if p)


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
           "| # | step | stage (what vLLM runs) | port | reads |", "|---|---|---|---|---|"]
    head = True
    for i, step in enumerate(PATH, 1):
        if step.run is None:
            out.append(f"| {i} | the release's compilation pipeline | {titles['vllm_config']} | "
                       "`resolve/vllm_config/steps/` (below) | always |")
            continue
        where = f" (in the pipeline, after `{step.after}`)" if step.after else ""
        out.append(f"| {i} | `{step.name}`{where} | {titles[step.stage]} | {port_text(step.run)} | "
                   f"{_reads(reads_of(step.run), head)} |")
        head = head and step.name != HEAD_ENDS_WITH
    out += ["", "The compilation pipelines, by release:", "", _pipelines()]
    return "\n".join(out)
