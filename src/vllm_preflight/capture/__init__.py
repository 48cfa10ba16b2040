"""Which CUDA graphs vLLM captures for a resolved config: the plan `check` (hazards) and
`verify` both tell their story from. Pure Python over a resolved dict; no torch."""
