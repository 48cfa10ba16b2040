"""The hostile reproductions of issue 25 on the input side: each ends within 30 s under 1 GB
(`check_bounded`: a child process under both limits) with its documented exit code, and
the other inputs are still checked. The output side (neutralising, matrix records, signals)
has its own tests."""
from __future__ import annotations

import fnmatch
import json
import os
import random

import pytest
from hsupport import GOOD, check, check_bounded, deep_folder, remove_deep, sources

from vllm_preflight.ignores import glob_match
from vllm_preflight.load import MAX_DEPTH
from vllm_preflight.load.limits import MAX_SERVERS_PER_FILE

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links (POSIX)")


def _doc(r):
    return json.loads(r.stdout) if r.stdout.strip() else None


def _folder_with_link(tmp_path, target: str):
    top = tmp_path / "top"
    top.mkdir()
    (top / "a.sh").write_text(GOOD)
    os.symlink(target, top / "link")
    return top


# ------------------------------------------------------------------- walks
def test_a_link_to_root_does_not_walk_the_machine(tmp_path):
    top = _folder_with_link(tmp_path, "/")
    r = check_bounded(str(top))
    assert r.returncode == 0, r.stderr
    assert sources(_doc(r)) == [str(top / "a.sh")]
    assert f"skipped {top / 'link'}: a link to /, outside {top}; not followed" in r.stderr
    [entry] = [s for s in _doc(r)["skipped"] if s["path"] == str(top / "link")]
    assert "not followed" in entry["reason"]


def test_a_link_to_the_parent_does_not_check_files_outside(tmp_path):
    (tmp_path / "outside.sh").write_text("vllm serve outside-model\n")
    top = _folder_with_link(tmp_path, "..")
    r = check_bounded(str(top))
    assert r.returncode == 0, r.stderr
    assert sources(_doc(r)) == [str(top / "a.sh")] and "outside.sh" not in r.stdout


def test_a_link_to_etc_reads_nothing_there(tmp_path):
    top = _folder_with_link(tmp_path, "/etc")
    r = check_bounded(str(top))
    assert r.returncode == 0 and sources(_doc(r)) == [str(top / "a.sh")]
    assert "/etc/" not in json.dumps(_doc(r)["results"])


def test_links_inside_the_folder_are_followed_once(tmp_path):
    top = tmp_path / "top"
    (top / "real").mkdir(parents=True)
    (top / "real" / "a.sh").write_text(GOOD)
    os.symlink("real", top / "alias")  # a second way to the same folder
    os.symlink("real/a.sh", top / "b.sh")  # a link to a file inside
    _code, doc, err = check(str(top))
    assert len(sources(doc)) == 1, err  # one file, checked once (by the first name the walk meets)


def test_links_not_followed_and_parts_left_out_are_both_listed(tmp_path):
    """skipped[] holds the walk's links (said on stderr always) and the loaders' parts of files
    (a Markdown block the shell cannot read: said with -v); a Markdown block's `source` of a
    file outside the folder is not read (issue 25) while the guide's server is checked."""
    top = _folder_with_link(tmp_path, "/")
    (tmp_path / "env.sh").write_text("export TP=4\n")
    (top / "guide.md").write_text("```bash\nsource ../env.sh\nvllm serve Qwen/Qwen3-0.6B -tp $TP\n```\n\n"
                                  "```\nit's a log\n```\n")
    code, doc, err = check(str(top))
    assert code == 0, err
    reasons = {s["path"]: s["reason"] for s in doc["skipped"]}
    assert "not followed" in reasons[str(top / "link")]
    assert "block the shell cannot read" in reasons[f"{top / 'guide.md'}:7"]
    assert f"skipped {top / 'link'}" in err and "guide.md:7" not in err
    _code, _doc, loud = check("-v", str(top))
    assert f"skipped {top / 'guide.md'}:7: an unlabelled block the shell cannot read" in loud
    [guide] = [r for r in doc["results"] if r["source"].endswith("guide.md")]
    assert any(f["rule"] == "VP121" and "outside the folder tree" in f["message"] for f in guide["findings"])


def test_a_link_loop_is_the_folders_error_and_other_inputs_are_checked(tmp_path, good):
    top = tmp_path / "top"
    (top / "sub").mkdir(parents=True)
    (top / "sub" / "a.sh").write_text(GOOD)
    os.symlink("..", top / "sub" / "up")
    r = check_bounded(str(top), str(good))
    assert r.returncode == 2
    assert "directory loop" in r.stderr
    assert sources(_doc(r)) == [str(top / "sub" / "a.sh"), str(good)]


@pytest.fixture
def deep(tmp_path):
    deep_folder(tmp_path / "deep", 1500)
    yield tmp_path / "deep"
    remove_deep(tmp_path / "deep")


def test_a_folder_nested_1500_deep_is_an_input_error_in_linear_time(deep, good):
    r = check_bounded(str(deep), str(good))
    assert r.returncode == 2, r.stderr
    assert f"input too complex: folders nest more than {MAX_DEPTH} levels below" in r.stderr
    assert sources(_doc(r)) == [str(good)]


def test_a_folder_at_the_depth_limit_is_walked(tmp_path):
    deep_folder(tmp_path / "deep", MAX_DEPTH)
    _code, doc, err = check(str(tmp_path / "deep"))
    assert len(sources(doc)) == 1 and "nest" not in err


def test_a_fifo_named_like_a_script_is_the_folders_error(tmp_path, good):
    top = tmp_path / "top"
    top.mkdir()
    (top / "a.sh").write_text(GOOD)
    os.mkfifo(top / "b.sh")
    r = check_bounded(str(top), str(good))
    assert r.returncode == 2 and "b.sh: not a regular file" in r.stderr
    assert sources(_doc(r)) == [str(top / "a.sh"), str(good)]


def test_a_file_named_with_a_slash_is_not_the_file(tmp_path):
    (tmp_path / "a.sh").write_text(GOOD)
    code, doc, err = check(str(tmp_path / "a.sh") + "/", str(tmp_path / "a.sh"))
    assert code == 2 and "a.sh/: cannot read: Not a directory" in err
    assert sources(doc) == [str(tmp_path / "a.sh")]


# ------------------------------------------------------------------- servers per file
def _pod(containers: int) -> str:
    return ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n" + "".join(
        f"  - name: c{i}\n    image: vllm/vllm-openai:v0.13.0\n    command: [vllm, serve, m]\n"
        for i in range(containers)))


def _pod_list(pods: int) -> str:
    return "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        f"- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p{i}}}\n  spec:\n    containers:\n    - name: vllm\n"
        f"      image: vllm/vllm-openai:v0.13.0\n      command: [vllm, serve, m]\n" for i in range(pods))


def _compose(services: int) -> str:
    return "services:\n" + "".join(f"  s{i}:\n    image: vllm/vllm-openai:v0.13.0\n    command: [m]\n"
                                   for i in range(services))


def _guide(shell_blocks: int, containers: int) -> str:
    """A Markdown guide: `vllm serve` blocks, then a ```yaml Pod (its servers count with theirs)."""
    return "```bash\nvllm serve m\n```\n" * shell_blocks + "```yaml\n" + _pod(containers) + "```\n"


@pytest.mark.parametrize("name, text, line", [
    ("pod.yaml", _pod(10_000), 6 + 3 * MAX_SERVERS_PER_FILE),  # the first container past the limit
    ("list.yaml", _pod_list(10_000), 4 + 8 * MAX_SERVERS_PER_FILE + 5),  # the container of the first item past it
    ("many.sh", "vllm serve m\n" * 10_000, MAX_SERVERS_PER_FILE + 1),
    ("compose.yaml", _compose(10_000), 3 + 3 * MAX_SERVERS_PER_FILE),  # the first service past the limit
    # 200 shell blocks and 100 containers: the limit holds for the file, not per shape
    ("guide.md", _guide(200, 100), 609 + 3 * (MAX_SERVERS_PER_FILE - 200)),
], ids=["pod-10000-containers", "list-10000-pods", "script-10000-servers", "compose-10000-services",
        "markdown-shell-and-yaml-300-servers"])
def test_more_servers_than_the_limit_is_an_input_error(tmp_path, good, name, text, line):
    p = tmp_path / name
    p.write_text(text)
    r = check_bounded(str(p), str(good))
    assert r.returncode == 2, r.stderr
    assert f"{p}:{line}:" in r.stderr
    assert f"more than {MAX_SERVERS_PER_FILE} vLLM servers in one file" in r.stderr
    assert "max-servers-per-file" in r.stderr
    assert sources(_doc(r)) == [str(good)]


def test_the_project_config_raises_or_lowers_the_server_limit(tmp_path):
    (tmp_path / "pod.yaml").write_text(_pod(3))
    (tmp_path / ".vllm-preflight.yaml").write_text("max-servers-per-file: 2\n")
    r = check_bounded("pod.yaml", cwd=tmp_path)
    assert r.returncode == 2 and "more than 2 vLLM servers" in r.stderr
    (tmp_path / ".vllm-preflight.yaml").write_text("max-servers-per-file: 3\n")
    r = check_bounded("pod.yaml", cwd=tmp_path)
    assert r.returncode == 0 and len(_doc(r)["results"]) == 3
    (tmp_path / ".vllm-preflight.yaml").write_text("max-servers-per-file: 0\n")
    r = check_bounded("pod.yaml", cwd=tmp_path)
    assert r.returncode == 2 and "max-servers-per-file takes a whole number" in r.stderr


# ------------------------------------------------------------------- ignores
def test_an_ignore_without_its_closing_bracket_silences_nothing(tmp_path):
    p = tmp_path / "a.sh"
    p.write_text("vllm serve m --foo  # vllm-preflight: ignore[VP201\n")
    code, doc, _err = check(str(p))
    assert code == 1  # the error is still an error
    rules = [f["rule"] for f in doc["results"][0]["findings"]]
    assert "VP201" in rules and "VP300" in rules
    [msg] = [f["message"] for f in doc["results"][0]["findings"] if f["rule"] == "VP391"]
    assert "malformed ignore, it silences nothing: `[` without its `]`" in msg
    assert doc["summary"]["ignored"] == 0


def test_codes_without_brackets_silence_nothing(tmp_path):
    p = tmp_path / "a.sh"
    p.write_text("vllm serve m --foo  # vllm-preflight: ignore VP201\n")
    code, doc, _err = check(str(p))
    assert code == 1 and "rule codes without brackets" in json.dumps(doc)


def test_200000_unknown_codes_are_one_finding_with_a_count(tmp_path):
    p = tmp_path / "a.sh"
    p.write_text("vllm serve m  # vllm-preflight: ignore[" + ", ".join(f"VX{i}" for i in range(200_000)) + "]\n")
    r = check_bounded(str(p))
    assert r.returncode == 0, r.stderr
    [f] = [f for f in _doc(r)["results"][0]["findings"] if f["rule"] == "VP391"]
    assert f["message"].startswith("200000 unknown rule codes in ignore ('VX0', 'VX1', 'VX2', …)")
    assert len(r.stdout) < 100_000  # not 61 MB of findings


def test_many_ignores_that_silence_nothing_fold_into_one_finding(tmp_path):
    p = tmp_path / "a.sh"
    p.write_text("# vllm-preflight: ignore[VP301]\n# x\n" * 500 + "vllm serve m\n")
    _code, doc, _err = check(str(p))
    found = [f for f in doc["results"][0]["findings"] if f["rule"] == "VP390"]
    assert len(found) == 1 and "(at 500 places; the first is shown)" in found[0]["message"]


def test_a_40kb_per_file_ignore_glob_is_matched_in_bounded_time(tmp_path):
    (tmp_path / "a.sh").write_text("vllm serve m --foo\n")
    (tmp_path / "pyproject.toml").write_text('[tool.vllm-preflight.per-file-ignores]\n"' + "*a" * 20_000
                                             + '" = ["VP201"]\n"*.sh" = ["VP108"]\n')
    r = check_bounded("a.sh", cwd=tmp_path)
    assert r.returncode == 1, r.stderr  # the 40 KB glob matches no `a.sh`: VP201 stays
    assert [f["rule"] for f in _doc(r)["results"][0]["findings"]] == ["VP201", "VP300"]


def test_glob_match_agrees_with_fnmatch():
    rng = random.Random(25)
    names = ["deploy/legacy/a.sh", "values.yaml", "a", "", "x/y/z.yml", "[a].sh", "a-b_c.sh"]
    alphabet = "a.sh/*?[]!-yxl"
    for _ in range(20_000):
        pattern = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        if "[" in pattern and "-" in pattern:
            continue  # reversed ranges (`[z-a]`) are undefined in fnmatch itself
        for name in names:
            assert glob_match(name, pattern) == fnmatch.fnmatchcase(name, pattern), (name, pattern)


# ------------------------------------------------------------------- YAML merge keys
MERGED = """apiVersion: v1
kind: Pod
metadata: {name: p}
x-base: &base
  image: vllm/vllm-openai:v0.13.0
  command: [vllm, serve, m, --bogus]
x-mid: &mid
  <<: *base
  name: mid
spec:
  containers:
  - <<: *mid
    name: vllm
  - <<: [*mid, {name: ignored}]
    name: vllm2
"""


def test_yaml_merge_keys_load_with_their_lines(tmp_path):
    p = tmp_path / "pod.yaml"
    p.write_text(MERGED)
    code, doc, err = check(str(p))
    assert code == 1, err  # loaded: vLLM refuses the unknown flag, at the line the anchor wrote it
    assert [r["name"] for r in doc["results"]] == [f"{p} › Pod/p › vllm", f"{p} › Pod/p › vllm2"]
    for r in doc["results"]:
        [f] = [f for f in r["findings"] if f["rule"] == "VP201"]
        assert (f["location"]["line"], f["location"]["column"]) == (6, 29)


def test_a_key_written_beside_a_merge_wins_and_merged_keys_are_kept(tmp_path):
    p = tmp_path / "pod.yaml"
    p.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nx-base: &base\n  image: vllm/vllm-openai:v0.13.0\n"
                 "  command: [vllm, serve, m, -tp, '2']\nspec:\n  containers:\n  - <<: *base\n    name: vllm\n"
                 "    command: [vllm, serve, m, -tp, '4']\n")
    code, doc, err = check(str(p))
    [r] = doc["results"]
    assert code == 0, err
    assert r["vllm_version"] == "0.13.0"  # the image, from the merged mapping
    assert r["resolved"]["parallel_config"]["tensor_parallel_size"] == 4  # the command written beside it


def test_a_self_merging_or_bad_merge_is_an_input_error(tmp_path, good):
    p = tmp_path / "bad.yaml"
    p.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {<<: [1]}\n")
    code, doc, err = check(str(p), str(good))
    assert code == 2 and f"{p}:4:13: invalid YAML: a merge key `<<` takes a mapping" in err
    assert sources(doc) == [str(good)]
