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


@pytest.mark.parametrize("rel", ["kuberay/raycluster-vllm-head.yaml", "kuberay/rayjob-serve.yaml",
                                 "slurm/ray-cluster.slurm"])
def test_a_ray_launch_of_the_corpus_is_checked_with_the_nodes_ray(rel, in_root):
    """Their images (0.22.0, 0.19.1) and the newest release install no ray, but these servers run
    where Ray runs (a KubeRay pod, a script that starts Ray): `--distributed-executor-backend
    ray` is not refused, and node.ray is said once, as the launch shows it."""
    from corpus import CORPUS, ROOT

    from vllm_preflight.api import check_inputs

    report = check_inputs([str((CORPUS / rel).relative_to(ROOT))], offline=True)
    assert not report.errors and report.results
    for r in report.results:
        assert r.vllm_error is None, r.vllm_error
        assert [a.value for a in r.assumptions if a.fact == "node.ray"] == [True]
