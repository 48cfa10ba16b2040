"""argparse refusals read as vLLM prints them (issue 9): Python's argparse over the
release's recorded option table gives the message; the golden tests compare every one."""
from __future__ import annotations

from vllm_preflight.model import Deployment
from vllm_preflight.resolve import resolve


def _error(argv: str, version: str):
    res = resolve(Deployment(argv=tuple(argv.split()), env=(), source="t"), version)
    return res.vllm_error


def test_unrecognized_arguments_keep_their_order():
    # recorded from vLLM 0.11.0 (tests/golden/data/0.11.0.jsonl): the flag, then its value
    err = _error("vllm serve m -dp 2 --all2all-backend naive", "0.11.0")
    assert (err.type, err.message) == ("ArgumentError", "unrecognized arguments: --all2all-backend naive")


def test_invalid_choice_lists_the_choices():
    err = _error("vllm serve m --dtype bf16", "0.12.0")
    assert err.message == ("argument --dtype: invalid choice: 'bf16' (choose from 'auto', 'bfloat16', "
                           "'float', 'float16', 'float32', 'half')")


def test_hidden_negative_spelling_on_enable_disable_pairs():
    # 0.33.0 pairs --enable-x with --disable-x; --no-enable-x is still accepted, hidden from help
    assert _error("vllm serve m --no-enable-prefix-caching", "0.33.0") is None
    assert _error("vllm serve m --no-no-enable-prefix-caching", "0.33.0").message == \
        "unrecognized arguments: --no-no-enable-prefix-caching"
