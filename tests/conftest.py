import sys
from pathlib import Path

# the golden comparison helpers are shared with tools/golden_diff.py
sys.path.insert(0, str(Path(__file__).parent / "golden"))
