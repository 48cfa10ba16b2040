"""A model hook never turns "not read" into "refused" (issue 24): with the architecture pinned by
`--assume model.architecture=...` and no config.json, a hook that checks only config.json keys
has nothing to check; vLLM (which always has the file) would run it on keys the tool lacks, so
the tool states an assumption and does not refuse. With the file read, the same hook refuses
as real vLLM does (tests/golden/data/model_families/arch_hooks holds those goldens)."""
from __future__ import annotations

from pathlib import Path

import pytest

from vllm_preflight.api import check_inputs

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "models"
# (architecture, first release with its hook, a fixture whose config.json the hook refuses)
HOOKED = [
    ("D3ForSequenceClassification", "0.33.0", "hook-d3-no-decision-config"),
    ("ColQwen3_5", "0.27.0", "hook-colqwen35-no-contract"),
    ("LlamaBidirectionalModel", "0.29.0", "hook-llamabidirectional-no-pooling"),
    ("AliceAIForCausalLM", "0.33.0", "hook-aliceai-softmax-router"),
    ("GteModel", "0.12.0", "hook-gtemodel-bert-config"),
    ("NomicBertModel", "0.14.0", "hook-nomicbertmodel-bert-config"),
    ("DeepseekV32ForCausalLM", "0.33.0", "hook-deepseekv32-no-index-topk"),
]


@pytest.mark.parametrize("arch,release,fixture", HOOKED, ids=[h[0] for h in HOOKED])
def test_pinned_architecture_without_config_is_an_assumption(arch, release, fixture):
    res = check_inputs([], command=["vllm", "serve", "nosuch-org/nosuch-model"], vllm_version=release,
                       assume=[("model.architecture", arch)], offline=True).results[0]
    assert res.vllm_error is None
    said = [a for a in res.assumptions if a.fact == "model.config"]
    if arch != "DeepseekV32ForCausalLM":  # its hook already returned early without a file
        assert said and arch in said[0].source and "not read" in said[0].source


@pytest.mark.parametrize("arch,release,fixture", HOOKED, ids=[h[0] for h in HOOKED])
def test_with_the_config_read_the_hook_still_refuses(arch, release, fixture):
    res = check_inputs([], command=["vllm", "serve", str(MODELS / fixture)], vllm_version=release,
                       offline=True).results[0]
    assert res.vllm_error is not None
    assert not [a for a in res.assumptions if a.fact == "model.config"]
