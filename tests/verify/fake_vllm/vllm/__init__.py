"""Stand-in for vLLM 0.13.0 (tests only): see ../README.md."""
__version__ = "0.13.0"
