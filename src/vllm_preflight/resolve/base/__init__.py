"""Below every stage: the resolver's state and Refusal, pydantic's errors and lax coercions, the
recorded value facts and config classes, Field bounds, the compilation and CUDA-graph mode enums.
Nothing here imports a stage."""
