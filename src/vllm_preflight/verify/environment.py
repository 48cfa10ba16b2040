"""What this machine has for each tier: torch, CUDA devices, deep_ep (and which API it offers).

Nothing here imports torch or deep_ep at module import; each probe imports only when asked.
The PyPI packages named `deep-ep` and `deepinfer-ep` are recognised and reported as unusable:
neither ships binaries nor the legacy `deep_ep.Buffer` that vLLM's HT backend calls.
"""
from __future__ import annotations

import importlib.metadata as md
import importlib.util
import inspect
import platform
from typing import Any

MIN_TORCH = (2, 4)  # torch.library.custom_op / register_fake, Dynamo custom backends


def _version_tuple(text: str) -> tuple[int, ...]:
    from vllm_preflight.releases.versions import version_key

    try:
        return version_key(text)[:2]  # PEP 440: `2.13.0+cpu`, `2.10.0a0+git1234`
    except ValueError:
        return (0, 0)


def torch_version() -> str | None:
    try:
        return md.version("torch")
    except md.PackageNotFoundError:
        return None


def torch_missing() -> list[str]:
    """Empty when CPU torch is good enough for verify; otherwise what is missing."""
    if importlib.util.find_spec("torch") is None:
        return [("torch (install the `verify` extra: pip install 'vllm-preflight[verify]'; "
                 "on CPU-only machines pip install torch==2.13.0 from the CPU wheel index)")]
    try:
        import torch
        import torch.fx.passes.split_module
    except Exception as e:  # noqa: BLE001 - a broken install fails in many ways; each is reported, none fatal
        return [f"a working torch ({type(e).__name__}: {e})"]
    if importlib.util.find_spec("torch._dynamo") is None:  # found, not imported: that takes seconds
        return [f"torch with Dynamo (torch.compile); found {torch.__version__}"]
    if _version_tuple(torch.__version__) < MIN_TORCH or not hasattr(torch.library, "register_fake"):
        return [f"torch >= {'.'.join(map(str, MIN_TORCH))} (found {torch.__version__})"]
    return []


def cuda_devices() -> tuple[int, str | None]:
    """(device count, name of device 0); (0, reason) without CUDA."""
    import torch

    if not torch.cuda.is_available():
        build = getattr(torch.version, "cuda", None)
        return 0, ("torch is a CPU-only build" if build is None else "no CUDA device visible")
    return torch.cuda.device_count(), torch.cuda.get_device_name(0)


def deep_ep_distribution() -> str | None:
    try:
        names = md.packages_distributions().get("deep_ep") or []
    except Exception:  # noqa: BLE001 - one malformed installed distribution must not stop the probe
        names = []
    return names[0] if names else None


def deep_ep_status(import_it: bool) -> dict[str, Any]:
    """Which deep_ep is installed, without importing it unless asked (importing initialises CUDA)."""
    apis: list[str] = []
    status: dict[str, Any] = {"installed": importlib.util.find_spec("deep_ep") is not None, "distribution": None,
                              "version": None, "apis": apis, "legacy_ht": False, "detail": ""}
    if not status["installed"]:
        status["detail"] = "not installed"
        return status
    dist = deep_ep_distribution()
    status["distribution"] = dist
    if dist:
        try:
            status["version"] = md.version(dist)
        except md.PackageNotFoundError:
            pass
    norm = (dist or "").lower().replace("_", "-")
    if norm == "deepinfer-ep" or (norm == "deep-ep" and status["version"] == "1.0.0"):
        # A source build of DeepEP is also named deep_ep, but carries a +<git rev> or a 2.x version.
        status["detail"] = (f"{dist} {status['version']} looks like a PyPI upload, not a usable DeepEP "
                            "(no binaries, no legacy Buffer)")
    if not import_it:
        status["detail"] = status["detail"] or "installed (not imported on this tier)"
        return status
    try:
        import deep_ep
    except Exception as e:  # noqa: BLE001 - its import initialises CUDA and may fail in any way; reported
        status["detail"] = f"import failed: {type(e).__name__}: {e}"
        return status
    buffer = getattr(deep_ep, "Buffer", None)
    if buffer is not None and hasattr(buffer, "dispatch") and hasattr(buffer, "get_dispatch_layout"):
        params = inspect.signature(buffer.dispatch).parameters
        apis.append("legacy Buffer" + (" (num_worst_tokens)" if "num_worst_tokens" in params else ""))
        status["legacy_ht"] = True
    if hasattr(deep_ep, "ElasticBuffer"):
        apis.append("ElasticBuffer (V2)")
    if hasattr(deep_ep, "EPBuffer"):
        apis.append("EPBuffer (V2.5)")
    status["detail"] = ", ".join(apis) or "no known DeepEP API"
    return status


def describe(import_deep_ep: bool = False) -> dict[str, Any]:
    info = {"python": platform.python_version(), "torch": torch_version(), "cuda": None, "device": "cpu",
            "deep_ep": deep_ep_status(import_deep_ep)}
    return info
