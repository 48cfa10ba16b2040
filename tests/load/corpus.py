"""The loaders' corpus: files of every shape the README claims, and the servers each starts.

`tests/fixtures/corpus/expected.yaml` holds, per file, the servers written by hand from what
bash, Kubernetes, Compose, KServe or Ray would run. `compare` loads a file the way `check`
does and sorts the servers into matched, missed (expected, not found), phantom (found, not
expected) and differing (found where expected, with other words, version or environment).
Used by tests/load/test_loaders_corpus.py (which wants no missed, phantom or differing server)
and bench/bench_loaders.py (which prints the counts per shape and the time per file).
"""
from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"


def expectations() -> dict:
    return yaml.safe_load((CORPUS / "expected.yaml").read_text())["files"]


def corpus_files() -> list[str]:
    """Every file of the corpus but the expectations, relative to the corpus folder."""
    return sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.is_file() and p.name != "expected.yaml")


@dataclass
class Outcome:
    name: str
    shape: str
    expected: int = 0
    found: int = 0
    matched: int = 0
    missed: list = field(default_factory=list)  # expected servers not found
    phantom: list = field(default_factory=list)  # found servers not expected
    differ: list = field(default_factory=list)  # (at, what, expected, found)
    problems: list = field(default_factory=list)  # an error that should not be, or one missing
    seconds: float = 0.0

    @property
    def clean(self) -> bool:
        return not (self.missed or self.phantom or self.differ or self.problems)


def _shown(p: Path) -> str:
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)


def load(rel: str, allow: list[str] | tuple = ()):
    """(servers, errors, parts skipped, seconds) of one corpus file, read as `check` reads it
    (`allow`: corpus folders passed as `--allow-path`)."""
    from vllm_preflight.load import load_paths

    skipped: list = []
    t = time.perf_counter()
    found, errors = load_paths([_shown(CORPUS / rel)], skipped=skipped,
                               allow_paths=[_shown(CORPUS / a) for a in allow])
    return found, errors, skipped, time.perf_counter() - t


def _place(d, at) -> bool:
    if isinstance(at, int):
        return d.location is not None and d.location.line == at
    return d.source.endswith(":" + str(at))


def _differences(spec: dict, d) -> list[tuple]:
    out = []
    want = shlex.split(spec["argv"])
    if list(d.argv) != want:
        out.append(("argv", shlex.join(want), shlex.join(d.argv)))
    if "version" in spec and (spec["version"] if spec["version"] is None else str(spec["version"])) != d.vllm_version:
        out.append(("version", spec["version"], d.vllm_version))
    env = dict(d.env)
    for k, v in (spec.get("env") or {}).items():
        if env.get(k) != str(v):
            out.append((f"env {k}", v, env.get(k)))
    return out


def compare(rel: str, spec: dict) -> Outcome:
    found, errors, skipped, seconds = load(rel, spec.get("allow") or ())
    out = Outcome(rel, spec.get("shape", "?"), expected=len(spec.get("servers") or []), found=len(found),
                  seconds=seconds)
    if "error" in spec:
        if not any(spec["error"] in e.message for e in errors):
            out.problems.append(f"expected an error with {spec['error']!r}, got {[e.message for e in errors]}")
    elif errors:
        out.problems += [f"error: {e.render()}" for e in errors]
    left = list(found)
    for want in spec.get("servers") or []:
        here = [d for d in left if _place(d, want["at"])]
        exact = [d for d in here if not _differences(want, d)]
        pick = (exact or here or [None])[0]
        if pick is None:
            out.missed.append(f"{want['at']}: {want['argv']}")
            continue
        left.remove(pick)
        out.matched += 1
        out.differ += [(want["at"], *diff) for diff in _differences(want, pick)]
    out.phantom += [f"{d.location.line if d.location else '?'} {d.source}: {shlex.join(d.argv)}" for d in left]
    if "skipped" in spec:
        lines = sorted(int(str(s).rsplit(":", 1)[1]) for s in skipped if str(s).rsplit(":", 1)[1].isdigit())
        if lines != sorted(spec["skipped"]):
            out.problems.append(f"skipped parts at {lines}, expected {sorted(spec['skipped'])}")
    return out


def run_all() -> list[Outcome]:
    specs = expectations()
    return [compare(rel, specs[rel]) for rel in sorted(specs)]
