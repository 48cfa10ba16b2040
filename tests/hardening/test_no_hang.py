"""Nothing the tool reads can block it: FIFOs and devices are never opened (issue 11).

Each runs `check` as a child process under a timeout: a hang fails the test, it never stalls."""
from __future__ import annotations

import os
import shutil

import pytest
from hsupport import ROOT, check_process

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")

EXAMPLE = ROOT / "examples" / "deepep-ht-dp8.sh"


def test_a_fifo_in_a_scanned_folder_is_skipped(tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "deepep-ht-dp8.sh")
    os.mkfifo(tmp_path / "pipe")  # extensionless: the scan would look for a shebang in it
    r = check_process("--format", "json", str(tmp_path), timeout=60)
    assert r.returncode == 0, r.stderr
    assert "pipe" not in r.stdout + r.stderr


def test_a_fifo_named_on_the_command_line_is_an_error_of_its_own(tmp_path):
    os.mkfifo(tmp_path / "pipe.sh")
    good = tmp_path / "good.sh"
    good.write_text("vllm serve Qwen/Qwen3-0.6B\n")
    r = check_process("--format", "json", str(tmp_path / "pipe.sh"), str(good), timeout=60)
    assert r.returncode == 2
    assert "pipe.sh: not a regular file" in r.stderr
    assert '"source": "' + str(good) + '"' in r.stdout  # the other input is still checked


def test_a_device_named_on_the_command_line_is_refused(tmp_path):
    r = check_process(os.devnull, timeout=60)
    assert r.returncode == 2 and "not a regular file" in r.stderr


def test_a_model_config_json_that_is_a_fifo_does_not_block(tmp_path):
    (tmp_path / "model").mkdir()
    os.mkfifo(tmp_path / "model" / "config.json")
    (tmp_path / "serve.sh").write_text("vllm serve ./model\n")
    r = check_process("--format", "json", str(tmp_path / "serve.sh"), timeout=60)
    assert r.returncode == 2
    assert "config.json" in r.stderr and "not a regular file" in r.stderr


def test_a_config_yaml_that_is_a_fifo_does_not_block(tmp_path):
    os.mkfifo(tmp_path / "cfg.yaml")
    (tmp_path / "serve.sh").write_text("vllm serve m --config cfg.yaml\n")
    r = check_process("--format", "json", str(tmp_path / "serve.sh"), timeout=60)
    assert r.returncode in (0, 1), r.stderr
    assert "VP107" in r.stdout  # its settings are missing, and said so


def test_a_sourced_fifo_does_not_block(tmp_path):
    os.mkfifo(tmp_path / "env.sh")
    (tmp_path / "serve.sh").write_text("source ./env.sh\nvllm serve m\n")
    r = check_process("--format", "json", str(tmp_path / "serve.sh"), timeout=60)
    assert r.returncode == 0, r.stderr
    assert "VP121" in r.stdout and "not a regular file" in r.stdout


def test_devices_found_in_a_folder_are_never_opened(tmp_path):
    """`check /dev` used to block on a console read: a device is never opened. Links to
    devices lead out of the folder, so they are skipped and said; a FIFO named like a script
    inside it is the folder's input error."""
    shutil.copy(EXAMPLE, tmp_path / "deepep-ht-dp8.sh")
    os.symlink(os.devnull, tmp_path / "console")  # extensionless, so the scan would read its head
    os.symlink("/dev/zero", tmp_path / "zero.sh")  # named like a script
    r = check_process("--format", "json", str(tmp_path), timeout=60)
    assert r.returncode == 0, r.stderr
    assert "zero.sh: a link to /dev/zero" in r.stderr and "not followed" in r.stderr
    assert "deepep-ht-dp8.sh" in r.stdout
    os.mkfifo(tmp_path / "pipe.sh")
    r = check_process("--format", "json", str(tmp_path), timeout=60)
    assert r.returncode == 2, r.stderr
    assert "pipe.sh: not a regular file" in r.stderr and "deepep-ht-dp8.sh" in r.stdout
