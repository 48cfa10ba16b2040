"""Release schemas come from the release data and are valid JSON Schema."""
from __future__ import annotations

import json

import jsonschema
import pytest
from click.testing import CliRunner

from vllm_preflight.cli import cli
from vllm_preflight.releases import PR29558, SUPPORTED, get_release, recorded_facts
from vllm_preflight.schema.deployment import deployment_schema
from vllm_preflight.schema.generate import release_schema


@pytest.mark.parametrize("name", SUPPORTED + (PR29558,))
def test_every_release_schema_is_valid_and_built_from_its_data(name):
    schema = release_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    release = get_release(name)
    table = release.options
    longs = {s[2:] for s in table.options if s.startswith("--") and not s.startswith("--no-") and s != "--help"}
    assert longs <= set(schema["properties"])
    facts = recorded_facts(release.version)
    cc = schema["$defs"]["CompilationConfig"]
    assert set(cc["properties"]) == set(facts["compilation_fields"])
    assert set(schema["$defs"]["PassConfig"]["properties"]) == set(facts["pass_config_fields"])
    if "cudagraph_mode" in cc["properties"]:
        names = cc["properties"]["cudagraph_mode"]["anyOf"][0]["enum"]
        assert names == facts["cudagraph_modes"]
    if "--all2all-backend" in table.options:
        node = schema["properties"]["all2all-backend"]
        while "enum" not in node:
            node = node["anyOf"][0]
        a2a = node["enum"]
        assert set(a2a) == {c for c in table.options["--all2all-backend"].choices if c != "None"}


def test_a_config_file_validates_against_its_schema():
    schema = release_schema("0.33.0")
    v = jsonschema.Draft202012Validator(schema)
    ok = {"model": "m", "tensor_parallel_size": 8, "enable-expert-parallel": True,
          "all2all-backend": "deepep_low_latency", "max-num-batched-tokens": "16k",
          "cudagraph-capture-sizes": [1, 2, 4],
          "compilation-config": {"cudagraph_mode": "full_and_piecewise", "pass_config": {"fuse_attn_quant": True}}}
    assert list(v.iter_errors(ok)) == []
    bad = dict(ok, **{"compilation-config": {"cudagraph_mode": "FULL_PIECEWISE"}, "tensor-paralel-size": 2})
    assert len(list(v.iter_errors(bad))) == 2


def test_deployment_schema_is_valid_and_knows_gpus_and_facts():
    from vllm_preflight.gpus import GPUS

    schema = deployment_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["gpu"]["enum"] == sorted(GPUS)
    assert "is_moe" in schema["properties"]["model"]["properties"]


def test_schema_command_prints_json():
    r = CliRunner().invoke(cli, ["schema", "--vllm-version", "0.13.0"])
    assert r.exit_code == 0 and json.loads(r.stdout)["title"] == "vllm serve options, vLLM 0.13.0"
    r = CliRunner().invoke(cli, ["schema", "--target", "pr29558"])
    assert r.exit_code == 0 and "pr29558" in json.loads(r.stdout)["title"]
    r = CliRunner().invoke(cli, ["schema", "--deployment-file"])
    assert r.exit_code == 0 and json.loads(r.stdout)["title"] == "vllm-preflight deployment file"
    r = CliRunner().invoke(cli, ["schema", "--vllm-version", "0.9.0"])
    assert r.exit_code == 2 and "supported releases are 0.11.0 to 0.33.0" in r.output
