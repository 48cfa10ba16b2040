"""Copy recorded goldens into the repo (tests/golden/data), dropping what the tests derive.

    python tools/promote_goldens.py RAW_DIR [VERSION ...]
    python tools/promote_goldens.py --families RAW_DIR [VERSION ...]   # -> tests/golden/data/families

The tests compute the expected values from the oracle's raw answer (tests/golden/compare.py),
so the copy keeps the case and the raw answer only.

One exclusion, a limit of the recording environment rather than of vLLM's config logic: a
release installed today pulls today's transformers, and vLLM 0.11.0's tokenizer code calls a
tokenizer attribute that transformers no longer has, so loading the fixture Whisper tokenizer
fails with an AttributeError before any config is resolved. Those cases are left out and counted.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "golden" / "data"


def environment_breakdown(golden: dict) -> bool:
    err = golden["oracle"].get("error") or ""
    return err.startswith("AttributeError: ") and "Tokenizer has no attribute" in err


def main() -> None:
    args = sys.argv[1:]
    into = DATA
    if args[:1] == ["--families"]:
        args, into = args[1:], DATA / "families"
    raw_dir = Path(args[0])
    names = args[1:] or [p.stem for p in sorted(raw_dir.glob("*.jsonl"))]
    into.mkdir(parents=True, exist_ok=True)
    for name in names:
        out = []
        left_out = 0
        for line in (raw_dir / f"{name}.jsonl").read_text().splitlines():
            g = json.loads(line)
            if environment_breakdown(g):
                left_out += 1
                continue
            g.pop("expected", None)
            g["oracle"].pop("torch_version", None)
            line = json.dumps(g, sort_keys=True, separators=(",", ":"))
            # the recording machine's fixture folder, as the case's argv spells it
            out.append(line.replace(str(ROOT / "tests" / "fixtures" / "models"), "{models}"))
        (into / f"{name}.jsonl").write_text("\n".join(out) + "\n")
        print(f"{name}: {len(out)} cases" + (f" ({left_out} left out: tokenizer breaks in the "
                                                "recording environment)" if left_out else ""))


if __name__ == "__main__":
    main()
