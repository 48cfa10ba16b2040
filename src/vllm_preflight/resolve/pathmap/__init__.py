"""docs/config-path-map.md, generated from the resolver's registry (resolve/path.py) and the map's
rows (this package): every function vLLM runs between `vllm serve`'s argument parser and the
finished `VllmConfig`, for 0.12.0 and 0.33.0, its status, and where the port lives. The port
column names the registry's own functions and modules, so a step that moves moves in the map
too; the last section lists the registry's steps in the order `resolve()` runs them.

    python -m vllm_preflight.resolve.pathmap            # write docs/config-path-map.md
    python -m vllm_preflight.resolve.pathmap --check    # exit 1 when the committed file differs
"""
from __future__ import annotations

from vllm_preflight.resolve.pathmap import engine, fidelity, first_release, front_door, path_table, post_init
from vllm_preflight.resolve.pathmap.table import render_section


def render() -> str:
    sections = (front_door.SECTIONS + engine.SECTIONS + post_init.SECTIONS + fidelity.SECTIONS
                + first_release.SECTIONS)
    parts = [front_door.HEAD.rstrip("\n")]
    parts += [render_section(i, s) for i, s in enumerate(sections)]
    parts.append(path_table.render(len(sections)))
    return "\n\n".join(parts) + "\n"
