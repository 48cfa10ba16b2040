"""A JSON config value Python reads as inf or nan (`1e400`, `Infinity`, `NaN`) is named as such in
the finding: the schema validator hands it back as JSON's null, which read `None is not of type
integer or null` (None is null) and offered `NONE` as a did-you-mean."""
from __future__ import annotations

import pytest
from hsupport import check


@pytest.mark.parametrize("cc,said", [
    ('{"max_cudagraph_capture_size": 1e400}', "`max_cudagraph_capture_size`: inf is not of type integer"),
    ('{"max_cudagraph_capture_size": NaN}', "`max_cudagraph_capture_size`: nan is not of type integer"),
    ('{"mode": Infinity}', "`mode`: inf is not one of NONE"),
])
def test_a_non_finite_value_is_named(cc, said):
    code, doc, err = check("--offline", "--", "vllm", "serve", "Qwen/Qwen3-8B", "-cc", cc)
    assert code == 1, err
    messages = [f["message"] for r in doc["results"] for f in r["findings"] if f["rule"] == "VP204"]
    assert any(said in m for m in messages), messages
    assert not any("None is not" in m or "did you mean" in m for m in messages), messages
