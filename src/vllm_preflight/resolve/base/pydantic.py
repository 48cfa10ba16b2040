"""pydantic, as vLLM's config classes meet it: the errors it raises and its lax coercions from JSON.

Shared by every stage (below them): a config class's validator error, a field's error, and the
lax bool/int/float of pydantic's JSON mode (tests/unit/test_coercions.py holds pydantic itself as
the oracle)."""
from __future__ import annotations

import re
from typing import Any

from vllm_preflight.resolve.base.state import Refusal


def validator_error(cls: str, message: str, kind: str = "Value error") -> Refusal:
    """A config class's validator (or __post_init__) raising: pydantic's ValidationError."""
    return Refusal("ValidationError", f"1 validation error for {cls}\n  {kind}, {message}")


def field_error(cls: str, field: str, message: str) -> Refusal:
    """One field's error, as pydantic prints it."""
    return Refusal("ValidationError", f"1 validation error for {cls}\n{field}\n  {message}")


def value_error(cls: str, message: str) -> Refusal:
    """A validator's ValueError with the error code pydantic appends."""
    return Refusal("ValidationError", f"1 validation error for {cls}\n  Value error, {message} [type=value_error]")


_TRUE = {"1", "true", "t", "yes", "y", "on"}
_FALSE = {"0", "false", "f", "no", "n", "off"}


def lax_bool(value: Any) -> bool:
    """pydantic's lax bool from JSON (ValueError with its message)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if value in (0, 1):
            return bool(value)
        raise ValueError("Input should be a valid boolean, unable to interpret input")
    if isinstance(value, float):
        if value in (0.0, 1.0):
            return bool(value)
        if value.is_integer():
            raise ValueError("Input should be a valid boolean, unable to interpret input")
        raise ValueError("Input should be a valid boolean")
    if isinstance(value, str):
        low = value.lower()
        if low in _TRUE or low in _FALSE:
            return low in _TRUE
        raise ValueError("Input should be a valid boolean, unable to interpret input")
    raise ValueError("Input should be a valid boolean")


def lax_float(value: Any) -> float:
    """pydantic's lax float from JSON (ValueError with its message)."""
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            raise ValueError("Input should be a valid number, unable to parse string as a number") from None
    raise ValueError("Input should be a valid number")


class ConfigInvalid(Exception):
    """A value pydantic (or a config's __post_init__) rejects; becomes the caller's error."""

    def __init__(self, message: str, exc_type: str = "ValidationError", kind: str = "Value error"):
        super().__init__(message)
        self.exc_type = exc_type
        self.kind = kind  # pydantic's word for a validator's error: "Value error" | "Assertion failed"
        self.others: list = []  # the further errors pydantic reports with this one

    def pydantic_text(self, cls: str = "CompilationConfig") -> str:
        """The error as pydantic prints it (without its [type=...] details)."""
        errs = [self] + list(self.others)
        lines = [f"{len(errs)} validation error{'s' if len(errs) > 1 else ''} for {cls}"]
        for e in errs:
            text = str(e)
            m = _FIELD_ERROR.match(text)
            if m:
                lines += [m.group(1), f"  {m.group(2)} [type={_error_type(m.group(2))}]"]
            else:
                lines.append(f"  {e.kind}, {text} [type={'assertion_error' if e.kind == 'Assertion failed' else 'value_error'}]")
        return "\n".join(lines)


def _error_type(text: str) -> str:
    """pydantic's error code for a field message (it prints it after each error)."""
    for prefix, code in (("Unexpected keyword", "unexpected_keyword_argument"),
                         ("Input should be a valid integer, unable", "int_parsing"),
                         ("Input should be a valid integer, got", "int_from_float"),
                         ("Input should be a valid integer", "int_type"), ("Input should be a valid boolean", "bool_parsing"),
                         ("Input should be 0, 1", "enum")):
        if text.startswith(prefix):
            return code
    return "value_error"


# "field.path: Input should ..." is a field's own error; anything else a validator's
_FIELD_ERROR = re.compile(r"^([A-Za-z_][\w.]*): ((?:Input should|Input is not|Unexpected keyword|Field required|Value error, ).*)$", re.DOTALL)


_I64 = 2 ** 63


def _int(value: Any, where: str) -> int:
    """pydantic's lax int from JSON: integral floats within 64 bits; strings stripped of
    whitespace, ASCII digits (Python's underscores allowed), an all-zero fraction allowed."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer() and -_I64 <= value < _I64:
        return int(value)
    if isinstance(value, float):
        raise ConfigInvalid(f"{where}: Input should be a valid integer, got a number with a fractional part")
    if isinstance(value, str):
        text = value.strip()
        head, dot, frac = text.partition(".")
        if dot and frac and frac.strip("0") == "":
            text = head
        if text.isascii() and "__" not in text and not text.endswith("_"):
            try:
                return int(text)
            except ValueError:
                pass
        raise ConfigInvalid(f"{where}: Input should be a valid integer, unable to parse string as an integer")
    raise ConfigInvalid(f"{where}: Input should be a valid integer")


def _int_list(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        raise ConfigInvalid(f"{where}: Input should be a valid list")
    return [_int(v, where) for v in value]


def _str_list(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigInvalid(f"{where}: Input should be a valid list of strings")
    return list(value)
