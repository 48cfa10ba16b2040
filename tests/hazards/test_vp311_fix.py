"""VP311's fix is release-aware: the rename it suggests is resolved on the finding's release and
found clean (no refusal, no VP311), and the SP / async-TP successors (enable_sp, fuse_gemm_comms)
are named with the release that rejects them in turn (0.32.0: PassConfig has no such field,
releases/changes.py `sp_name` / `async_tp_name` None; config/compilation.py 0.31.0 vs 0.32.0)."""
from __future__ import annotations

from cli_support import run_check


def _vp311(tmp_path, command: str, version: str = "0.12.0") -> str:
    script = tmp_path / "serve.sh"
    script.write_text(command + "\n")
    out = run_check(str(script), "--vllm-version", version).out
    lines = [ln for ln in out.splitlines() if "VP311" in ln]
    assert len(lines) == 1, out
    return lines[0]


def test_rename_fix_is_checked_and_names_where_sp_goes(tmp_path):
    line = _vp311(tmp_path, "vllm serve Qwen/Qwen3-0.6B -tp 2 -cc.pass_config.enable_sequence_parallelism=true")
    assert "Fix (resolved on vLLM 0.12.0: starts, no VP311): rename enable_sequence_parallelism -> enable_sp" in line
    assert "(enable_sp: rejected in turn from vLLM 0.32.0, which has no such pass; drop the key there)" in line


def test_rename_fix_for_fusion_names_has_no_later_caveat(tmp_path):
    line = _vp311(tmp_path, "vllm serve Qwen/Qwen3-0.6B -cc.pass_config.enable_noop=true "
                            "-cc.pass_config.enable_fusion=true")
    assert line.endswith("rename enable_noop -> eliminate_noops, enable_fusion -> fuse_norm_quant + fuse_act_quant")


def test_json_compilation_config_is_renamed_too(tmp_path):
    line = _vp311(tmp_path, "vllm serve Qwen/Qwen3-0.6B -tp 2 --compilation-config "
                            "'{\"pass_config\": {\"enable_async_tp\": true}}'")
    assert "rename enable_async_tp -> fuse_gemm_comms (fuse_gemm_comms: rejected in turn from vLLM 0.32.0" in line
