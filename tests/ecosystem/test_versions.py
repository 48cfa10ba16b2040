"""Version strings read as PEP 440 (packaging.version) and mapped to the release they belong to."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from vllm_preflight.api import target_name
from vllm_preflight.cli import cli
from vllm_preflight.load.shell import image_version
from vllm_preflight.releases.versions import kind_of, release_of, version_key


@pytest.mark.parametrize("text,release", [
    ("0.13.0", "0.13.0"), ("v0.13.0", "0.13.0"), ("v0.11.0rc1", "0.11.0"), ("0.13.0.post1", "0.13.0"),
    ("0.13", "0.13.0"), ("0.11.1.dev12+g1234abc", "0.11.1"), ("0.22.1+cu126", "0.22.1"), ("pr29558", None),
    ("latest", None), ("", None),
])
def test_release_of(text, release):
    assert release_of(text) == release


def test_version_key_orders_like_pip():
    assert version_key("0.13") == (0, 13, 0) and version_key("0.9.2") < version_key("0.10.0")
    assert version_key("2.13.0+cpu") == (2, 13, 0)  # torch's local versions
    with pytest.raises(ValueError):
        version_key("pr29558")


def test_kind_names_what_is_not_a_release():
    assert kind_of("v0.11.0rc1") == "release candidate"
    assert kind_of("0.13.0.post1") == "post-release"
    assert kind_of("0.13.0") == ""


@pytest.mark.parametrize("tag,version", [
    ("vllm/vllm-openai:v0.11.0rc1", "0.11.0rc1"), ("vllm/vllm-openai:v0.13.0.post1", "0.13.0.post1"),
    ("vllm/vllm-openai:v0.22.1", "0.22.1"), ("vllm/vllm-openai:v0.13.0-cu126", "0.13.0"),
    ("vllm/vllm-openai:latest", None), ("vllm/vllm-openai:nightly-1a2b3c", None),
    # issue 19: a tag whose leading version is a vLLM version, whatever build suffix follows
    ("vllm/vllm-openai:v0.10.2-nixl-0.7.1-cu128", "0.10.2"), ("aibrix/vllm-openai:v0.7.3.self.post1", "0.7.3"),
    ("vllm/vllm-openai:v0.22.0-cu129", "0.22.0"), ("registry.example.com/mirror/vllm-openai:v0.20.1_arm64", "0.20.1"),
])
def test_image_tags(tag, version):
    assert image_version(tag) == version


def test_a_custom_build_suffix_is_stated_and_a_cuda_variant_is_not():
    from vllm_preflight.load.images import version_source

    assert "custom build `-nixl-0.7.1-cu128`" in version_source("vllm/vllm-openai:v0.10.2-nixl-0.7.1-cu128")
    assert version_source("vllm/vllm-openai:v0.22.0-cu129") == "image vllm/vllm-openai:v0.22.0-cu129"


def test_a_tag_older_than_every_supported_release_says_no_release_matches(tmp_path):
    # before: `v0.7.3.self.post1` was no version at all and 0.33.0 was checked without a word
    script = tmp_path / "run.sh"
    script.write_text("docker run --gpus all aibrix/vllm-openai:v0.7.3.self.post1 deepseek-ai/DeepSeek-V3 -tp 8\n")
    r, out = _check(str(script))
    [res] = out["results"]
    assert res["vllm_version"] == "0.11.0"
    [f] = [f for f in res["findings"] if f["rule"] == "VP105"]
    assert "no supported release matches" in f["message"] and "0.7.3" in f["message"]
    assert "custom build `.self.post1`" in f["message"]


def _check(*args):
    r = CliRunner().invoke(cli, ["check", "--format", "json", *args])
    return r, json.loads(r.stdout) if r.stdout.strip().startswith("{") else None


def test_an_rc_image_tag_checks_its_release_with_a_finding(tmp_path):
    # before: `v0.11.0rc1` was not read as a version at all and the newest release was checked
    script = tmp_path / "run.sh"
    script.write_text("docker run --gpus all vllm/vllm-openai:v0.11.0rc1 deepseek-ai/DeepSeek-V3 -dp 8\n")
    r, out = _check(str(script))
    assert out is not None, r.output
    [res] = out["results"]
    assert res["vllm_version"] == "0.11.0"
    [f] = [f for f in res["findings"] if f["rule"] == "VP160"]
    assert "0.11.0rc1" in f["message"] and "release candidate" in f["message"] and f["severity"] == "info"
    assert f["location"]["line"] == 1


@pytest.mark.parametrize("flag,release,kind", [
    ("v0.13.0.post1", "0.13.0", "post-release"), ("0.13", "0.13.0", "spelling of 0.13.0"),
    ("0.12.0rc2", "0.12.0", "release candidate"),
])
def test_vllm_version_flag_maps_with_a_finding(flag, release, kind):
    assert target_name(flag, "release") == release
    _, out = _check("--vllm-version", flag, "--", "vllm", "serve", "m")
    [res] = out["results"]
    assert res["vllm_version"] == release
    [f] = [f for f in res["findings"] if f["rule"] == "VP160"]
    assert kind in f["message"]


def test_a_plain_release_gets_no_mapping_finding():
    _, out = _check("--vllm-version", "v0.13.0", "--", "vllm", "serve", "m")
    assert not [f for f in out["results"][0]["findings"] if f["rule"] == "VP160"]


def test_an_unsupported_version_is_still_a_usage_error():
    r = CliRunner().invoke(cli, ["check", "--vllm-version", "0.34.0rc1", "--", "vllm", "serve", "m"])
    assert r.exit_code == 2 and "supported releases are 0.11.0 to 0.33.0" in r.output


def test_a_deployment_file_version_maps_with_a_finding_at_its_line(tmp_path):
    path = tmp_path / "x.preflight.yaml"
    path.write_text("vllm_version: v0.13.0.post1\ncommand: vllm serve Qwen/Qwen3-0.6B\n")
    _, out = _check(str(path))
    [res] = out["results"]
    assert res["vllm_version"] == "0.13.0"
    [f] = [f for f in res["findings"] if f["rule"] == "VP160"]
    assert "post-release" in f["message"] and f["location"]["line"] == 1
