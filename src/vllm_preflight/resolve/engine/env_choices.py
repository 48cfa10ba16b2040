"""vLLM's choice-checking environment readers (vllm/envs.py `env_with_choices`, and its
comma-separated forms `env_list_with_choices` / `env_set_with_choices`), per release.

A variable read through one of them is checked when vLLM reads it (`envs.NAME`): a value not among
the release's choices (compared case-insensitively where the reader says so) is a ValueError
"Invalid value 'X' for NAME. Valid options: [...]." (list forms: "... 'X' in NAME ..."). The
choices per release are data (releases/data/env_choices.json, tools/extract_env_choices.py);
a variable is refused only where the release reads it on the config path, by the step of the
vLLM class that reads it (`choice_error` is what each such step asks):

* VLLM_ATTENTION_BACKEND: ModelConfig.__post_init__ (0.11.0-0.12.x, model/model_config.py
  `attention_backend_env`), AttentionConfig.__post_init__ (0.13.0-0.14.x, config/attention.py
  `attention_config_env`); from 0.15.0 no longer read.
* VLLM_COMPILE_CACHE_SAVE_FORMAT: CompilationConfig's default factory (0.12.0+,
  compilation/compilation_config.py `compile_cache_save_format_env`).
* VLLM_ALL2ALL_BACKEND: ParallelConfig (parallel/parallel_config.py, where the release reads it).
The other choice variables are read by model runners, kernels and workers after config time.
"""
from __future__ import annotations

from vllm_preflight.resolve.base.state import State


def choice_error(state: State, name: str) -> str | None:
    """vLLM's ValueError text when the deployment sets `name` to a value the release's reader
    refuses; None when it is unset, accepted, or not a choice variable of the release."""
    from vllm_preflight.releases import env_choices

    value = state.env.get(name)
    if value is None:
        return None
    entry = env_choices(state.release.version).get(name)
    if entry is None:
        return None
    choices = entry["choices"]
    fold = (lambda s: s) if entry["case_sensitive"] else str.lower
    allowed = {fold(c) for c in choices}
    if entry["kind"] == "one":
        if fold(value) not in allowed:
            return f"Invalid value '{value}' for {name}. Valid options: {choices}."
        return None
    for item in (v.strip() for v in value.split(",")):
        if item and fold(item) not in allowed:
            return f"Invalid value '{item}' in {name}. Valid options: {choices}."
    return None
