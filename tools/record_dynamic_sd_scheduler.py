"""Record what a real vLLM release's scheduler makes of dynamic speculative-decoding schedules:
`build_dynamic_sd_schedule_lookup` (v1/spec_decode/dynamic/utils.py, the scheduler's check at
engine start) over edge cases and seeded random schedules, with pydantic-built tuples as the
scheduler receives them. Run it with the release's own interpreter:

    VENV/bin/python tools/record_dynamic_sd_scheduler.py OUT.jsonl

Each line: {"schedule", "max_num_seqs", "k", "error" (ValueError message or null), "lookup"}.
Checked by tests/golden/test_dynamic_sd_scheduler.py against resolve/speculative/dynamic_sd.py."""
from __future__ import annotations

import json
import random
import sys


def cases() -> list[tuple[list, int, int]]:
    edge = [[(1, 4, 2)], [(0, 4, 2)], [(1, 0, 2)], [(-3, 4, 2)], [(5, 4, 1)], [(1, 4, -1)], [(2, 8, 2)],
            [(1, 4, 2), (4, 8, 1)], [(1, 4, 2), (5, 8, 1)], [(5, 8, 1), (1, 4, 2)], [(1, 4, 2), (9, 16, 0)],
            [(1, 4, 2), (3, 2, 1)], [(9, 16, 0), (2, 8, 1)], [(1, 1, 0)], [(1, 2048, 7)],
            [(1, 4, 2), (6, 5, -1)], [(2, 3, -1), (0, 1, 1)], [(1, 3, 1), (2, 4, 1), (0, 0, 0)], []]
    out = [(s, mns, k) for s in edge for mns, k in ((8, 3), (1024, 1), (3, 5))]
    out += [([(1, 4, 2)], 0, 2), ([(1, 4, 2)], 8, 0)]
    rng = random.Random(29558)
    for _ in range(400):
        entries = []
        for _ in range(rng.randint(1, 5)):
            a = rng.choice([rng.randint(-2, 40), rng.randint(1, 8)])
            b = a + rng.randint(-3, 30)
            entries.append((a, b, rng.randint(-1, 6)))
        if rng.random() < 0.5:  # mostly-valid schedules: sorted, starting at 1
            start, entries = 1, []
            for _ in range(rng.randint(1, 5)):
                end = start + rng.randint(0, 40)
                entries.append((start, end, rng.randint(0, 6)))
                start = end + 1 + rng.choice([0, 0, 0, rng.randint(1, 20)])
            rng.shuffle(entries) if rng.random() < 0.2 else None
        out.append((entries, rng.choice([1, 4, 16, 64, 256, 1024]), rng.randint(1, 6)))
    return out


def main(path: str) -> None:
    from vllm.v1.spec_decode.dynamic.utils import build_dynamic_sd_schedule_lookup

    with open(path, "w") as f:
        for schedule, mns, k in cases():
            try:
                lookup, error = build_dynamic_sd_schedule_lookup(list(schedule), mns, k), None
            except ValueError as e:
                lookup, error = None, str(e)
            f.write(json.dumps({"schedule": [list(e) for e in schedule], "max_num_seqs": mns, "k": k,
                                "error": error, "lookup": lookup}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
