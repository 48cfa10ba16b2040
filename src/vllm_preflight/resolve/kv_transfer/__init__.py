"""KVTransferConfig (vllm/config/kv_transfer.py)."""
