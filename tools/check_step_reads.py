"""Check the steps' read declarations against the golden corpus (issue 26), step by step.

    python tools/check_step_reads.py [--sample N] [--family DIR]

Resolves each golden with the full plan and, for every step the pruned plan would leave out
(none of its declared inputs set), checks that running it changed nothing: no refusal, no
event or log line, no assumption, no change of the state. A step listed here reads something
its `@reads(...)` does not declare. (tests/golden/test_plan_equivalence.py compares the two
plans' results on every golden; this names the step when they would differ.)
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "golden"))

from compare import deployment_of, target_of

from vllm_preflight.gpus import DEFAULT_GPU, GPUS
from vllm_preflight.releases import get_release
from vllm_preflight.resolve.base.state import Refusal, State
from vllm_preflight.resolve.plan import model_facts_set, plan_for

_FIELDS = ("cc", "pass_config", "parallel", "scheduler", "model_cfg", "optimization_level", "num_speculative_tokens",
           "speculative_method", "speculative_method_resolved", "dynamic_sd_schedule", "cc_given", "kv_transfer",
           "values", "serve_mode", "runtime", "_once")


def fingerprint(state: State) -> tuple:
    return (len(state.events), len(state.logs), len(state.assumptions),
            *(repr(getattr(state, f)) for f in _FIELDS))


def check(golden: dict, misses: dict, hits: Counter) -> None:
    d, target = deployment_of(golden), target_of(golden)
    serve = (golden.get("oracle") or {}).get("path") == "vllm serve"
    release, plan = get_release(target), plan_for(target)
    env = dict(d.env)
    state = State(release=release, gpu=GPUS[DEFAULT_GPU], env=env, model=None, base_dir=d.base_dir, words=d.argv,
                  serve_stage=serve)
    try:
        for step in plan.head:
            step.run(state, state.values)
        pruned = set(map(id, plan.steps_for(state.values, env, model_facts_set(state))))
        for step in plan.body:
            left_out = id(step) not in pruned
            before = fingerprint(state) if left_out else None
            try:
                step.run(state, state.values) if step.takes_values else step.run(state)
            except Refusal:
                if left_out:
                    misses[step.name].append((golden["id"], "refuses"))
                raise
            if left_out:
                hits[step.name] += 1
                if fingerprint(state) != before:
                    misses[step.name].append((golden["id"], "changes the state"))
    except (Refusal, json.JSONDecodeError):
        pass


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=0, help="every n-th golden (0: all)")
    ap.add_argument("--family", default="", help="only goldens under this folder of tests/golden/data")
    a = ap.parse_args()
    misses: dict = defaultdict(list)
    hits: Counter = Counter()
    n = 0
    for path in sorted((ROOT / "tests" / "golden" / "data" / a.family).rglob("*.jsonl")):
        for i, line in enumerate(path.read_text().splitlines()):
            if line.strip() and (not a.sample or i % a.sample == 0):
                check(json.loads(line), misses, hits)
                n += 1
    print(f"{n} goldens; steps left out (and checked to change nothing): {sum(hits.values())}")
    for name, cases in sorted(misses.items()):
        print(f"  {name}: {len(cases)} cases where leaving it out would change the result; e.g. {cases[:3]}")
    sys.exit(1 if misses else 0)


if __name__ == "__main__":
    main()
