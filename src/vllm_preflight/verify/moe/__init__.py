"""What runs behind the toy's `moe_forward`: a dense reference and the DeepEP high-throughput
protocol (emulated in one process, across processes with torch.distributed, or real deep_ep)."""
