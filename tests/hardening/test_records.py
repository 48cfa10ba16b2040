"""`matrix --records DIR` reads records as inputs (issue 25): regular files only, 4 MiB, 100-deep
JSON, a typed schema, a walk that stays in DIR; a bad record is reported with its path and the
matrix is still drawn from the good ones (exit 2). Each case runs in a child process under a
timeout where a hang or a memory blow-up was the bug."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hostile import invoke
from hsupport import ROOT

from vllm_preflight.matrix import records as rec

HT = str(ROOT / "examples" / "deepep-ht-dp8.sh")
POSIX = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev/zero (POSIX)")


def _matrix_process(*args: str, timeout: float = 30, limit_mb: int = 1024):
    """`matrix` in a child process with a hard timeout and an address-space cap (a record that
    grows memory without bound fails the test instead of the machine)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    cap = (f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({limit_mb << 20}, {limit_mb << 20}))\n"
           if sys.platform.startswith("linux") else "")
    code = cap + "import sys; sys.argv = ['vllm-preflight'] + sys.argv[1:]\nfrom vllm_preflight.cli import main\nmain()\n"
    return subprocess.run([sys.executable, "-c", code, "matrix", *args], env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, check=False)


@pytest.fixture(scope="module")
def good_record(tmp_path_factory) -> dict:
    """A record covering the pr29558 row of the example on 0.13.0,pr29558."""
    from vllm_preflight.verify.record import digest

    _code, out, _err = invoke(["matrix", HT, "--vllm-version", "0.13.0,pr29558", "--format", "json"])
    pr = next(r for r in json.loads(out)["rows"] if r["target"] == "pr29558")
    return {"schema": rec.SCHEMA_ID, "tool": {"name": "vllm-preflight", "version": "x"}, "date": "2026-11-30T10:00:00Z",
            "input": {"source": HT, "target": "pr29558", "vllm_version": pr["vllm_version"],
                      "resolved_digest": digest(pr["resolved"])},
            "environment": {"python": "3.11", "torch": "2.13.0", "device": "NVIDIA H200",
                            "deep_ep": {"installed": True, "version": "1.2.1", "apis": [], "detail": ""}},
            "tier": "gpu", "plan": None, "checks": [], "timings": [], "ranks": [],
            "outcome": {"status": "fail", "exit_code": 1, "reason": "FULL graph around the HT dispatch"}}


def _records(tmp_path, good_record, **bad) -> str:
    d = tmp_path / "records"
    d.mkdir()
    (d / "good.json").write_text(json.dumps(good_record))
    for name, make in bad.items():
        make(d / f"{name}.json")
    return str(d)


def _drawn_with_the_good_record(r) -> None:
    assert r.returncode == 2, r.stderr
    line = next(line for line in r.stdout.splitlines() if line.strip().startswith("pr29558"))
    assert "fail · gpu · NVIDIA H200" in line  # the good record still covers its row
    assert "Traceback" not in r.stderr


@POSIX
def test_a_fifo_does_not_hang(tmp_path, good_record):
    d = _records(tmp_path, good_record, pipe=os.mkfifo)
    r = _matrix_process(HT, "--vllm-version", "0.13.0,pr29558", "--records", d)
    _drawn_with_the_good_record(r)
    assert "pipe.json: not a regular file" in r.stderr


@POSIX
def test_a_link_to_dev_zero_does_not_grow_memory(tmp_path, good_record):
    d = _records(tmp_path, good_record, zero=lambda p: os.symlink("/dev/zero", p))
    r = _matrix_process(HT, "--vllm-version", "0.13.0,pr29558", "--records", d)
    _drawn_with_the_good_record(r)
    assert "zero.json" in r.stderr and "not followed" in r.stderr  # a link out of DIR


def test_a_device_inside_the_folder_is_not_read(tmp_path, good_record):
    if not hasattr(os, "mkfifo"):
        pytest.skip("POSIX")
    d = _records(tmp_path, good_record)
    os.mkfifo(os.path.join(d, "inner"))
    os.symlink("inner", os.path.join(d, "link.json"))  # a link inside DIR to a FIFO
    r = _matrix_process(HT, "--vllm-version", "0.13.0,pr29558", "--records", d)
    _drawn_with_the_good_record(r)
    assert "link.json: not a regular file" in r.stderr


def test_a_600_mb_record_is_refused_unread(tmp_path, good_record):
    def huge(p):
        with open(p, "wb") as f:
            f.truncate(600 << 20)  # sparse: its size, none of its memory

    d = _records(tmp_path, good_record, huge=huge)
    r = _matrix_process(HT, "--vllm-version", "0.13.0,pr29558", "--records", d)
    _drawn_with_the_good_record(r)
    assert "huge.json: file is 600 MiB, larger than 4 MiB; not a verify record" in r.stderr


def test_a_record_just_over_4_mib(tmp_path, good_record):
    d = _records(tmp_path, good_record, big=lambda p: p.write_text(json.dumps(
        dict(good_record, padding="x" * (4 << 20)))))
    r = _matrix_process(HT, "--vllm-version", "0.13.0,pr29558", "--records", d)
    _drawn_with_the_good_record(r)
    assert "big.json: file is 4 MiB, larger than 4 MiB" in r.stderr


def _doc(**parts) -> str:
    """A record's JSON text with these top-level parts (the schema line first)."""
    return json.dumps({"schema": rec.SCHEMA_ID, **parts})


_OK = {"input": {"target": "release"}, "environment": {}, "outcome": {"status": "pass"}}


@pytest.mark.parametrize("text, needle", [
    ("[" * 200_000 + "]" * 200_000, "JSON nested 200000 brackets deep (limit 100)"),
    ('{"a":' * 101 + "1" + "}" * 101, "JSON nested 101 brackets deep"),
    ("{not json", "unreadable JSON"),
    ("\xff\xfe", "not UTF-8"),
    ("[1, 2]", 'no "schema"'),
    (_doc(), 'not a verify record: no "input"'),
    (_doc(**{**_OK, "input": "x"}), "input is a string, not object"),
    (_doc(**{**_OK, "input": {"target": 5}}), "input.target is not one of release, pr29558"),
    (_doc(**{**_OK, "environment": {"deep_ep": []}}), "environment.deep_ep is an array, not object or null"),
    (_doc(**{**_OK, "environment": {"device": ["a"]}}), "environment.device is an array, not string"),
    (_doc(**{**_OK, "outcome": {"status": None}}), "outcome.status is null, not string"),
    (_doc(**{**_OK, "outcome": {"status": "x" * 300}}), "outcome.status is longer than 200 characters"),
])
def test_bad_records_are_exit_2_with_their_path(tmp_path, good_record, text, needle):
    """Deep JSON or a wrong type was exit 3 (a traceback turned internal error); one bad record
    aborted the whole matrix."""
    data = text.encode("latin-1") if text.startswith("\xff") else text.encode()
    d = _records(tmp_path, good_record, bad=lambda p: p.write_bytes(data))
    code, out, err = invoke(["matrix", HT, "--vllm-version", "0.13.0,pr29558", "--records", d])
    assert code == 2, err
    assert "bad.json" in err and needle in err, err
    line = next(line for line in out.splitlines() if line.strip().startswith("pr29558"))
    assert "fail · gpu · NVIDIA H200" in line


def test_json_output_lists_the_bad_records(tmp_path, good_record):
    d = _records(tmp_path, good_record, bad=lambda p: p.write_text("[]"))
    code, out, _err = invoke(["matrix", HT, "--vllm-version", "0.13.0", "--records", d, "--format", "json"])
    assert code == 2
    [error] = json.loads(out)["errors"]
    assert error["source"].endswith("bad.json") and "not a verify record" in error["message"]


def test_the_walk_stays_in_the_folder(tmp_path, good_record):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_text(json.dumps(good_record))
    d = _records(tmp_path, good_record)
    os.symlink(outside, os.path.join(d, "out"))
    os.symlink(outside / "secret.json", os.path.join(d, "secret.json"))
    os.symlink(".", os.path.join(d, "loop"))  # a link to DIR itself: not walked again
    evidence, errors = rec.read(d)
    assert [os.path.basename(e.path) for e in evidence] == ["good.json"]
    assert sorted(os.path.basename(e.source) for e in errors) == ["out", "secret.json"]
    assert all("not followed" in e.message for e in errors)


def test_folders_nested_past_the_limit(tmp_path, good_record):
    d = _records(tmp_path, good_record)
    deep = d
    for i in range(rec.MAX_DEPTH + 5):
        deep = os.path.join(deep, "d")
    os.makedirs(deep)
    with open(os.path.join(deep, "r.json"), "w") as f:
        f.write("[]")
    evidence, errors = rec.read(d)
    assert len(evidence) == 1
    assert len(errors) == 1 and f"more than {rec.MAX_DEPTH} folders deep" in errors[0].message


def test_records_dir_that_is_not_a_folder_is_a_usage_error(tmp_path):
    code, _out, err = invoke(["matrix", HT, "--vllm-version", "0.13.0", "--records", str(tmp_path / "nope")])
    assert code == 2 and "not a directory" in err
