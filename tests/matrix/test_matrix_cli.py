"""`vllm-preflight matrix` as a user runs it: the example across releases, --vs, --advise,
formats, records, exit codes and bad input."""
import csv
import io
import json
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner

from vllm_preflight.cli import cli
from vllm_preflight.matrix import outcome

HT = "examples/deepep-ht-dp8.sh"
LL = "examples/verify-deepep-ll-dp8.sh"


def run(*args):
    r = CliRunner().invoke(cli, ["matrix", *args])
    return r.exit_code, r.output


def test_example_every_release_graphs_off_pr29558_keeps_them_with_a_hazard(in_root):
    code, out = run(HT, "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["format_version"] == 1
    rows = doc["rows"]
    assert len(rows) == 36  # 35 releases and pr29558, unfolded
    assert all({"target", "vllm_version", "resolved", "vllm_error", "findings", "depends_on", "events",
                "axes"} <= set(r) for r in rows)
    status = {outcome.target_label(r): outcome.of(r).status for r in rows}
    # 0.11.0 has no --all2all-backend flag (VLLM_ALL2ALL_BACKEND only): vLLM refuses the command
    assert status["0.11.0"] == "refused"
    assert {status[v] for v in status if v not in ("0.11.0", "pr29558")} == {"off"}
    assert status["pr29558"] == "hazard"
    pr = next(r for r in rows if r["target"] == "pr29558")
    assert "VP301" in outcome.hazard_ids(pr) and outcome.of(pr).moe_split == "split"


def test_text_table_folds_the_releases_into_a_range(in_root):
    code, out = run(HT)
    assert code == 0
    assert "0.11.1–0.33.0" in out and "graphs off" in out and "deepep_ht.disable_cudagraphs" in out
    assert "3 lines after folding" in out


def test_vs_names_what_the_pr_design_changes(in_root):
    code, out = run(HT, "--vs", "0.12.0", "pr29558")
    assert code == 0
    assert "0.12.0 → pr29558: 1 of 1 cell change" in out
    assert "pr29558 keeps graphs in 1 cell where 0.12.0 turns them off, and puts a FULL graph around the HT " \
           "dispatch in 1 of them (VP301)" in out
    assert "  cudagraph_mode          changed: NONE → FULL_AND_PIECEWISE" in out
    assert "deepep_ht.disable_cudagraphs" in out and "pr29558.split_moe_ops" in out


def test_vs_over_combinations_lists_only_changed_cells():
    code, out = run("--axes", "all2all,dp,ep", "--where", "all2all=deepep_high_throughput,deepep_low_latency",
                    "--vs", "0.12.0", "pr29558", "--format", "json")
    assert code == 0
    vs = json.loads(out)["vs"][0]
    assert vs["cells"] == 2 * 3 * 2
    changed = [c["axes"] for c in vs["cells_changed"]]
    # the design changes DeepEP-HT with DP>1 only; low latency and DP=1 read the same
    assert changed and all(c["all2all"] == "deepep_high_throughput" and c["dp"] != "1" for c in changed)


def test_advise_gives_resolved_fixes_that_keep_graphs_on_without_a_hazard(in_root):
    code, out = run(HT, "--advise", "--vllm-version", "0.33.0,pr29558", "--format", "json")
    assert code == 0
    advice = json.loads(out)["advice"][0]["advice"]
    by_target = {a["target"]: a for a in advice}
    assert set(by_target) == {"0.33.0", "pr29558"}
    for a in advice:
        assert a["fixes"]
        for fix in a["fixes"]:
            assert outcome.of(fix["result"]).status == "on"  # graphs on, no VP3xx error: checked by resolving
    changes = [f["change"] for f in by_target["0.33.0"]["fixes"]]
    assert changes[0].startswith("all2all → deepep_low_latency")
    assert any("PR #29558 design + cudagraph_mode → PIECEWISE" in c for c in changes)
    # the design alone puts a FULL graph around the HT dispatch: not advised
    assert not any(c.startswith("the PR #29558 design (") for c in changes)
    pr_fixes = {f["change"]: f for f in by_target["pr29558"]["fixes"]}
    piecewise = pr_fixes["cudagraph_mode → PIECEWISE"]["result"]["resolved"]["compilation_config"]
    assert piecewise["cudagraph_mode"] == "PIECEWISE"


def test_advise_text(in_root):
    code, out = run(HT, "--advise", "--vllm-version", "0.13.0")
    assert code == 0
    assert "0.13.0: graphs off; changes that keep graphs on without a hazard:" in out
    assert "--all2all-backend deepep_low_latency" in out


def test_combination_defaults():
    code, out = run("--vllm-version", "0.13.0", "--format", "json")
    assert code == 0
    rows = json.loads(out)["rows"]
    assert {tuple(r["axes"]) for r in rows} == {("all2all", "dp", "ep", "cudagraph_mode")}
    assert len(rows) == 6 * 3 * 2 * 6  # 0.13.0's six backends


def test_combination_slice():
    code, out = run("--vllm-version", "0.13.0", "--axes", "all2all,dp,ep,cudagraph_mode,model",
                    "--where", "model=dense,mla-moe", "--where", "dp=8", "--format", "json")
    assert code == 0
    rows = json.loads(out)["rows"]
    assert {r["axes"]["model"] for r in rows} == {"dense", "mla-moe"} and {r["axes"]["dp"] for r in rows} == {"8"}
    assert len(rows) == 6 * 1 * 2 * 6 * 2
    ht = [r for r in rows if r["axes"]["all2all"] == "deepep_high_throughput" and r["axes"]["ep"] == "on"
          and r["axes"]["model"] == "mla-moe" and r["axes"]["cudagraph_mode"] == "unset"]
    assert [r["resolved"]["compilation_config"]["cudagraph_mode"] for r in ht] == ["NONE"]


def test_csv_is_one_line_per_cell():
    code, out = run("--vllm-version", "0.20.0,pr29558", "--axes", "all2all,ep", "--where", "all2all=deepep_low_latency",
                    "--format", "csv")
    assert code == 0
    table = list(csv.DictReader(io.StringIO(out)))
    assert len(table) == 2 * 2
    assert {r["target"] for r in table} == {"release", "pr29558"}
    assert set(table[0]) >= {"all2all", "ep", "graphs", "cudagraph_mode", "hazards"}


def test_markdown_table():
    code, out = run("--vllm-version", "0.12.0..0.13.0", "--axes", "all2all,dp", "--where",
                    "all2all=deepep_high_throughput", "--format", "markdown")
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("|")]
    assert lines[0].startswith("| release | all2all | dp | graphs |")
    assert any("0.12.0–0.13.0" in line for line in lines)


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.rows, self.external = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "tr" and "class" in a:
            self.rows.append(a)
        for k in ("src", "href"):
            if a.get(k):
                self.external.append(a[k])


def test_html_is_one_self_contained_page(in_root):
    code, out = run(HT, LL, "--format", "html")
    assert code == 0
    page = _Page()
    page.feed(out)
    assert page.tags.count("table") == 2
    assert "script" not in page.tags and "link" not in page.tags and "img" not in page.tags
    assert page.external == []  # nothing fetched
    assert "@import" not in out and "url(" not in out
    assert {r["class"] for r in page.rows} == {"refused", "off", "hazard", "on"}
    hazard = next(r for r in page.rows if r["class"] == "hazard")
    assert "VP301" in hazard["title"]  # the reasons on hover


def test_fail_on_exits_1_only_when_asked(in_root):
    assert run(HT, "--vllm-version", "0.13.0")[0] == 0
    assert run(HT, "--vllm-version", "0.13.0", "--fail-on", "off")[0] == 1
    assert run(LL, "--vllm-version", "0.13.0", "--fail-on", "off", "--fail-on", "hazard")[0] == 0


def test_records_mark_the_rows_they_cover(in_root, tmp_path):
    from vllm_preflight.verify.record import digest

    code, out = run(HT, "--vllm-version", "0.13.0,pr29558", "--format", "json")
    pr = next(r for r in json.loads(out)["rows"] if r["target"] == "pr29558")
    record = {"schema": "vllm-preflight/verify-record/1", "tool": {"name": "vllm-preflight", "version": "x"},
              "input": {"source": HT, "target": "pr29558", "vllm_version": pr["vllm_version"],
                        "resolved_digest": digest(pr["resolved"])},
              "environment": {"python": "3.11", "torch": "2.13.0", "device": "NVIDIA H200", "date": "2026-11-30",
                              "deep_ep": {"installed": True, "version": "1.2.1", "apis": [], "detail": ""}},
              "tier": "gpu", "plan": None, "checks": [], "timings": [], "ranks": [],
              "outcome": {"status": "fail", "exit_code": 1, "reason": "FULL graph around the HT dispatch"}}
    (tmp_path / "r1.json").write_text(json.dumps(record))
    code, out = run(HT, "--vllm-version", "0.13.0,pr29558", "--records", str(tmp_path))
    assert code == 0
    line = next(line for line in out.splitlines() if line.strip().startswith("pr29558"))
    assert "fail · gpu · NVIDIA H200 · torch 2.13.0 · deep_ep 1.2.1 · 2026-11-30" in line
    other = next(line for line in out.splitlines() if line.strip().startswith("0.13.0"))
    assert "NVIDIA H200" not in other


@pytest.mark.parametrize("args, needle", [
    (("--axes", "all2all,bogus"), "unknown axis 'bogus'"),
    (("--where", "dp=3"), "3 is not a value of dp"),
    (("--where", "nope=1"), "unknown axis 'nope'"),
    (("--axes", "dp", "--where", "ep=on"), "ep is not one of the matrix's axes"),
    (("--vllm-version", "0.9.0..0.10.2"), "no supported release in 0.9.0..0.10.2"),
    (("--vllm-version", "0.10.0"), "unknown release '0.10.0'"),
    (("--vs", "0.12.0", "0.99.0"), "unknown release '0.99.0'"),
    (("--vs", "0.12.0", "0.12.0"), "two different targets"),
    (("--axes", "partition", "--where", "partition=on", "--vllm-version", "0.12.0"), None),
])
def test_bad_input_is_one_line_and_exit_2(args, needle):
    code, out = run(*args)
    if needle is None:
        assert code == 0
        return
    assert code == 2, out
    assert needle in out and "Traceback" not in out


def test_empty_slice_and_bad_records_are_usage_errors(in_root, tmp_path):
    # 0.11.0 offers no `passthrough` backend: a slice of it alone is empty
    code, out = run("--vllm-version", "0.11.0", "--axes", "all2all", "--where", "all2all=passthrough")
    assert code == 2 and ("the slice is empty" in out or "not a value of all2all" in out)
    (tmp_path / "bad.json").write_text('{"schema": "something else"}')
    code, out = run(HT, "--records", str(tmp_path))
    assert code == 2 and "bad.json: not a verify record" in out
    code, out = run("missing-file.sh")
    assert code == 2


def test_refusal_on_some_releases_is_a_row_not_an_error(in_root):
    code, out = run(HT, "--vllm-version", "0.11.0..0.11.1", "--format", "json")
    assert code == 0
    assert [r["vllm_error"] is None for r in json.loads(out)["rows"]] == [False, True]


def test_a_column_per_variable_the_outcome_depends_on(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve deepseek-ai/DeepSeek-V3 --all2all-backend deepep_high_throughput "
                      "-dp $DP --enable-expert-parallel\n")
    code, out = run(str(script), "--vllm-version", "0.13.0..0.14.0", "--format", "markdown")
    assert code == 0
    header = next(line for line in out.splitlines() if line.startswith("| release"))
    assert "depends on DP" in header
    row = next(line for line in out.splitlines() if line.startswith("| 0.13.0–0.14.0"))
    assert row.split("|")[header.split("|").index(" depends on DP ")].strip() == "yes"


def test_a_record_written_by_verify_covers_its_row(in_root, tmp_path):
    # written by `vllm-preflight verify examples/deepep-ht-dp8-piecewise.sh --target pr29558 --tier cpu
    # --record DIR` (torch 2.13.0+cpu). Its digest is of the resolved JSON of that day; the resolver's
    # JSON may gain keys since, so the digest is renewed here and the rest of the record read as written.
    from vllm_preflight.verify.record import digest

    code, out = run("examples/deepep-ht-dp8-piecewise.sh", "--vllm-version", "pr29558", "--format", "json")
    (row,) = json.loads(out)["rows"]
    for src in (in_root / "tests" / "matrix" / "fixtures" / "records").glob("*.json"):
        record = json.loads(src.read_text())
        record["input"]["resolved_digest"] = digest(row["resolved"])
        (tmp_path / src.name).write_text(json.dumps(record))
    code, out = run("examples/deepep-ht-dp8-piecewise.sh", "--vllm-version", "0.12.0,pr29558",
                    "--records", str(tmp_path))
    assert code == 0, out
    pr = next(line for line in out.splitlines() if line.strip().startswith("pr29558"))
    assert "pass · cpu · torch 2.13.0+cpu · deep_ep - · 2026-12-01" in pr
    rel = next(line for line in out.splitlines() if line.strip().startswith("0.12.0"))
    assert "pass ·" not in rel
