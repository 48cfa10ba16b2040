"""vllm-preflight: what vLLM will actually run for a deployment, before a GPU is booked."""

__version__ = "0.1.0"
