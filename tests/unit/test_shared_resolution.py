"""api.shared_resolution: one resolution per release and normalised input, within one model_files run.

Suggested fixes, open values and the MoE guess are resolved through it; a change there that keyed
on less than what a resolution depends on would judge a fix by another deployment's outcome.
"""
from __future__ import annotations

from vllm_preflight import api, model_files
from vllm_preflight.gpus import GPUS
from vllm_preflight.model import Deployment, Location
from vllm_preflight.resolve import resolve

H200, B200 = GPUS["H200"], GPUS["B200"]
WORDS = ("vllm", "serve", "Qwen/Qwen3-0.6B", "-tp", "2")


def test_the_same_input_written_in_two_files_shares_one_resolution():
    model_files.begin_run(True)
    a = Deployment(argv=WORDS, source="a.sh", location=Location("a.sh", 3))
    b = Deployment(argv=WORDS, source="b.sh", location=Location("b.sh", 9))
    first = api.shared_resolution(a, "0.33.0", H200)
    assert api.shared_resolution(b, "0.33.0", H200) is first
    # and it is what resolve gives
    fresh = resolve(a, "0.33.0", gpu=H200)
    assert (first.resolved, first.vllm_error, first.events) == (fresh.resolved, fresh.vllm_error, fresh.events)


def test_what_a_resolution_depends_on_is_in_the_key():
    model_files.begin_run(True)
    d = Deployment(argv=WORDS)
    base = api.shared_resolution(d, "0.33.0", H200)
    others = [api.shared_resolution(d, "0.20.2", H200),
              api.shared_resolution(d, "0.33.0", B200),
              api.shared_resolution(d, "0.33.0", H200, env=(("VLLM_ALL2ALL_BACKEND", "naive"),)),
              api.shared_resolution(d, "0.33.0", H200, facts=(("is_moe", "true"),)),
              api.shared_resolution(Deployment(argv=WORDS + ("-O0",)), "0.33.0", H200),
              api.shared_resolution(Deployment(argv=WORDS, env=(("TORCH_COMPILE_DISABLE", "1"),)), "0.33.0", H200),
              api.shared_resolution(Deployment(argv=WORDS, base_dir="/nowhere"), "0.33.0", H200)]
    assert all(o is not base for o in others)
    assert len({id(o) for o in others}) == len(others)


def test_a_new_run_starts_afresh_and_findings_are_memoised_with_it():
    model_files.begin_run(True)
    d = Deployment(argv=WORDS)
    first = api.shared_resolution(d, "0.33.0", H200)
    found = api.shared_findings(first)
    assert api.shared_findings(first) is found
    model_files.begin_run(True)
    assert api.shared_resolution(d, "0.33.0", H200) is not first


def _pr_block_check(paths):
    from vllm_preflight.api import check_inputs

    return check_inputs([str(p) for p in paths], offline=True)


def test_the_pr29558_block_of_equal_texts_is_computed_once_and_names_each_file(tmp_path):
    """Files of equal text share the block; each file's block names that file (its findings'
    locations), and it is what checking the file alone gives."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "examples" / "deepep-ht-dp8.sh").read_text()
    for name in ("a.sh", "b.sh"):
        (tmp_path / name).write_text(text)
    (tmp_path / "c.sh").write_text("\n" + text)  # one line lower: another key
    calls = []
    real = api._pr_design_fresh

    def counted(d, **how):
        calls.append(d.source)
        return real(d, **how)

    api._pr_design_fresh = counted
    try:
        both = _pr_block_check([tmp_path])
    finally:
        api._pr_design_fresh = real
    assert len(calls) == 2  # a.sh (b.sh shares it) and c.sh
    blocks = {Path(r.source).name: r.extra["pr29558"] for r in both.results}
    assert blocks["a.sh"]["findings"] and blocks["b.sh"]["findings"]
    for name, block in blocks.items():
        alone = _pr_block_check([tmp_path / name]).results[0].extra["pr29558"]
        assert block == alone
        assert {f["location"]["file"] for f in block["findings"]} == {str(tmp_path / name)}
    assert blocks["c.sh"]["findings"][0]["location"]["line"] == blocks["a.sh"]["findings"][0]["location"]["line"] + 1


def test_a_deployment_the_text_walk_cannot_key_still_shares_its_own_block():
    """A YAML server (its words placed by YAML marks) is keyed by itself: checked twice, its PR
    #29558 block is computed once."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    loaded, _ = api.load_inputs([str(root / "examples" / "kserve-dp-ep.yaml")], None, {})
    model_files.begin_run(True)
    calls = []
    real = api._pr_design_fresh

    def counted(d, **how):
        calls.append(d.source)
        return real(d, **how)

    api._pr_design_fresh = counted
    try:
        first = [api.check_deployment(d, env=()).extra.get("pr29558") for d in loaded]
        again = [api.check_deployment(d, env=()).extra.get("pr29558") for d in loaded]
    finally:
        api._pr_design_fresh = real
    assert any(first) and first == again
    assert len(calls) == sum(1 for b in first if b)
