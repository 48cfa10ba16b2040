"""ParallelConfig (vllm/config/parallel.py)."""
