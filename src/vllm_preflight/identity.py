"""Who a server is: its role in a prefill/decode split, and the one name every output gives it.

A server's role is a fact of the deployment, read in this order (the first that speaks wins):
1. the user's own word: `check --role`, or `role:` in a `*.preflight.yaml` file;
2. the deployment's structure: a role label (`llm-d.ai/role: prefill`), then the names of the
   resource, its role (`spec.prefill`, `roles[].name`) and the container (`…-prefill`, `decode`);
3. vLLM's KV-transfer role: `--kv-transfer-config` with `kv_role` `kv_producer` (prefill) or
   `kv_consumer` (decode); `kv_both` says "both" only when nothing above speaks.
No word anywhere: the role is unknown, and the rules treat the server as serving both phases.

`server_name(deployment)` is the human name of a server, computed here only and used by `check`
(every format) and `matrix`: `FILE › RESOURCE › [PART ›] CONTAINER (ROLE)`, e.g.
`wide-ep.yaml › LeaderWorkerSet/wide-ep-prefill › vllm (prefill)`.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

ROLES = ("prefill", "decode", "both")
KV_ROLES = {"kv_producer": "prefill", "kv_consumer": "decode", "kv_both": "both"}
SEP = " › "
COMMAND_LINE = "<command line>"
_WORD = re.compile(r"(?<![a-z])(prefill|decode)(?![a-z])")


@dataclass(frozen=True)
class Role:
    """A server's prefill/decode role and why."""

    role: str | None  # "prefill" | "decode" | "both" | None (nothing says)
    source: str = ""  # what said it, in a deployer's words

    @property
    def prefill_only(self) -> bool:
        return self.role == "prefill"

    @property
    def decode_only(self) -> bool:
        return self.role == "decode"

    def to_json(self) -> dict:
        return {"role": self.role, "source": self.source}


def role_in_name(text: str) -> str | None:
    """`prefill` / `decode` when a name says one of them (as a word: `wide-ep-prefill`,
    `decode_pool`, `vllm-decode`), else None; a name saying both says nothing."""
    found = {m.group(1) for m in _WORD.finditer(text.lower())}
    return found.pop() if len(found) == 1 else None


def argv_value(argv, *names: str) -> str | None:
    """The value of the last of `names` in a command's words (`--x V` or `--x=V`)."""
    argv = list(argv)
    value = None
    for i, w in enumerate(argv):
        for n in names:
            if w == n and i + 1 < len(argv):
                value = argv[i + 1]
            elif w.startswith(n + "="):
                value = w[len(n) + 1:]
    return value


def kv_transfer_config(argv) -> dict | None:
    """The `--kv-transfer-config` JSON of a command (None: absent or not a JSON object)."""
    text = argv_value(argv, "--kv-transfer-config")
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def role_of(deployment) -> Role:
    """The role of one server (see the module's docstring for the order)."""
    if deployment is None:
        return Role(None)
    if getattr(deployment, "role", None):
        return Role(deployment.role, getattr(deployment, "role_source", "") or "stated")
    hints = tuple(getattr(deployment, "role_hints", ()) or ())
    if hints:
        return Role(hints[0][0], hints[0][1])
    kv = kv_transfer_config(getattr(deployment, "argv", ()))
    kv_role = (kv or {}).get("kv_role")
    if isinstance(kv_role, str) and kv_role in KV_ROLES:
        return Role(KV_ROLES[kv_role], f"--kv-transfer-config kv_role {kv_role}")
    return Role(None)


def _file_of(deployment) -> str:
    loc = getattr(deployment, "location", None)
    if loc is not None and getattr(loc, "file", None):
        return loc.file
    source = getattr(deployment, "source", "") or COMMAND_LINE
    return source.split(":", 1)[0] if ":" in source and not source.startswith("<") else source


def server_name(deployment, role: Role | None = None) -> str:
    """The one human name of a server: file, the reader's place in it, and its role."""
    if deployment is None:
        return COMMAND_LINE
    role = role if role is not None else role_of(deployment)
    file = _file_of(deployment)
    place = getattr(deployment, "name", None)
    parts = [file]
    if place:
        parts.append(place)
    else:  # one file's several servers (their source is not the file alone): by the line of the command
        loc = getattr(deployment, "location", None)
        source = getattr(deployment, "source", "") or ""
        if loc is not None and loc.line and source not in (file, loc.file):
            parts.append(f"line {loc.line}")
    text = SEP.join(parts)
    return text + (f" ({role.role})" if role.role else "")
