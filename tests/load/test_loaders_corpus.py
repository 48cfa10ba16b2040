"""Every server of the loaders' corpus found as bash, Kubernetes, Compose, KServe or Ray would
start it: none missed, none made up, every word, version and variable as written by hand in
tests/fixtures/corpus/expected.yaml (issue 19). bench/bench_loaders.py prints the counts."""
from __future__ import annotations

import pytest
from corpus import compare, corpus_files, expectations

SPECS = expectations()


def test_every_corpus_file_has_expectations_and_every_shape_is_there():
    assert sorted(SPECS) == corpus_files()
    assert len(SPECS) >= 50
    assert {s["shape"] for s in SPECS.values()} >= {"shell", "slurm", "markdown", "vllm-config", "kubernetes",
                                                     "kserve", "aibrix", "kuberay", "compose", "preflight"}


@pytest.mark.parametrize("rel", sorted(SPECS))
def test_corpus_file_servers(rel, in_root):
    out = compare(rel, SPECS[rel])
    assert out.missed == [], out.missed
    assert out.phantom == [], out.phantom
    assert out.differ == [], out.differ
    assert out.problems == [], out.problems
