"""Copy recorded goldens into the repo (tests/golden/data), dropping what the tests derive.

    python tools/promote_goldens.py RAW_DIR [VERSION ...]

The tests compute the expected values from the oracle's raw answer (tests/golden/compare.py),
so the copy keeps the case and the raw answer only.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "golden" / "data"


def main() -> None:
    raw_dir = Path(sys.argv[1])
    names = sys.argv[2:] or [p.stem for p in sorted(raw_dir.glob("*.jsonl"))]
    DATA.mkdir(parents=True, exist_ok=True)
    for name in names:
        out = []
        for line in (raw_dir / f"{name}.jsonl").read_text().splitlines():
            g = json.loads(line)
            g.pop("expected", None)
            g["oracle"].pop("torch_version", None)
            out.append(json.dumps(g, sort_keys=True, separators=(",", ":")))
        (DATA / f"{name}.jsonl").write_text("\n".join(out) + "\n")
        print(f"{name}: {len(out)} cases")


if __name__ == "__main__":
    main()
