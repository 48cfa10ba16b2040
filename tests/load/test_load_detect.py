"""Formats come from the content (the name only hints); --input-format overrides; folders are walked."""
from __future__ import annotations

import pytest

from vllm_preflight.errors import InputFailure
from vllm_preflight.load import load_file, load_paths

K8S_POD = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: vllm\n      image: vllm/vllm-openai:v0.13.0\n      args: [m, -dp, '2']\n"


@pytest.mark.parametrize("name,text,fmt", [
    ("entrypoint", "#!/bin/bash\nexec vllm serve m -tp 2\n", "shell"),
    ("start.txt", "vllm serve m -tp 2\n", "shell"),
    ("pod.yml", K8S_POD, "kubernetes"),
    ("manifest", K8S_POD, "kubernetes"),  # no extension: apiVersion/kind say it
    ("pod.json", '{"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "v", '
                 '"image": "vllm/vllm-openai:v0.13.0", "args": ["m"]}]}}', "kubernetes"),
    ("serve.yaml", "model: m\ntensor-parallel-size: 2\n", "vllm-config"),
    ("deploy.yaml", "vllm_version: 0.13.0\ncommand: vllm serve m\n", "preflight"),
    ("x.preflight.yml", "command: vllm serve m\n", "preflight"),
    ("GUIDE.md", "Run:\n\n```sh\nvllm serve m\n```\n", "markdown"),
])
def test_format_is_detected_from_content(tmp_path, name, text, fmt):
    p = tmp_path / name
    p.write_text(text)
    [d] = load_file(str(p))
    assert d.format == fmt
    assert d.argv[:3] in (("vllm", "serve", "m"),)


def test_input_format_overrides_detection(tmp_path):
    p = tmp_path / "cmd.yaml"
    p.write_text("vllm serve m -tp 2\n")  # YAML-ish name, shell content (a plain YAML string)
    with pytest.raises(InputFailure):
        load_file(str(p))
    [d] = load_file(str(p), input_format="shell")
    assert d.argv == ("vllm", "serve", "m", "-tp", "2")


def test_folder_walk_skips_what_holds_no_server_and_hidden_folders(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "hook.sh").write_text("vllm serve hidden\n")
    (tmp_path / "a.sh").write_text("vllm serve m\n")
    (tmp_path / "b.sh").write_text("echo unrelated 'unterminated\n")  # never parsed: no vLLM in it
    (tmp_path / "kustomization.yaml").write_text("resources: [pod.yaml]\n")
    (tmp_path / "pod.yaml").write_text(K8S_POD)
    (tmp_path / "config.json").write_text('{"architectures": ["X"]}')
    found, errors = load_paths([str(tmp_path)])
    assert errors == []
    assert sorted(d.source for d in found) == [str(tmp_path / "a.sh"), f"{tmp_path / 'pod.yaml'}:0:spec.vllm"]


def test_the_same_file_twice_is_read_once(tmp_path):
    (tmp_path / "a.sh").write_text("vllm serve m\n")
    found, errors = load_paths([str(tmp_path / "a.sh"), str(tmp_path)])
    assert len(found) == 1 and not errors
