"""`vllm serve`'s front door (vllm/entrypoints/cli/serve.py and the API server's argument checks):
the server command and what the serve entry point checks around the engine config."""
