"""The resolver's layout (issue 26): the path is the registry, and the map is generated from it.

docs/config-path-map.md is written by `python -m vllm_preflight.resolve.pathmap` from
resolve/path.py and resolve/pathmap/: it must equal what the registry says today. Each
module of the resolver stays small, and `resolve()` runs the plan with no imports of its own.
"""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

from vllm_preflight.releases import SUPPORTED
from vllm_preflight.resolve import resolve
from vllm_preflight.resolve.path import PATH, STAGES
from vllm_preflight.resolve.pathmap import render
from vllm_preflight.resolve.plan import plan_for

ROOT = Path(__file__).resolve().parents[2]
RESOLVE = ROOT / "src" / "vllm_preflight" / "resolve"
MAX_LINES = 600


def test_the_committed_map_is_generated_from_the_registry():
    committed = (ROOT / "docs" / "config-path-map.md").read_text()
    assert committed == render(), "docs/config-path-map.md is stale: run python -m vllm_preflight.resolve.pathmap"


def test_every_step_lives_in_the_package_of_its_stage():
    keys = {s.key for s in STAGES}
    for step in PATH:
        assert step.stage in keys, step.name
        if step.run is not None:
            assert step.run.__module__.startswith(f"vllm_preflight.resolve.{step.stage}"), step.name
    assert {p.name for p in RESOLVE.iterdir() if p.is_dir() and (p / "__init__.py").exists()} - keys \
        == {"base", "pathmap"}


def test_each_release_plan_holds_the_path_in_order():
    names = [s.name for s in PATH if s.run is not None and s.after is None]
    for version in (*SUPPORTED, "pr29558"):
        plan = plan_for(version)
        planned = [p.name for p in plan.head + plan.body if not p.name.startswith("vllm_config.steps.")]
        anchored = [s.name for s in PATH if s.after is not None]
        assert [n for n in planned if n not in anchored] == names


def test_no_module_of_the_resolver_is_over_600_lines():
    long = {str(p.relative_to(RESOLVE)): n for p in RESOLVE.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_resolve_itself_imports_nothing():
    tree = ast.parse(inspect.getsource(resolve))
    assert [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))] == []
