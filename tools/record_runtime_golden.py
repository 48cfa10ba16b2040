"""Record what a real vLLM release's runtime stage does, on CPU, as golden JSONL.

    python tools/record_runtime_golden.py VERSION --oracle DIR [--n 240] [--kinds lowering,selector]
        -> tests/runtime/data/lowering-VERSION.jsonl, selector-VERSION.jsonl (or -o RAW.jsonl)

DIR is the vllm-oracle folder (its README explains the venvs: VLLM_ORACLE_HOME/venv-VERSION).
The driver (this interpreter) generates seeded cases and runs this same file with `--probe`
under the release's own python, which imports the release with the oracle's CUDA emulation and
calls the release's own code:

* lowering cases: the model runner's cudagraph-mode check with stub attention backends that
  declare the support levels of the case (0.12.0-style releases:
  `GPUModelRunner._check_and_update_cudagraph_mode` with a stand-in `self`; later releases:
  `CompilationConfig.resolve_cudagraph_mode_and_sizes`). Output: final mode, capture sizes,
  the WARNING lines its logger printed, or the exception.
* selector cases: the platform's attention-backend selector with the device's compute
  capability faked, then the chosen backend's declared CUDA-graph support (its metadata
  builder's `get_cudagraph_support`, FlashInfer's TRTLLM kernels marked present or absent).

Every generated case is recorded, none dropped because our port disagrees.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")
LEVELS = ("NEVER", "UNIFORM_SINGLE_TOKEN_DECODE", "UNIFORM_BATCH", "ALWAYS")
DEFAULT_SIZES = [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, 513, 16))


# ---------------------------------------------------------------- case generation (driver side)
def lowering_cases(n: int, seed: int, resolver: bool) -> list[dict]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        sizes_kind = rnd.choice(["default", "default", "small", "random"])
        if sizes_kind == "default":
            mx = rnd.choice([512, 512, 256, 64])
            sizes = [s for s in DEFAULT_SIZES if s <= mx]
        elif sizes_kind == "small":
            sizes = sorted(rnd.sample(range(1, 9), rnd.randint(1, 3)))
            mx = sizes[-1]
        else:
            sizes = sorted(rnd.sample(range(1, 200), rnd.randint(1, 8)))
            mx = sizes[-1]
        groups = [rnd.choice(LEVELS) for _ in range(rnd.choice([1, 1, 2, 3]))]
        case = {
            "id": f"lower-{i}", "kind": "lowering",
            "mode": rnd.choice(MODES),
            "vllm_compile": rnd.random() < 0.8,
            "splitting": rnd.choice(["attention", "attention", "attention+moe", "empty", "partial"]),
            "partition": rnd.random() < 0.2,
            "q": rnd.choice([1, 1, 2, 3, 4, 5, 6]),
            "groups": groups,
            "sizes": sizes, "max_size": mx,
            "tp": rnd.choice([1, 1, 2, 4, 8]),
            "enable_sp": rnd.random() < 0.3,
        }
        if resolver:
            case.update({
                "v2": rnd.random() < 0.5,
                "pw_available": rnd.random() < 0.75,
                "mamba": rnd.random() < 0.3,
                "num_blocks": rnd.choice([16, 64, 256, 1024]),
                "max_num_seqs": rnd.choice([8, 128, 256, 1024]),
                "profiling": rnd.random() < 0.3,
            })
        out.append(case)
    return out


STANDARD_BACKENDS = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION")
MLA_BACKENDS = ("CUTLASS_MLA", "FLASHINFER_MLA", "FLASH_ATTN_MLA", "FLASHMLA", "TRITON_MLA")
CCS = ("8.0", "8.6", "8.9", "9.0", "10.0", "10.3", "12.0", "12.1")


def selector_cases(n: int, seed: int) -> list[dict]:
    """Dense attention on NVIDIA GPUs: the scope the port claims (no sparse MLA, mm-prefix,
    sliding-window or non-causal selector inputs)."""
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        mla = rnd.random() < 0.35
        case = {
            "id": f"select-{i}", "kind": "selector",
            "cc": rnd.choice(CCS),
            "use_mla": mla,
            "head_size": 576 if mla else rnd.choice([64, 64, 80, 96, 128, 128, 128, 256, 512]),
            "dtype": rnd.choice(["bfloat16", "bfloat16", "bfloat16", "float16", "float32"]),
            "kv_cache_dtype": rnd.choice(["auto", "auto", "auto", "fp8", "fp8_e4m3"]),
            "selected": None if rnd.random() < 0.7 else rnd.choice(MLA_BACKENDS if mla else STANDARD_BACKENDS),
            "trtllm_kernels": rnd.random() < 0.5,  # flashinfer cubins present / artifactory reachable
            "num_heads": rnd.choice([8, 16, 32, 64]),
            "num_kv_heads": rnd.choice([1, 2, 8, 32]),
            "has_sink": (not mla) and rnd.random() < 0.15,
            "use_sparse": False,
        }
        out.append(case)
    return out


# ---------------------------------------------------------------- probe (release venv side)
def _probe(cases_path: str, out_path: str, oracle: str) -> None:
    sys.path.insert(0, oracle)
    for k, v in {"VLLM_CONFIGURE_LOGGING": "0", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1",
                 "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}.items():
        os.environ.setdefault(k, v)
    import logging

    # the oracle folder (put on sys.path above) holds it; it is no part of this repo or its deps
    import cuda_emulation as ce  # type: ignore[import-not-found]

    gpu = ce.FakeGpu()
    ce.install(gpu)
    import vllm
    import vllm.config as vcfg  # noqa: F401

    ce.check()
    _meta_cuda_buffers()
    records: list[tuple[str, str, str]] = []  # (level, message, logger)

    class Grab(logging.Handler):
        def emit(self, r):
            records.append((r.levelname, r.getMessage(), r.name))

    vlog = logging.getLogger("vllm")
    vlog.addHandler(Grab())
    vlog.setLevel(logging.DEBUG)
    vlog.propagate = False
    with open(cases_path) as f:
        cases = [json.loads(line) for line in f]
    with open(out_path, "w") as out:
        for case in cases:
            _reset_once_caches()
            records.clear()
            try:
                res = _run_lowering(case) if case["kind"] == "lowering" else _run_selector(case, gpu)
                res["error"] = None
            except Exception as e:  # noqa: BLE001 - vLLM's own refusal is the answer
                import traceback

                res = {"error": f"{type(e).__name__}: {e}",
                       "where": [ln for ln in traceback.format_exc().splitlines() if "site-packages/vllm" in ln][-4:]}
            res["warnings"] = [m for lvl, m, _ in records if lvl in ("WARNING", "ERROR")]
            res["info"] = [m for lvl, m, _ in records if lvl == "INFO"]
            res["loggers"] = [name for lvl, _, name in records if lvl in ("WARNING", "ERROR")]
            out.write(json.dumps({"case": case, "vllm_version": vllm.__version__, "vllm": res}) + "\n")


def _reset_once_caches():
    """vLLM's *_once log caches would make one case depend on the cases before it."""
    import vllm.logger as vl

    for v in list(vars(vl).values()):
        if callable(v) and hasattr(v, "cache_clear"):
            v.cache_clear()


def _meta_cuda_buffers():
    """Some backend modules allocate CUDA workspaces at import: give them meta tensors."""
    import torch

    def on_meta(fn):
        def wrapper(*a, **k):
            if str(k.get("device", "")).startswith("cuda"):
                k["device"] = "meta"
            return fn(*a, **k)
        return wrapper

    for name in ("empty", "zeros", "ones", "full"):
        setattr(torch, name, on_meta(getattr(torch, name)))
    torch.cuda.get_device_properties = lambda *a, **k: type("P", (), {"multi_processor_count": 132})()


def _support_enum():
    try:
        from vllm.v1.attention.backend import AttentionCGSupport  # 0.14+
    except ImportError:
        from vllm.v1.attention.backends.utils import AttentionCGSupport
    return AttentionCGSupport


def _stub_backends(levels):
    Support = _support_enum()
    sets, groups = [], []
    for gi, lvl in enumerate(levels):
        support = Support[lvl]

        class Builder:
            @classmethod
            def get_cudagraph_support(cls, vllm_config, kv_cache_spec, _s=support):
                return _s

        class Backend:
            @staticmethod
            def get_builder_cls(_b=Builder):
                return _b

        Backend.__name__ = f"Stub{gi}{lvl.title().replace('_', '')}Backend"
        sets.append({Backend})
        groups.append(type("Group", (), {"kv_cache_spec": object(), "layer_names": []})())
    return sets, groups


def _compilation_config(case):
    from vllm.config import CompilationConfig

    cc = CompilationConfig()
    attn = list(CompilationConfig._attention_ops)
    split = {"attention": attn, "attention+moe": attn + ["vllm::moe_forward"], "empty": [],
             "partial": attn[:1] if len(attn) > 1 else ["vllm::some_other_op"]}[case["splitting"]]
    from vllm.config import CUDAGraphMode

    try:
        from vllm.config import CompilationMode

        mode = CompilationMode.VLLM_COMPILE if case["vllm_compile"] else CompilationMode.NONE
        object.__setattr__(cc, "mode", mode)
    except ImportError:  # pragma: no cover - releases with `level`
        object.__setattr__(cc, "level", 3 if case["vllm_compile"] else 0)
    object.__setattr__(cc, "splitting_ops", split)
    object.__setattr__(cc, "use_inductor_graph_partition", case["partition"])
    object.__setattr__(cc, "cudagraph_mode", CUDAGraphMode[case["mode"]])
    object.__setattr__(cc, "cudagraph_capture_sizes", list(case["sizes"]))
    object.__setattr__(cc, "max_cudagraph_capture_size", case["max_size"])
    object.__setattr__(cc.pass_config, "enable_sp", case["enable_sp"])
    return cc


def _run_lowering(case):
    import types

    from vllm.config import CompilationConfig

    cc = _compilation_config(case)
    sets, groups = _stub_backends(case["groups"])
    q = case["q"]
    if hasattr(CompilationConfig, "resolve_cudagraph_mode_and_sizes"):
        import inspect

        kv = types.SimpleNamespace(kv_cache_groups=groups, has_mamba_layers=case["mamba"],
                                   num_blocks=case["num_blocks"])
        params = inspect.signature(CompilationConfig.resolve_cudagraph_mode_and_sizes).parameters
        kwargs = {}
        for name, value in (("kv_cache_config", kv), ("max_num_reqs", case["max_num_seqs"]),
                            ("is_profiling", case["profiling"]), ("use_v2_model_runner", case["v2"]),
                            ("piecewise_capture_available", case["pw_available"]),
                            ("tensor_parallel_size", case["tp"])):
            if name in params:
                kwargs[name] = value
        # the runner computes the minimum support first and passes it with the backend name
        Support = _support_enum()
        min_s, min_name = Support.ALWAYS, None
        for backend_set, g in zip(sets, groups):
            for b in backend_set:
                s = b.get_builder_cls().get_cudagraph_support(None, g.kv_cache_spec)
                if s.value < min_s.value:
                    min_s, min_name = s, b.__name__
        mode = cc.resolve_cudagraph_mode_and_sizes(min_s, min_name, q, **kwargs)
        return {"mode": mode.name if mode is not None else None,
                "cudagraph_mode": cc.cudagraph_mode.name,
                "sizes": cc.cudagraph_capture_sizes, "max_size": cc.max_cudagraph_capture_size,
                "path": "CompilationConfig.resolve_cudagraph_mode_and_sizes"}
    from vllm.v1.worker.gpu_model_runner import GPUModelRunner

    class Dispatcher:
        keys = None

        def initialize_cudagraph_keys(self, mode, q):
            Dispatcher.keys = (mode.name, q)

    me = types.SimpleNamespace(
        vllm_config=types.SimpleNamespace(compilation_config=cc), compilation_config=cc,
        uniform_decode_query_len=q, parallel_config=types.SimpleNamespace(tensor_parallel_size=case["tp"]),
        cudagraph_dispatcher=Dispatcher(), cudagraph_batch_sizes=None, speculative_config=None,
        drafter=None, kv_cache_config=None)
    GPUModelRunner._check_and_update_cudagraph_mode(me, sets, groups)
    return {"mode": cc.cudagraph_mode.name, "cudagraph_mode": cc.cudagraph_mode.name,
            "sizes": cc.cudagraph_capture_sizes, "max_size": cc.max_cudagraph_capture_size,
            "dispatcher": list(Dispatcher.keys) if Dispatcher.keys else None,
            "path": "GPUModelRunner._check_and_update_cudagraph_mode"}


def _backend_enum():
    for mod in ("vllm.v1.attention.backends.registry", "vllm.attention.backends.registry"):
        try:
            return __import__(mod, fromlist=["AttentionBackendEnum"]).AttentionBackendEnum
        except (ImportError, AttributeError):
            continue
    raise ImportError("AttentionBackendEnum")


def _fake_capability(gpu, cc):
    """The device's compute capability, as every query of this process will see it."""
    import importlib

    from vllm.platforms import current_platform
    from vllm.platforms.interface import DeviceCapability

    gpu.capability = tuple(int(x) for x in cc.split("."))
    type(current_platform).get_device_capability = classmethod(
        lambda cls, device_id=0: DeviceCapability(*gpu.capability))
    for mod, names in (("vllm.platforms.cuda", ("_get_backend_priorities",)),
                       ("vllm.utils.flashinfer", ("supports_trtllm_attention", "_force_use_trtllm_attention")),
                       ("vllm.attention.selector", ("_cached_get_attn_backend",)),
                       ("vllm.v1.attention.selector", ("_cached_get_attn_backend",))):
        try:
            m = importlib.import_module(mod)
        except ImportError:
            continue
        for n in names:
            fn: Any = getattr(m, n, None)
            if hasattr(fn, "cache_clear"):
                fn.cache_clear()


def _run_selector(case, gpu):
    from vllm.config import VllmConfig

    try:
        from vllm.config import set_current_vllm_config
    except ImportError:  # pragma: no cover
        from vllm.config.vllm import set_current_vllm_config
    from vllm.config import CacheConfig

    # the engine's config is current while the worker selects backends: its KV-cache dtype is read
    with set_current_vllm_config(VllmConfig(cache_config=CacheConfig(cache_dtype=case["kv_cache_dtype"]))):
        return _select_and_support(case, gpu)


def _kv_spec(case, dtype):
    """A real FullAttentionSpec: builders check isinstance(spec, AttentionSpec)."""
    import dataclasses

    from vllm.v1.kv_cache_interface import FullAttentionSpec

    names = {f.name for f in dataclasses.fields(FullAttentionSpec)}
    kw = {"block_size": 16, "num_kv_heads": case["num_kv_heads"], "head_size": case["head_size"], "dtype": dtype}
    if "use_mla" in names:
        kw["use_mla"] = case["use_mla"]
    return FullAttentionSpec(**{k: v for k, v in kw.items() if k in names})


def _select_and_support(case, gpu):
    import importlib
    import inspect
    import types

    import torch
    from vllm.platforms import current_platform

    _fake_capability(gpu, case["cc"])
    fi: Any = importlib.import_module("vllm.utils.flashinfer")  # patched: its helpers vary by release
    fi.has_nvidia_artifactory = lambda: case["trtllm_kernels"]
    if hasattr(fi, "has_flashinfer_cubin"):
        fi.has_flashinfer_cubin = lambda: case["trtllm_kernels"]
    Enum = _backend_enum()
    selected = Enum[case["selected"]] if case["selected"] else None
    fields = {"head_size": case["head_size"], "dtype": getattr(torch, case["dtype"]),
              "kv_cache_dtype": case["kv_cache_dtype"], "block_size": None, "use_mla": case["use_mla"],
              "has_sink": case.get("has_sink", False), "use_sparse": case.get("use_sparse", False)}
    fn = type(current_platform).get_attn_backend_cls
    params = inspect.signature(fn).parameters
    if "attn_selector_config" in params:
        sel_mod: Any = None
        for sel_name in ("vllm.v1.attention.selector", "vllm.attention.selector"):
            try:
                sel_mod = importlib.import_module(sel_name)
                if hasattr(sel_mod, "AttentionSelectorConfig"):
                    break
            except ImportError:
                continue
        Cfg = sel_mod.AttentionSelectorConfig
        cfg = Cfg(**{k: v for k, v in fields.items() if k in Cfg._fields})
        kwargs = {}
        if "num_heads" in params:
            kwargs["num_heads"] = case["num_heads"]
        path = fn(selected, cfg, **kwargs)
    else:
        path = fn(selected, **{k: v for k, v in fields.items() if k in params})
    mod_name, _, cls_name = path.rpartition(".")
    mod = importlib.import_module(mod_name)
    if cls_name == "FlashAttentionBackend":  # its support is a class attribute set at import
        mod = importlib.reload(mod)
    backend = getattr(mod, cls_name)
    builder = backend.get_builder_cls()
    model_config = types.SimpleNamespace(get_num_attention_heads=lambda pc: case["num_heads"],
                                         get_num_kv_heads=lambda pc: case["num_kv_heads"],
                                         get_head_size=lambda: case["head_size"], dtype=fields["dtype"],
                                         use_mla=case["use_mla"], is_encoder_decoder=False)
    try:
        from vllm.config import AttentionConfig

        attention_config = AttentionConfig()
    except ImportError:
        attention_config = None
    vllm_config = types.SimpleNamespace(
        model_config=model_config, parallel_config=types.SimpleNamespace(
            decode_context_parallel_size=1, tensor_parallel_size=1, prefill_context_parallel_size=1),
        cache_config=types.SimpleNamespace(cache_dtype=case["kv_cache_dtype"]),
        speculative_config=None, attention_config=attention_config)
    spec = _kv_spec(case, fields["dtype"])
    try:
        support = builder.get_cudagraph_support(vllm_config, spec).name
        support_error = None
    except Exception as e:  # noqa: BLE001 - recorded: our stand-in config lacked what it reads
        support, support_error = None, f"{type(e).__name__}: {e}"
    return {"backend": backend.get_name() if hasattr(backend, "get_name") else cls_name,
            "backend_class": cls_name, "path": path, "support": support, "support_error": support_error}


# ---------------------------------------------------------------- driver
def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("version")
    ap.add_argument("--oracle", required=False)
    ap.add_argument("--n", type=int, default=240)
    ap.add_argument("--kinds", default="lowering,selector")
    ap.add_argument("-o", "--out")
    ap.add_argument("--probe", nargs=3, metavar=("CASES", "OUT", "ORACLE"))
    a = ap.parse_args(argv)
    if a.probe:
        _probe(*a.probe)
        return 0
    home = os.environ.get("VLLM_ORACLE_HOME", os.path.expanduser("~/vllm-oracle"))
    py = os.path.join(home, f"venv-{a.version}", "bin", "python")
    seed = sum(ord(c) for c in a.version)
    resolver = _uses_resolver(a.version)
    cases = []
    if "lowering" in a.kinds:
        cases += lowering_cases(a.n, seed, resolver)
    if "selector" in a.kinds:
        cases += selector_cases(a.n, seed + 1)
    with tempfile.TemporaryDirectory() as tmp:
        cp = os.path.join(tmp, "cases.jsonl")
        raw = a.out or os.path.join(tmp, "raw.jsonl")
        with open(cp, "w") as f:
            f.writelines(json.dumps(c) + "\n" for c in cases)
        subprocess.run([py, os.path.abspath(__file__), a.version, "--probe", cp, raw, a.oracle], check=True)
        if a.out:
            print(f"recorded {len(cases)} cases -> {raw}")
            return 0
        with open(raw) as f:
            lines = [json.loads(line) for line in f]
    data = Path(__file__).resolve().parent.parent / "tests" / "runtime" / "data"
    for kind in ("lowering", "selector"):
        mine = [ln for ln in lines if ln["case"]["kind"] == kind]
        if not mine:
            continue
        with open(data / f"{kind}-{a.version}.jsonl", "w") as f:
            for ln in mine:
                ln["vllm"].pop("where", None)  # debugging aid, not part of the answer
                ln["vllm"].pop("info", None)
                f.write(json.dumps(ln) + "\n")
        print(f"recorded {len(mine)} {kind} cases -> {data / f'{kind}-{a.version}.jsonl'}")
    return 0


def _uses_resolver(version: str) -> bool:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from vllm_preflight.releases.runtime_rules import runtime_rules

    return runtime_rules(version).resolver


if __name__ == "__main__":
    sys.exit(main())
