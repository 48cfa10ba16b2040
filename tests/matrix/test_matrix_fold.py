"""Folding: identical neighbours merge, and a folded line claims only what each cell says."""
from vllm_preflight.matrix import fold
from vllm_preflight.releases import PR29558, SUPPORTED

T = list(SUPPORTED) + [PR29558]


def _values(axis, targets):
    return {"dp": ["1", "2", "8"], "ep": ["off", "on"]}[axis]


def test_consecutive_releases_fold_into_a_range_and_pr29558_stays_apart():
    sig = {t: ("off",) for t in T}
    sig["0.11.0"] = ("refused",)
    sig["0.20.0"] = ("on",)
    sig[PR29558] = ("off",)  # same as its neighbours, still its own line
    groups = fold.fold([({"release": t}, sig[t], t) for t in T], (), T, _values)
    texts = [(fold.release_text(g.coords["release"], T), g.sig) for g in groups]
    assert texts == [("0.11.0", ("refused",)), ("0.11.1–0.19.1", ("off",)), ("0.20.0", ("on",)),
                     ("0.20.1–0.33.0", ("off",)), ("pr29558", ("off",))]


def test_non_consecutive_equal_releases_do_not_merge():
    groups = fold.fold([({"release": t}, (t in ("0.12.0", "0.14.0"),), t) for t in ("0.12.0", "0.13.0", "0.14.0")],
                       (), ["0.12.0", "0.13.0", "0.14.0"], _values)
    assert [g.coords["release"] for g in groups] == [("0.12.0",), ("0.13.0",), ("0.14.0",)]


def test_axes_fold_only_where_every_value_agrees():
    # outcome depends on dp only when ep is on
    entries = [({"release": "0.13.0", "dp": dp, "ep": ep}, ("x" if ep == "on" and dp != "1" else "y",), (dp, ep))
               for dp in ("1", "2", "8") for ep in ("off", "on")]
    groups = fold.fold(entries, ("dp", "ep"), ["0.13.0"], _values)
    assert len(groups) == 3  # two outcomes, the x one a block; greedy folding needs one more line
    for g in groups:  # a line claims exactly its cells: the product of its value sets, all one outcome
        product = {(dp, ep) for dp in g.coords["dp"] for ep in g.coords["ep"]}
        assert product == set(g.members)
        assert {("x" if ep == "on" and dp != "1" else "y",) for dp, ep in product} == {g.sig}
    covered = sorted(m for g in groups for m in g.members)
    assert covered == sorted((dp, ep) for dp in ("1", "2", "8") for ep in ("off", "on"))


def test_values_text():
    assert fold.values_text(("a", "b", "c"), ["a", "b", "c"]) == "any"
    assert fold.values_text(("a", "b", "c"), ["a", "b", "c", "d"]) == "any but d"
    assert fold.values_text(("a",), ["a", "b"]) == "a"
    assert fold.release_text(("0.12.0", "0.13.0", "0.15.0"), T) == "0.12.0–0.13.0, 0.15.0"
