import sys
from pathlib import Path

# shared test helpers (tests/support.py) and the golden comparison helpers, which
# tools/golden_diff.py uses too
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "golden"))
