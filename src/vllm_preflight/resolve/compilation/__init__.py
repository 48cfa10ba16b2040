"""CompilationConfig / PassConfig (vllm/config/compilation.py)."""
