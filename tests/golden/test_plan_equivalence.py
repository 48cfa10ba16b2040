"""Every golden resolved both ways (issue 26): with the release's full plan, and with the steps
the deployment's inputs reach (resolve/plan.py, the `@reads` declarations of base/reads.py).
The results must be identical: vLLM's error, the resolved settings (runtime stage included),
every event and every assumption. tools/check_step_reads.py names the step when they differ."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare import deployment_of, gpu_of, target_of

from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.plan import model_facts_set, plan_for

DATA = Path(__file__).parent / "data"
FILES = sorted(DATA.rglob("*.jsonl"))


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _both(golden: dict):
    d, target = deployment_of(golden), target_of(golden)
    serve = (golden.get("oracle") or {}).get("path") == "vllm serve"
    gpu = gpu_of(golden)
    return (resolve(d, target, gpu=gpu, serve_stage=serve),
            resolve(d, target, gpu=gpu, serve_stage=serve, full_plan=True))


def _same(a, b) -> bool:
    return (a.vllm_error == b.vllm_error and a.resolved == b.resolved and a.events == b.events
            and a.assumptions == b.assumptions)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(DATA)) for p in FILES])
def test_pruned_plan_resolves_like_the_full_plan(path: Path):
    bad = []
    for g in _load(path):
        pruned, full = _both(g)
        if not _same(pruned, full):
            bad.append((g["id"], " ".join(g["argv"][3:]), g["env"]))
    assert not bad, f"{len(bad)} goldens differ; first: {bad[:5]}"


def test_the_pruned_plan_leaves_steps_out():
    """A plain deployment runs far fewer checks than its release has (the always-on pipeline
    plus what it sets); one that sets an option runs that option's checks too."""
    from vllm_preflight.gpus import DEFAULT_GPU, GPUS
    from vllm_preflight.model import Deployment
    from vllm_preflight.releases import get_release
    from vllm_preflight.resolve.base.state import State

    plan = plan_for("0.33.0")

    def selected(argv: tuple[str, ...]) -> list[str]:
        state = State(release=get_release("0.33.0"), gpu=GPUS[DEFAULT_GPU], env={}, model=None,
                      words=Deployment(argv=argv, env=(), source="x").argv)
        for step in plan.head:
            step.run(state, state.values)
        return [s.name for s in plan.steps_for(state.values, {}, model_facts_set(state))]

    plain = selected(("vllm", "serve", "Qwen/Qwen3-0.6B"))
    lora = selected(("vllm", "serve", "Qwen/Qwen3-0.6B", "--enable-lora"))
    assert len(plain) < len(plan.body) * 0.6
    assert "lora.engine_checks" not in plain and "lora.engine_checks" in lora
    assert "vllm_config.steps.cudagraph_sizes" in plain  # the compilation pipeline always runs
