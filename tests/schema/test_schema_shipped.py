"""The schemas users get: shipped files, resolvable `$id`s, enums editors can complete, honest messages."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from support import EXAMPLES, ROOT
from vllm_preflight.cli import cli
from vllm_preflight.releases import PR29558, SUPPORTED
from vllm_preflight.schema import shipped
from vllm_preflight.schema.generate import SCHEMA_BASE


def test_shipped_files_are_the_generated_ones():
    expected = shipped.expected_files()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in shipped.JSON_DIR.glob("*.json")}
    stale = sorted(set(on_disk) ^ set(expected))
    drifted = sorted(n for n in expected if on_disk.get(n) != expected[n])
    assert not stale and not drifted, f"run `python tools/write_schemas.py` ({stale or drifted})"
    assert len(expected) == len(SUPPORTED) + 2


def test_package_data_ships_them():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"schema/json/*.json"' in text


@pytest.mark.parametrize("label", [SUPPORTED[0], "0.13.0", SUPPORTED[-1], PR29558])
def test_ids_name_the_shipped_file_and_schemas_are_valid(label):
    path = shipped.shipped_path(label)
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == f"{SCHEMA_BASE}/{path.name}"
    assert schema["$id"].endswith(str(path.relative_to(ROOT / "src")).replace("\\", "/").split("vllm_preflight/", 1)[1])


def test_no_private_keywords_and_enums_editors_can_complete():
    text = shipped.shipped_path("0.33.0").read_text()
    assert "x-choices" not in text
    schema = json.loads(text)
    cc = schema["$defs"]["CompilationConfig"]["properties"]
    assert cc["cudagraph_mode"]["anyOf"][0]["enum"][:2] == ["NONE", "PIECEWISE"]
    assert "deepep_high_throughput" in schema["properties"]["all2all-backend"]["anyOf"][0]["enum"] \
        if "anyOf" in schema["properties"]["all2all-backend"] else schema["properties"]["all2all-backend"]["enum"]


def test_the_bundled_config_yaml_validates_against_the_shipped_schema():
    schema = json.loads(shipped.shipped_path("0.33.0").read_text())
    data = yaml.safe_load((EXAMPLES / "deepseek-v3.config.yaml").read_text())
    v = jsonschema.Draft202012Validator(schema)
    assert list(v.iter_errors(data)) == []
    bad = dict(data, **{"compilation-config": {"cudagraph_mode": "FULL_PIECEWISE"}})
    assert len(list(v.iter_errors(bad))) == 1


def test_schema_path_option():
    r = CliRunner().invoke(cli, ["schema", "--vllm-version", "v0.13.0", "--path"])
    assert r.exit_code == 0 and Path(r.stdout.strip()) == shipped.shipped_path("0.13.0")
    r = CliRunner().invoke(cli, ["schema", "--deployment-file", "--path"])
    assert Path(r.stdout.strip()).name == "deployment.json"


def _check(tmp_path, script: str, version: str = "0.33.0"):
    (tmp_path / "run.sh").write_text(textwrap.dedent(script))
    r = CliRunner().invoke(cli, ["check", "--vllm-version", version, "--format", "json", str(tmp_path / "run.sh")])
    return json.loads(r.stdout)["results"][0]


@pytest.mark.parametrize("version", ["0.13.0", "0.33.0"])
def test_negative_capture_sizes_are_what_vllm_accepts(tmp_path, version):
    # real vLLM 0.13.0, 0.20.2 and 0.33.0 (vllm-oracle, -cc '{"cudagraph_capture_sizes": [1, -2]}')
    # start and resolve the sizes to [-2, 1]; the schema used to say "-2 is not of type integer"
    res = _check(tmp_path, """vllm serve m -cc '{"cudagraph_capture_sizes": [1, -2]}'\n""", version)
    assert res["vllm_error"] is None
    assert res["resolved"]["compilation_config"]["cudagraph_capture_sizes"] == [-2, 1]
    assert not [f for f in res["findings"] if f["rule"] == "VP204"]


def test_an_anyof_failure_names_the_branch_that_fits_the_type(tmp_path):
    (tmp_path / "cfg.yaml").write_text("max-model-len: abc\n")
    res = _check(tmp_path, """vllm serve m --config cfg.yaml -cc '{"mode": "x", "cudagraph_num_of_warmups": "1.0"}'\n""")
    msgs = {f["message"] for f in res["findings"] if f["rule"] in ("VP202", "VP204")}
    assert any("'x' is not one of NONE, STOCK_TORCH_COMPILE" in m and "(any case)" in m for m in msgs), msgs
    assert not any("integer or string" in m or "string or integer" in m for m in msgs), msgs
    assert any("'1.0' is not of type integer" in m for m in msgs), msgs


def test_a_value_below_a_real_minimum_says_so():
    from vllm_preflight.schema import validate as v
    from vllm_preflight.schema.engine import validator
    from vllm_preflight.schema.generate import release_schema

    [err] = list(validator(release_schema("0.33.0")).iter_errors(
        {"compilation-config": {"max_cudagraph_capture_size": -1}}))
    assert v._explain(err) == "-1 is less than the minimum of 0"
