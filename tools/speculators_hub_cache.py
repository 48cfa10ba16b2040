"""A Hugging Face hub cache holding the built-in table's config.json of a few hub ids, so that
the oracle (HF_HUB_OFFLINE) can load a speculators checkpoint's verifier by its hub id.

    python tools/speculators_hub_cache.py DIR [HUB_ID...]     # default: the `speculators` family's
    HF_HUB_CACHE=DIR python tools/record_golden.py VERSION --oracle ... --model-family speculators

Each id gets DIR/models--ORG--NAME/refs/main and snapshots/<commit>/config.json with the keys of
releases/data/models.json, the facts our resolver reads for the same id: real vLLM then resolves
the verifier from exactly what the port assumes. Run the recorder from the repository root:
fixtures may name a verifier by a path relative to it.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "src" / "vllm_preflight" / "releases" / "data" / "models.json"
VERIFIERS = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B")
COMMIT = "0" * 40


def write(cache: Path, ids: tuple[str, ...] | list[str]) -> None:
    table = json.loads(TABLE.read_text())["models"]
    for hub_id in ids:
        repo = cache / ("models--" + hub_id.replace("/", "--"))
        (repo / "refs").mkdir(parents=True, exist_ok=True)
        (repo / "refs" / "main").write_text(COMMIT)
        snap = repo / "snapshots" / COMMIT
        snap.mkdir(parents=True, exist_ok=True)
        (snap / "config.json").write_text(json.dumps(table[hub_id]["config"], indent=1) + "\n")


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    write(Path(argv[0]), argv[1:] or list(VERIFIERS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
