"""Bad input: one error each (file, place, problem), one stderr line, the rest still checked, exit 2."""
from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from vllm_preflight.cli import cli

BOMB = "\n".join(["a: &a [" + ",".join(['"lol"'] * 9) + "]"] +
                 [f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]" for i in range(8)])

BAD = {
    "broken.yaml": ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: vllm\n      args: [a, b\n"
                    "      image: x\n", "invalid YAML", (7, 12)),
    "conflict.yaml": ("apiVersion: v1\nkind: Pod\n<<<<<<< HEAD\nspec: {}\n=======\nspec: {a: 1}\n>>>>>>> b\n",
                      "merge-conflict marker", (3, 1)),
    "conflict.sh": ("vllm serve m \\\n<<<<<<< ours\n  -dp 8\n=======\n  -dp 4\n>>>>>>> theirs\n",
                    "merge-conflict marker", (2, 1)),
    "bomb.yaml": (BOMB, "alias bomb", None),
    "unsafe.yaml": ("apiVersion: v1\nkind: Pod\nmetadata: !!python/object/apply:os.system [\"echo pwned\"]\n",
                    "unsafe or unknown YAML tag !!python/object/apply:os.system", (3, 11)),
    "binary.yaml": (b"\x89PNG\r\n\x1a\n\x00\x00binary", "binary file", None),
    "latin1.sh": (b"vllm serve caf\xe9\n", "not UTF-8", (1, None)),
    "empty.sh": ("", "empty file", None),
    "blank.yaml": ("\n   \n", "empty file", None),
    "quote.sh": ("vllm serve 'model -tp 8\n", "shell syntax error: unterminated single quote", (1, 12)),
    # a template is read with its placeholders (issue 19): this one holds no server
    "helm-template.yaml": ("apiVersion: v1\nkind: Pod\nspec:\n  {{- if .Values.x }}\n  containers: []\n",
                           "no container running a vLLM server", None),
    "helm-broken.yaml": ("apiVersion: v1\nkind: Pod\nspec:\n  containers: {{ .Values.c }\n",
                         "unrendered Helm template", None),
    "deep.yaml": ("[" * 5000 + "]" * 5000, "", None),
}


def write(tmp_path, name, content):
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    return p


def run(args):
    result = CliRunner().invoke(cli, ["check", "--format", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_bad_file_is_one_error_and_the_good_file_is_still_checked(tmp_path, name):
    content, what, place = BAD[name]
    bad = write(tmp_path, name, content)
    good = write(tmp_path, "good.sh", "vllm serve deepseek-ai/DeepSeek-V3 -dp 8 --enable-expert-parallel\n")
    result = run([str(bad), str(good)])
    assert result.exit_code == 2
    out = json.loads(result.stdout)
    assert [r["source"] for r in out["results"]] == [str(good)]
    [err] = out["errors"]
    assert err["source"] == str(bad) and what in err["message"]
    if place:
        assert (err["location"]["line"], err["location"]["column"]) == place
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"vllm-preflight: {bad}") and "Traceback" not in result.stderr


def test_a_50_mb_file(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "w") as f:
        f.write("# " + "x" * (50 << 20))
    result = run([str(big)])
    assert result.exit_code == 2
    [err] = json.loads(result.stdout)["errors"]
    assert "larger than" in err["message"]


def test_a_directory_loop_and_a_folder_of_mixed_files(tmp_path):
    (tmp_path / "sub").mkdir()
    os.symlink("..", tmp_path / "sub" / "up")
    write(tmp_path, "sub/serve.sh", "vllm serve deepseek-ai/DeepSeek-V3 -dp 8\n")
    write(tmp_path, "notes.md", "# nothing to see\n")
    write(tmp_path, "values.yaml", "replicaCount: 1\n")
    write(tmp_path, "photo.png", b"\x89PNG\x00")
    write(tmp_path, "broken.yaml", "a: [\n")
    result = run([str(tmp_path)])
    assert result.exit_code == 2
    out = json.loads(result.stdout)
    assert [r["source"] for r in out["results"]] == [str(tmp_path / "sub" / "serve.sh")]
    errs = {os.path.basename(e["source"]): e["message"] for e in out["errors"]}
    assert set(errs) == {"up", "broken.yaml"}
    assert "directory loop" in errs["up"]


def test_a_named_file_without_a_server_is_an_error(tmp_path):
    f = write(tmp_path, "svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\n")
    result = run([str(f)])
    assert result.exit_code == 2
    assert "no container running a vLLM server" in json.loads(result.stdout)["errors"][0]["message"]


def test_missing_file(tmp_path):
    result = run([str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2
    assert "cannot read" in json.loads(result.stdout)["errors"][0]["message"]
