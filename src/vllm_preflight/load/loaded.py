"""A Deployment as a loader found it, with what the binder needs to finish it.

`argv`/`env` hold the command as written (symbols shown as their source, `$DP`); the
`template` keeps the words with their places and symbols, so `load.bind` can render them
for a given release (symbols under stated values, `--config` YAML the way that release
reads it) and validation can point at lines.
"""
from __future__ import annotations

from dataclasses import dataclass

from vllm_preflight.model import Deployment, Location

# Environment variables that change vLLM's config-time resolution (vllm-resolution.md §8);
# an unknown value for one of these is worth a finding, for others it is not.
RESOLUTION_ENV = frozenset({
    "VLLM_ALL2ALL_BACKEND", "TORCH_COMPILE_DISABLE", "VLLM_BATCH_INVARIANT", "VLLM_USE_BREAKABLE_CUDAGRAPH",
    "VLLM_USE_V1", "VLLM_USE_V2_MODEL_RUNNER", "VLLM_ATTENTION_BACKEND", "VLLM_FLASH_ATTN_VERSION",
})


@dataclass(frozen=True)
class LoadedDeployment(Deployment):
    """A Deployment with the template the binder renders per release."""

    template: tuple = ()  # TWord | ConfigItem, the program words included
    prefix: int = 2  # how many template words name the program (`vllm serve`)
    env_template: tuple = ()  # (NAME, Text)
    findings: tuple = ()  # Finding, from loading (release-independent)
    gpu: str | None = None  # from a deployment file
    model_facts: tuple = ()  # (FACT, VALUE) from a deployment file
    version_source: str | None = None  # what `vllm_version` came from ("image vllm/vllm-openai:v0.22.1")
    version_location: Location | None = None
    config_files: tuple = ()  # absolute paths of `--config` files folded in
    # files read because the input named them (`--config`, `source`), as locations name them:
    # findings quote none of their text (load.private_text)
    private_files: tuple = ()
    format: str = ""  # the loader that found it
    # a reader's place of the server in its file: "LeaderWorkerSet/wide-ep-decode › vllm" (identity.server_name
    # puts the file before it and the role after it)
    name: str | None = None
    pod_path: tuple = ()  # a manifest's server: the path of its pod spec inside its resource
    # `vllm-preflight.io/ignore: VP302,VP305` on the resource or its pod template: the codes and where
    ignore_codes: tuple = ()
    ignore_location: Location | None = None

    __hash__ = object.__hash__  # templates hold YAML values; identity is enough


class Skipped(str):
    """A file, or a part of one (a Markdown block, a YAML document, a resource), that was read
    and holds no server the tool reads, or a link a folder walk did not follow, with why (a
    plain str for old callers); `--verbose` lists them."""

    reason: str
    always: bool  # said on stderr without `--verbose` too (a link a walk did not follow)

    def __new__(cls, where: str, reason: str = "holds no vLLM server", *, always: bool = False):
        obj = super().__new__(cls, where)
        obj.reason = reason
        obj.always = always
        return obj


def with_environment(dep: Deployment, env) -> Deployment:
    """The deployment with `env` ((NAME, VALUE) pairs, `--env`) as part of its own environment,
    winning over the same names written in the input: every later step (binding, the resolver,
    the findings and their fixes, the plan) then reads one environment, whichever way it came."""
    from dataclasses import replace

    from vllm_preflight.load.symbols import lit

    given = dict(env or ())
    if not given:
        return dep
    merged = dict(dep.env)
    merged.update(given)
    if isinstance(dep, LoadedDeployment) and dep.env_template:
        template = dict(dep.env_template)
        template.update({k: lit(v) for k, v in given.items()})
        return replace(dep, env=tuple(merged.items()), env_template=tuple(template.items()))
    return replace(dep, env=tuple(merged.items()))
