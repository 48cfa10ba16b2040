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


def test_a_tab_after_a_continuation_is_called_a_tab(tmp_path):
    (tmp_path / "tab.sh").write_text("vllm serve Qwen/Qwen3-8B \\\t\n  -tp 2\n")
    code, doc, err = check("--offline", str(tmp_path / "tab.sh"))
    message = next(f["message"] for f in doc["results"][0]["findings"] if f["rule"] == "VP101")
    assert code == 1 and not err.strip().startswith("Traceback") and message.startswith("a tab follows this `\\`, so it escapes the tab"), message
