"""`--output-file` never replaces what the check reads: a named input, a file a folder walk read
(or a link to one), and one PATH named twice are usage errors (exit 2) before anything is written."""
from __future__ import annotations

import os

import pytest
from hsupport import GOOD, check_process


@pytest.mark.parametrize("out", ["serve.sh", "./serve.sh", "sarif:serve.sh", "junit:./serve.sh", "link.sh"])
def test_a_named_input_is_never_overwritten(tmp_path, out):
    (tmp_path / "serve.sh").write_text(GOOD)
    (tmp_path / "link.sh").symlink_to("serve.sh")
    r = check_process("--offline", "serve.sh", "-o", out, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "is an input file; not overwritten" in r.stderr and "Traceback" not in r.stderr
    assert (tmp_path / "serve.sh").read_text() == GOOD


def test_a_file_a_folder_walk_read_is_never_overwritten(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "serve.sh").write_text(GOOD)
    r = check_process("--offline", "d", "-o", "sarif:d/serve.sh", "-o", "report.txt", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "d/serve.sh: is a file this check read as input" in r.stderr
    assert (tmp_path / "d" / "serve.sh").read_text() == GOOD
    assert not (tmp_path / "report.txt").exists()  # every PATH is checked before the first is written


def test_one_path_twice_is_refused(tmp_path):
    (tmp_path / "serve.sh").write_text(GOOD)
    r = check_process("--offline", "serve.sh", "-o", "sarif:a", "-o", "junit:./a", cwd=tmp_path)
    assert r.returncode == 2 and "named twice" in r.stderr, r.stderr
    assert not (tmp_path / "a").exists()


def test_a_full_device_is_a_usage_error(tmp_path):
    (tmp_path / "serve.sh").write_text(GOOD)
    r = check_process("--offline", "serve.sh", "-o", "/dev/full", cwd=tmp_path)
    assert r.returncode == 2 and "--output-file /dev/full: cannot write" in r.stderr, r.stderr


@pytest.mark.parametrize("name,text", [
    ("pyproject.toml", '[tool.vllm-preflight]\noutput-file = ["sarif:pyproject.toml"]\n'),
    (".vllm-preflight.yaml", "output-file: junit:.vllm-preflight.yaml\n"),
])
def test_the_project_configuration_is_never_overwritten(tmp_path, name, text):
    (tmp_path / "serve.sh").write_text(GOOD)
    (tmp_path / name).write_text(text)
    r = check_process("--offline", "serve.sh", cwd=tmp_path)
    assert r.returncode == 2 and f"{name}: is a file this check read as input" in r.stderr, r.stderr
    assert (tmp_path / name).read_text() == text


def test_a_gpu_of_the_wrong_type_gets_a_gpu_example(tmp_path):
    (tmp_path / "serve.sh").write_text(GOOD)
    (tmp_path / "pyproject.toml").write_text("[tool.vllm-preflight]\ngpu = 100\n")
    r = check_process("--offline", "serve.sh", cwd=tmp_path)
    assert r.returncode == 2 and 'gpu takes a string in quotes, e.g. gpu = "H100"' in r.stderr, r.stderr


@pytest.mark.parametrize("args", [["--select", ""], ["--select", ",,"], ["--extend-select", " , "]])
def test_a_select_of_nothing_is_refused(tmp_path, args):
    (tmp_path / "bs.sh").write_text("vllm serve Qwen/Qwen3-0.6B \\ # note\n  -tp 2\n")
    r = check_process("--offline", *args, "bs.sh", cwd=tmp_path)
    assert r.returncode == 2 and f"{args[0]} names no rule" in r.stderr, r.stderr


def test_an_empty_select_key_is_refused(tmp_path):
    (tmp_path / "bs.sh").write_text("vllm serve Qwen/Qwen3-0.6B \\ # note\n  -tp 2\n")
    (tmp_path / "pyproject.toml").write_text("[tool.vllm-preflight]\nselect = []\n")
    r = check_process("--offline", "bs.sh", cwd=tmp_path)  # it silenced the VP101 error: exit 0
    assert r.returncode == 2 and "pyproject.toml: select names no rule" in r.stderr, r.stderr


def test_a_format_name_in_capitals_is_the_format(tmp_path):
    (tmp_path / "serve.sh").write_text(GOOD)
    r = check_process("--offline", "serve.sh", "-o", "SARIF:x.sarif", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "x.sarif").read_text().lstrip().startswith("{")
    assert not (tmp_path / "SARIF:x.sarif").exists()


@pytest.mark.parametrize("out,said", [("missing/x.txt", "its folder missing does not exist"), (".", "is a directory"),
                                      ("serve.sh/x", "serve.sh is a file, not a folder")])
def test_an_unwritable_path_is_said_before_the_work(tmp_path, out, said):
    (tmp_path / "serve.sh").write_text(GOOD)
    r = check_process("--offline", "serve.sh", "nope.sh", "-o", out, cwd=tmp_path)
    assert r.returncode == 2 and f"--output-file {out}: cannot write: {said}" in r.stderr, r.stderr
    assert "nope.sh" not in r.stderr  # refused before any input is read


def test_a_fifo_nobody_reads_is_refused_not_waited_on(tmp_path):
    (tmp_path / "serve.sh").write_text(GOOD)
    os.mkfifo(tmp_path / "out.fifo")
    r = check_process("--offline", "serve.sh", "-o", "out.fifo", cwd=tmp_path, timeout=30)  # it hung in open()
    assert r.returncode == 2 and "--output-file out.fifo: cannot write: a pipe nobody reads" in r.stderr, r.stderr
