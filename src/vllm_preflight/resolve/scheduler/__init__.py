"""SchedulerConfig (vllm/config/scheduler.py)."""
