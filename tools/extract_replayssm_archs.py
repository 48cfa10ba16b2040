"""Record, per release, which registered architectures support ReplaySSM (`--use-replayssm`).

vLLM's ModelConfig.supports_replayssm is the registry's `_ModelInfo.supports_replayssm`, i.e.
`interfaces.supports_replayssm(cls)`: the class attribute `supports_replayssm` (which the
`SupportsReplaySSM` interface sets to True) as the registered class resolves it. This tool
reads each release's sources with `ast` (never importing them), reusing extract_arch_facts'
class resolution (imports followed, the last binding of a name taken -- for the
platform-dispatching packages such as `vllm.models.kimi_k3` that is the CUDA branch), and
asks each registered class's MRO for that attribute.

Writes src/vllm_preflight/releases/data/replayssm.json:
  {"releases": [...], "supports_replayssm": {FIRST_RELEASE: [ARCH, ...], ...}}
where a key opens a run of releases with the same set (releases before the first key have no
ReplaySSM at all).

Usage: python tools/extract_replayssm_archs.py SRC_ROOT [--versions V ...] [-o OUT]
Validation data: VENV/bin/python tools/extract_replayssm_archs.py --dump-real ORACLE_DIR
(prints the set real vLLM's `supports_replayssm` reports for every registered class it can
import in-process, the GPU emulated by the oracle's cuda_emulation; classes that do not import
on a GPU-less machine -- the Triton-kernel ones such as Kimi-Linear -- are listed on stderr).
Checked on 0.33.0: the two Nemotron-H classes import and agree; Kimi-Linear / Kimi-K3 agree
through the registry's own `inspect_model_cls`.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import extract_arch_facts as eaf  # type: ignore[import-not-found]  # tools/ on sys.path

OUT = Path(__file__).resolve().parent.parent / "src" / "vllm_preflight" / "releases" / "data" / "replayssm.json"
ATTR = "supports_replayssm"


def supporting(root: Path) -> list[str] | None:
    """The registered architectures whose class resolves `supports_replayssm` to a true value;
    None where the release has no ReplaySSM (the interface function does not exist)."""
    src = eaf.Source(root)
    itf = src.tree(eaf.INTERFACES)
    if itf is None or not any(getattr(st, "name", None) == ATTR for st in itf.body):
        return None
    memo: dict = {}
    return sorted(arch for arch, info in eaf.registered_classes(src)
                  if info is not None and eaf.class_attr(info, memo, ATTR) not in (False, None, 0))


def dump_real(oracle: str) -> int:
    sys.path.insert(0, oracle)
    import cuda_emulation as ce  # type: ignore[import-not-found]

    ce.install(ce.FakeGpu.from_spec(None))
    import importlib

    from vllm.model_executor.models import interfaces as itf
    from vllm.model_executor.models import registry as reg

    res = []
    for arch, model in reg.ModelRegistry.models.items():
        try:  # the class itself, imported here (inspect_model_cls would start a process per class)
            cls = getattr(importlib.import_module(model.module_name), model.class_name)
        except Exception as e:  # noqa: BLE001 - reported
            print(f"{arch}: {type(e).__name__}: {e}"[:200], file=sys.stderr)
            continue
        if getattr(itf, ATTR)(cls):
            res.append(arch)
    print(json.dumps(sorted(res)))
    return 0


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--dump-real":
        return dump_real(sys.argv[2])
    a, root, versions = eaf.source_cli(__doc__, OUT)
    runs: dict[str, list[str]] = {}
    last: list[str] | None = None
    have = []
    for v in versions:
        archs = supporting(root / v)
        print(f"{v}: {archs}", file=sys.stderr)
        if archs is None:
            continue
        have.append(v)
        if archs != last:
            runs[v] = archs
            last = archs
    data = {"releases": have, ATTR: runs}
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(f"wrote {a.out}: {len(runs)} runs over {len(have)} releases", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
