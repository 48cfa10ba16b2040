import sys
from pathlib import Path

# shared test helpers (tests/support.py) and the golden comparison helpers, which
# tools/golden_diff.py uses too
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "golden"))
sys.path.insert(0, str(Path(__file__).parent / "model_files"))  # the loopback Hub and its fixtures

# No test reaches a network or this machine's Hugging Face cache: model files come from local
# fixture folders, or from the loopback Hub and caches the model_files tests build themselves.
# Set before anything is imported, so subprocesses (the CLI tests) inherit it too.
import os
import tempfile

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_HOME"] = tempfile.mkdtemp(prefix="vllm-preflight-tests-hf-")
os.environ["HF_ENDPOINT"] = "http://127.0.0.1:9"  # the discard port: nothing answers
for _key in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_TOKEN", "VLLM_PREFLIGHT_HUB_TIMEOUT"):
    os.environ.pop(_key, None)
