"""`vllm-preflight verify`: prove on this machine that the CUDA graphs a resolved config implies
compute what eager mode computes (or show where they cannot).

torch is imported only by the modules of this package that need it, and never at import of this
package or of `command`, so that `vllm-preflight check` and `--help` stay fast and work without torch.

Pipeline: resolved settings -> plan (`capture/plan.py`, pure Python, shared with `check`) -> toy model traced and split as vLLM
splits it (`trace.py`, `split.py`) -> static checks on the split graph (`static_checks.py`) ->
the tier's run-time checks (`tiers/`) and negative controls (`controls.py`) -> one record
(`record.py`, validated by `result.schema.json`) -> text or JSON (`render.py`).
"""
