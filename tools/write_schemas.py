"""Rewrite the JSON Schemas shipped in the package (src/vllm_preflight/schema/json/).

Run after the release data changes (tools/build_release_data.py):

    python tools/write_schemas.py
"""
from __future__ import annotations

from vllm_preflight.schema.shipped import JSON_DIR, write_all


def main() -> None:
    written = write_all()
    print(f"{len(written)} schema file(s) rewritten in {JSON_DIR}")


if __name__ == "__main__":
    main()
