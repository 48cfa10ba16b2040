"""CacheConfig (vllm/config/cache.py)."""
