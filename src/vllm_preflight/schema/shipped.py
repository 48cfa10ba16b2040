"""The JSON Schemas shipped in the package (schema/json/), one per release and the deployment file.

Editors and validators (check-jsonschema, YAML language servers) read files, not Python, so
the generated schemas are written out and shipped; `tools/write_schemas.py` rewrites them from
the release data and a test fails when they drift. `vllm-preflight schema --path` prints where
a release's file is installed.
"""
from __future__ import annotations

import json
from pathlib import Path

JSON_DIR = Path(__file__).parent / "json"
DEPLOYMENT_FILE = "deployment.json"


def file_name(label: str) -> str:
    return f"vllm-serve-{label}.json"


def shipped_path(label: str) -> Path:
    return JSON_DIR / file_name(label)


def render(schema: dict) -> str:
    # compact: 36 releases of ~70 kB each; `vllm-preflight schema` prints one indented
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False) + "\n"


def expected_files() -> dict[str, str]:
    """File name -> contents, for every release, the PR #29558 design and the deployment file."""
    from vllm_preflight.releases import PR29558, SUPPORTED
    from vllm_preflight.schema.deployment import deployment_schema
    from vllm_preflight.schema.generate import release_schema

    files = {file_name(label): render(release_schema(label)) for label in SUPPORTED + (PR29558,)}
    files[DEPLOYMENT_FILE] = render(deployment_schema())
    return files


def write_all(directory: Path = JSON_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    files = expected_files()
    for stale in directory.glob("*.json"):
        if stale.name not in files:
            stale.unlink()
    for name, text in files.items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written
