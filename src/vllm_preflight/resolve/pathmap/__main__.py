"""Write (or, with --check, compare) docs/config-path-map.md from the registry."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vllm_preflight.resolve.pathmap import render

DOC = Path(__file__).resolve().parents[4] / "docs" / "config-path-map.md"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vllm_preflight.resolve.pathmap", description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 when the committed map differs")
    ap.add_argument("--out", type=Path, default=DOC)
    a = ap.parse_args(argv)
    text = render()
    if a.check:
        current = a.out.read_text() if a.out.exists() else ""
        if current != text:
            print(f"{a.out} is out of date: run python -m vllm_preflight.resolve.pathmap", file=sys.stderr)
            return 1
        return 0
    a.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
