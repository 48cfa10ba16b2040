"""docs/matrix.md and docs/matrix.html are what `python tools/gen_matrix_doc.py` prints today."""
import importlib.util

from support import ROOT


def test_matrix_docs_are_not_stale():
    spec = importlib.util.spec_from_file_location("gen_matrix_doc", ROOT / "tools" / "gen_matrix_doc.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for path, text in gen.outputs().items():
        assert path.read_text() == text, f"{path.name} is stale: run python tools/gen_matrix_doc.py"
    md = (ROOT / "docs" / "matrix.md").read_text()
    assert "| 0.11.1–0.33.0 | **graphs off** |" in md and "| pr29558 | **hazard** |" in md
    assert (ROOT / "docs" / "matrix.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
