"""Folding: rows that read the same merge, so the table fits a terminal.

Each row has coordinates (its release, and its value on each axis) and a signature (what the
table shows). Going axis by axis, rows whose signature and other coordinates are equal merge
into one row holding the set of values of that axis — exact: a folded row claims only what
every row it holds says. Releases merge only into runs of consecutive releases ("0.14.0–0.29.0";
pr29558 never joins a run); a set holding every value of an axis reads "any".
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from vllm_preflight.releases import PR29558

RELEASE = "release"


@dataclass
class Group:
    coords: dict[str, tuple]  # axis -> values, in display order
    sig: tuple
    members: list = field(default_factory=list)  # whatever the caller folds (rows, diffs)


def fold(entries: Sequence[tuple[dict, tuple, object]], axes: tuple[str, ...], targets: list[str],
         values_of: Callable[[str, list[str]], list[str]], passes: int = 2) -> list[Group]:
    """entries: (coords {release: target, axis: value}, signature, member). Groups in table order."""
    t_index = {t: i for i, t in enumerate(targets)}
    order = (RELEASE,) + tuple(axes)
    v_index: dict[str, dict[str, int]] = {a: {} for a in axes}
    for a in axes:
        for v in values_of(a, targets):
            v_index[a].setdefault(v, len(v_index[a]))
    groups = [Group({k: (c[k],) for k in order}, sig, [m]) for c, sig, m in entries]
    for _ in range(passes):
        before = len(groups)
        for axis in (RELEASE,) + tuple(reversed(axes)):
            groups = _merge_along(groups, axis, order, t_index, v_index)
        if len(groups) == before:
            break

    def key(g: Group):
        return tuple(min(t_index[x] for x in g.coords[RELEASE]) if a == RELEASE
                     else min(v_index[a].get(x, 10 ** 6) for x in g.coords[a]) for a in order)
    return sorted(groups, key=key)


def _merge_along(groups: list[Group], axis: str, order, t_index, v_index) -> list[Group]:
    buckets: dict[tuple, list[Group]] = {}
    for g in groups:
        k = tuple((a, g.coords[a]) for a in order if a != axis) + (g.sig,)
        if axis == RELEASE:
            k += (PR29558 in g.coords[RELEASE],)
        buckets.setdefault(k, []).append(g)
    out: list[Group] = []
    for bucket in buckets.values():
        if axis == RELEASE:
            bucket.sort(key=lambda g: min(t_index[x] for x in g.coords[RELEASE]))
            runs: list[list[Group]] = []
            for g in bucket:
                lo = min(t_index[x] for x in g.coords[RELEASE])
                if runs and PR29558 not in g.coords[RELEASE] and \
                        lo == max(t_index[x] for x in runs[-1][-1].coords[RELEASE]) + 1:
                    runs[-1].append(g)
                else:
                    runs.append([g])
        else:
            runs = [bucket]
        for run in runs:
            if len(run) == 1:
                out.append(run[0])
                continue
            vals: list = []
            for g in run:
                vals += [v for v in g.coords[axis] if v not in vals]
            idx = t_index if axis == RELEASE else v_index[axis]
            vals.sort(key=lambda v: idx.get(v, 10 ** 6))
            coords = dict(run[0].coords)
            coords[axis] = tuple(vals)
            out.append(Group(coords, run[0].sig, [m for g in run for m in g.members]))
    return out


def release_text(targets_in: tuple, all_targets: list[str]) -> str:
    """("0.14.0", ..., "0.29.0") -> "0.14.0–0.29.0"; gaps make a list of runs."""
    idx = sorted(all_targets.index(t) for t in targets_in)
    runs: list[list[int]] = []
    for i in idx:
        if runs and i == runs[-1][-1] + 1 and all_targets[i] != PR29558:
            runs[-1].append(i)
        else:
            runs.append([i])
    parts = [all_targets[r[0]] if len(r) == 1 else f"{all_targets[r[0]]}–{all_targets[r[-1]]}" for r in runs]
    return ", ".join(parts)


def values_text(vals: tuple, universe: list[str]) -> str:
    """Every value of the axis reads "any"; nearly every value "any but x"."""
    if len(universe) > 1 and set(universe) <= set(vals):
        return "any"
    missing = [v for v in universe if v not in vals]
    if len(vals) > 2 and 0 < len(missing) <= 2:
        return "any but " + ", ".join(missing)
    return ", ".join(vals)
