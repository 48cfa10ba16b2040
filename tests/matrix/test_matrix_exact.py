"""The shortcuts are exact: sampled cells resolved both ways (the matrix's path vs plain
`check_deployment` with `validate_bound`) give identical rows; forked workers give the rows a
single process gives; the memoised validation equals `validate_bound`, bad values included."""
import random

import pytest

from vllm_preflight.api import check_deployment, load_inputs
from vllm_preflight.load.bind import bind
from vllm_preflight.matrix import axes, cells, targets
from vllm_preflight.matrix.validation import validate
from vllm_preflight.model import Deployment
from vllm_preflight.releases import get_release
from vllm_preflight.schema.validate import validate_bound

ALL_AXES = tuple(axes.AXES)


def _sample(n: int, seed: int):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        t = rng.choice(targets.ALL)
        r = get_release(t)
        combo = tuple((a, rng.choice(axes.AXES[a].values(r))) for a in ALL_AXES)
        out.append(cells.Cell(t, combo))
    return out


def test_sampled_cells_agree_with_plain_check_deployment():
    p = cells.Plan(axes.base_deployment(), _sample(150, seed=8), ALL_AXES)
    fast = [cells.check_cell(p, c, cells.Settings(), fast=True) for c in p.cells]
    plain = [cells.check_cell(p, c, cells.Settings(), fast=False) for c in p.cells]
    assert fast == plain
    # the sample reaches every outcome the matrix colours, so the comparison is not vacuous
    from vllm_preflight.matrix import outcome
    assert {outcome.of(r).status for r in fast} >= {"on", "off", "refused"}


def test_a_row_is_exactly_a_check_result_for_the_cells_deployment():
    p = cells.Plan(axes.base_deployment(), _sample(20, seed=3), ALL_AXES)
    for c in p.cells:
        row = cells.check_cell(p, c, cells.Settings())
        pr = c.target == "pr29558"
        res = check_deployment(cells.deployment_for(p, c), vllm_version=None if pr else c.target,
                               target="pr29558" if pr else "release")
        assert row == dict(res.to_json(), axes=dict(c.combo))


def test_forked_workers_give_the_single_process_rows(monkeypatch):
    monkeypatch.setattr(cells, "PARALLEL_MIN_CELLS", 10)
    p = cells.plan(axes.base_deployment(), ["0.13.0", "pr29558"], ("all2all", "dp", "cudagraph_mode"),
                   {"all2all": {"deepep_high_throughput", "deepep_low_latency"}})
    many = cells.rows(p, cells.Settings(jobs=2))
    one = cells.rows(p, cells.Settings(jobs=1))
    assert len(many) == len(p.cells) == 2 * 2 * 3 * 6
    assert many == one


@pytest.mark.parametrize("words", [
    ("--all2all-backend", "not_a_backend", "-dp", "x"),
    ("-cc", '{"cudagraph_mode": "PIECEWIS", "bogus": 1, "pass_config": {"nope": true}}'),
    ("--compilation-config", '{"mode": 7}', "--max-num-seqs", "many"),
    ("--tensor-parallel-size", "2", "--tensor-parallel-size", "4", "--no-such-flag"),
    ("-O3", "--enable-expert-parallel", "--data-parallel-size", "8"),
])
@pytest.mark.parametrize("target", ["0.11.0", "0.12.0", "0.17.0", "0.33.0", "pr29558"])
def test_memoised_validation_equals_validate_bound(words, target):
    release = get_release(target)
    d = Deployment(("vllm", "serve", "deepseek-ai/DeepSeek-V3") + words)
    expected = validate_bound(bind(d, release), release)
    assert validate(bind(d, release), release) == expected
    assert validate(bind(d, release), release) == expected  # from the memo, second time


def test_memoised_validation_with_file_locations(in_root):
    (d,), _ = load_inputs(["examples/deepep-ht-dp8.sh"], None, {})
    for t in ("0.11.0", "0.20.0", "pr29558"):
        release = get_release(t)
        assert validate(bind(d, release), release) == validate_bound(bind(d, release), release)


def test_slim_rows_from_children_draw_the_same_tables_and_diffs(monkeypatch):
    from vllm_preflight.matrix import diff, table

    monkeypatch.setattr(cells, "PARALLEL_MIN_CELLS", 10)
    ax = ("all2all", "dp", "ep", "cudagraph_mode")
    p = cells.plan(axes.base_deployment(), ["0.12.0", "pr29558"], ax,
                   {"all2all": {"deepep_high_throughput", "deepep_low_latency", "naive"}})
    full = cells.rows(p, cells.Settings(jobs=1))
    thin = cells.rows(p, cells.Settings(jobs=2, slim=True))
    assert thin == [cells.slim(r) for r in full] and len(thin[0]) < len(full[0])

    def drawn(rows):
        t = table.build(rows, ax, ["0.12.0", "pr29558"], "t")
        return [(line.cells, line.status, line.reasons) for line in t.lines]
    assert drawn(thin) == drawn(full)

    def compared(rows):
        half = [r for r in rows if r["target"] == "release"], [r for r in rows if r["target"] == "pr29558"]
        return diff.lines(diff.compare(*half, "0.12.0", "pr29558"), ax)
    assert compared(thin) == compared(full)
    assert any("keeps graphs in" in line for line in compared(full))
