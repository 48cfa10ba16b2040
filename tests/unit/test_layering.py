"""The house's import directions (issue 26): data below behaviour, behaviour below output.

`ALLOWED` is the layering table: for each top-level package (or module) of `vllm_preflight`,
the packages it may import. A new import that is not in the table fails here: either it
reaches the wrong way (move the shared code down instead), or the table grows on purpose,
in review. Function-level imports count the same as module-level ones.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PKG = SRC / "vllm_preflight"

NOUNS = {"model", "errors", "gpus", "safe_text", "differences", "rule_example", "__init__"}  # plain data, no behaviour
ALLOWED: dict[str, set[str]] = {
    # -- nouns and data: import nothing that behaves
    "__init__": set(),
    "model": set(),
    "safe_text": set(),
    "interrupts": set(),  # Ctrl-C / SIGTERM as exit codes, shared by every command
    "errors": {"model"},
    "gpus": {"errors"},
    "differences": set(),
    "releases": set(),  # what releases ARE (tables, recorded facts); never the resolver
    "rule_example": set(),
    "identity": set(),  # who a server is: its prefill/decode role and its one human name
    "findings": {"model", "findings_docs", "rule_example"},  # the rule catalogue; findings_docs folds its texts in
    "findings_docs": {"rule_example"},
    # -- inputs: formats and files (load validates a deployment file against the schema)
    "load": {"identity", "model", "errors", "findings", "gpus", "releases", "schema", "differences"},  # gpus: a file's `gpu` named
    "model_files": {"errors", "load"},  # where a model's small files are: local folder, HF cache, Hub
    "modelfacts": {"model", "errors", "load", "model_files"},  # a model's config.json, read through load.source
    "written": {"model", "schema"},
    "plan": {"written"},
    # -- behaviour: what vLLM does, from data; knows no input format and no output
    "resolve": {"model", "gpus", "modelfacts", "model_files", "releases"},
    # -- over resolutions: the capture plan (shared by check and verify), hazards, dependences
    "capture": {"releases"},
    "hazards": {"identity", "model", "findings", "releases", "written", "capture"},
    "model_kind": {"model", "findings", "modelfacts", "differences"},
    "schema": {"model", "errors", "findings", "gpus", "modelfacts", "releases", "resolve", "api"},  # api: its CLI command
    # -- output and orchestration
    "outcome": set(),
    # what of an input-named file a finding may quote (issue 25): vLLM's vocabulary, else the place
    "private_text": {"model", "load", "modelfacts", "schema"},
    "rule_docs": {"findings", "report"},  # report: wrapping to the terminal's width
    "ignores": {"identity", "model", "errors", "findings", "load"},
    "arguments": {"errors", "load"},
    "project": {"errors", "findings", "ignores"},  # the project configuration: a key per `check` option
    "api": {"identity", "model", "errors", "gpus", "findings", "hazards", "load", "model_kind", "plan", "releases",
            "resolve", "schema", "written", "arguments", "model_files", "modelfacts", "private_text"},
    "report": {"identity", "__init__", "model", "findings", "outcome", "resolve", "safe_text"},
    "cli": {"__init__", "api", "errors", "findings", "gpus", "ignores", "interrupts", "model_files", "outcome",
            "project", "report", "safe_text"},
    "__main__": {"cli"},
    "matrix": {"identity", "__init__", "api", "cli", "differences", "errors", "findings", "gpus", "interrupts", "load",
               "model", "modelfacts", "model_files", "releases", "report", "resolve", "safe_text", "schema",
               "verify"},  # report: the text report's Out (colour, width, wrapping between words) draws the
    # terminal table too
    # reads vLLM start logs and holds them against check's prediction (records as verify writes them)
    "confirm": {"api", "cli", "errors", "gpus", "model", "model_files", "releases", "safe_text", "verify"},
    # -- on top: the only room that imports torch
    "verify": {"__init__", "api", "capture", "cli", "errors", "gpus", "releases", "safe_text"},
}


def _top(path: Path) -> str:
    rel = path.relative_to(PKG).parts
    return rel[0].removesuffix(".py")


def package_imports() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in PKG.rglob("*.py"):
        top = _top(path)
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = ([f"{node.module}.{a.name}" for a in node.names] if node.module == "vllm_preflight"
                         else [node.module])
            for name in names:
                parts = name.split(".")
                if parts[0] == "vllm_preflight":
                    target = parts[1] if len(parts) > 1 else "__init__"
                    target = "__init__" if target == "__version__" else target
                    if target != top:
                        edges.setdefault(top, set()).add(target)
    return edges


def test_every_package_is_in_the_table():
    tops = {_top(p) for p in PKG.rglob("*.py")}
    assert tops - set(ALLOWED) == set()


def test_imports_follow_the_layering_table():
    wrong = {pkg: sorted(targets - ALLOWED.get(pkg, set())) for pkg, targets in package_imports().items()
             if targets - ALLOWED.get(pkg, set())}
    assert wrong == {}


def test_the_table_keeps_the_boundaries_of_issue_26():
    """Data never reaches up into behaviour; the resolver knows no input format and no output;
    `check` (hazards) does not load verify's modules."""
    behaviour_and_up = {"resolve", "load", "findings", "hazards", "report", "api", "cli", "verify", "capture"}
    assert not ALLOWED["releases"] & behaviour_and_up
    assert not ALLOWED["resolve"] & {"load", "findings", "hazards", "report", "api", "cli", "verify", "capture",
                                     "schema", "matrix"}
    assert "verify" not in ALLOWED["hazards"] and "verify" not in ALLOWED["api"]
    assert all(not ALLOWED[n] - NOUNS for n in NOUNS)


def test_check_does_not_import_verify():
    """`check` of a deployment loads neither torch nor any module of verify/."""
    code = ("import atexit, runpy, sys\n"
            "atexit.register(lambda: sys.stderr.write(repr(sorted(m for m in sys.modules if m == 'torch' or "
            "m.startswith('vllm_preflight.verify'))) + '\\n'))\n"
            "sys.argv = ['vllm-preflight', 'check', '--format', 'json', '--fail-on', 'never', "
            "'examples/deepep-ht-dp8.sh']\n"
            "runpy.run_module('vllm_preflight', run_name='__main__')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=SRC.parent,
                         env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0 and '"results"' in out.stdout, out.stderr[-2000:]
    assert out.stderr.strip().splitlines()[-1] == "[]"


def _module_imports() -> dict[str, set[str]]:
    """module -> the modules of vllm_preflight it imports (at module level or inside functions)."""
    names = {}
    for path in PKG.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path

    def known(name: str) -> str | None:
        while name and name not in names:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in names}
    for mod, path in names.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [known(a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in names else known(node.module)
                           for a in node.names]
            else:
                continue
            graph[mod] |= {t for t in targets if t and t != mod and t.startswith("vllm_preflight")}
    return graph


def test_no_import_cycle_anywhere():
    """No module reaches itself through its imports (function-level imports included)."""
    graph = _module_imports()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == []
