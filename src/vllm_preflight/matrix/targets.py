"""Which targets a matrix covers: `--vllm-version` as a release, a range `A..B`, a list `A,B`, `all`
(every supported release and pr29558) or `releases` (the releases alone)."""
from __future__ import annotations

from vllm_preflight.errors import UsageProblem
from vllm_preflight.releases import PR29558, SUPPORTED, version_key

ALL = tuple(SUPPORTED) + (PR29558,)


def one(name: str) -> str:
    """One target by name; an unknown one is a usage error naming the range."""
    name = name.strip()
    if name.lower() == PR29558:
        return PR29558
    v = name.removeprefix("v")
    if v not in SUPPORTED:
        raise UsageProblem(f"unknown release {name!r}: supported releases are {SUPPORTED[0]} to "
                           f"{SUPPORTED[-1]}, and pr29558")
    return v


def _range(lo: str, hi: str) -> list[str]:
    def key(v: str):
        try:
            return version_key(v.strip().removeprefix("v"))
        except ValueError:
            raise UsageProblem(f"bad release range bound {v!r}: write it as X.Y.Z, e.g. 0.12.0..0.20.2") from None

    a, b = key(lo) if lo.strip() else (0,), key(hi) if hi.strip() else (10 ** 6,)
    picked = [v for v in SUPPORTED if a <= version_key(v) <= b]
    if not picked:
        raise UsageProblem(f"no supported release in {lo}..{hi}: supported releases are "
                           f"{SUPPORTED[0]} to {SUPPORTED[-1]}")
    return picked


def parse_targets(spec: str | None) -> list[str]:
    """Target names in release order, pr29558 last; None or `all` is everything."""
    if spec is None or spec.strip().lower() == "all":
        return list(ALL)
    if spec.strip().lower() == "releases":
        return list(SUPPORTED)
    out: list[str] = []
    for part in spec.split(","):
        if not part.strip():
            continue
        if ".." in part:
            lo, _, hi = part.partition("..")
            out += _range(lo, hi)
        else:
            out.append(one(part))
    if not out:
        raise UsageProblem(f"--vllm-version {spec!r} names no release")
    seen = set(out)
    return [t for t in ALL if t in seen]


def label(target: str) -> str:
    return target


def order(target: str) -> int:
    return ALL.index(target)
