"""A `vllm-preflight.io/ignore` annotation that is no string (Kubernetes takes strings only) silences
nothing and says so (VP391 at its line); it was skipped without a word."""
from __future__ import annotations

import pytest
from hsupport import check

MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: m
  annotations:
    vllm-preflight.io/ignore: {value}
spec:
  template:
    spec:
      containers:
      - name: c
        image: vllm/vllm-openai:v0.33.0
        args: ["vllm", "serve", "Qwen/Qwen3-8B"]
"""


@pytest.mark.parametrize("value,shown", [("[VP301, VP302]", "['VP301', 'VP302']"), ("301", "301"), ("true", "True")])
def test_a_non_string_annotation_is_vp391(tmp_path, value, shown):
    (tmp_path / "m.yaml").write_text(MANIFEST.format(value=value))
    code, doc, err = check("--offline", str(tmp_path / "m.yaml"))
    assert code in (0, 1) and "Traceback" not in err, err
    found = [(f["rule"], f["message"], f["location"]["line"]) for r in doc["results"] for f in r["findings"]]
    message = (f"unknown rule {shown!r} in the vllm-preflight.io/ignore annotation "
               "(`vllm-preflight rules` lists them)")
    assert ("VP391", message, 6) in found, found
