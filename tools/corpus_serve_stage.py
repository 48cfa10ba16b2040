"""The `serve_stage` model family (tools/corpus_model_families.py): what `vllm serve` itself
refuses around the engine config (src/vllm_preflight/resolve/serve/serve.py). Recorded with
`tools/record_serve_stage.py VERSION --oracle DIR` (real `vllm serve` entry code, nothing bound
or spawned); goldens: tests/golden/data/model_families/serve_stage/VERSION.jsonl."""
from __future__ import annotations

import json

Pool = list[tuple[str, list[str], dict]]


def serve_stage(v: tuple) -> Pool:
    """`vllm serve`'s own front door around the engine config: --enable-auto-tool-choice with
    registered, misspelt, miscased and empty tool-call parser names, log flags that need another,
    a structured-outputs reasoning parser, --headless with --api-server-count and data parallel
    options, API-server counts (explicit, and 0.15.0+'s default from -dp / hybrid LB) with
    VLLM_ALLOW_RUNTIME_LORA_UPDATING, the load-balancing mode conflicts, and per release the
    multi-port external LB (0.22.0+), per-request metrics (0.25.0+), SSE keep-alive (0.29.0+),
    the gRPC port (0.32.0+) and the reasoning-effort map (0.33.0+)."""
    from vllm_preflight.releases import get_release
    from vllm_preflight.resolve.serve.serve import registered

    version = get_release(".".join(map(str, v))).version
    tools = registered(version, "tool") or []
    reasoning = registered(version, "reasoning") or []
    dense, moe = "llama-dense", "mixtral-moe"
    auto = "--enable-auto-tool-choice"
    pool: Pool = []
    # tool-call parsers: every fifth registered name, the usual ones, and misspellings
    valid = tools[::5] + [n for n in ("hermes", "llama3_json", "mistral", "pythonic", "qwen3_coder", "openai")
                          if n in tools and n not in tools[::5]]
    for n in valid:
        pool.append((dense, [auto, "--tool-call-parser", n], {}))
    for n in ("Hermes", "hermes2", "llama3-json", "qwen3coder", "bogus", "MISTRAL", "granite_20b_fc"):
        pool.append((dense, [auto, "--tool-call-parser", n], {}))
    pool += [(dense, [auto], {}), (dense, [auto, "--tool-call-parser", ""], {}),
             (dense, ["--tool-call-parser", "bogus"], {}), (dense, ["--tool-call-parser", "hermes"], {}),
             (dense, [auto, "--tool-call-parser", "bogus", "--headless"], {}),
             (moe, [auto, "--tool-call-parser", "bogus", "--api-server-count", "2"], {}),
             (dense, [auto, "--tool-call-parser", "bogus", "--enable-log-outputs"], {}),
             (dense, ["--chat-template", "{{ messages }}", auto, "--tool-call-parser", "hermes"], {})]
    # log flags
    pool += [(dense, ["--enable-log-outputs"], {}), (dense, ["--enable-log-outputs", "--enable-log-requests"], {}),
             (dense, ["--enable-log-requests"], {})]
    # a reasoning parser in the structured-outputs config (validate_api_server_args)
    so = "--structured-outputs-config"
    for n in (reasoning[:1] + ["bogus", "DeepSeek_R1"]):
        pool.append((dense, [so, json.dumps({"reasoning_parser": n})], {}))
    pool.append((dense, [so, json.dumps({"reasoning_parser": "bogus"}), "--headless"], {}))
    # headless, API-server counts, load-balancing modes
    lora = {"VLLM_ALLOW_RUNTIME_LORA_UPDATING": "1"}
    pool += [(dense, ["--headless"], {}), (dense, ["--headless", "--api-server-count", "2"], {}),
             (dense, ["--headless", "--api-server-count", "1"], {}),
             (dense, ["--headless", "--api-server-count", "0"], {}),
             (dense, ["--api-server-count", "0"], {}), (moe, ["--headless", "-dp", "2"], {}),
             (moe, ["--headless", "-dp", "2", "--data-parallel-hybrid-lb", "-dpl", "1"], {}),
             (moe, ["--headless", "-dp", "4", "-dpl", "2", "--data-parallel-start-rank", "2"], {}),
             (moe, ["--headless", "-dp", "2", "-dpl", "0"], {}),
             (dense, ["--api-server-count", "2"], lora), (dense, ["--api-server-count", "2"], {}),
             (dense, ["--api-server-count", "2"], {"VLLM_ALLOW_RUNTIME_LORA_UPDATING": "True"}),
             (dense, ["--api-server-count", "2"], {"VLLM_ALLOW_RUNTIME_LORA_UPDATING": "0"}),
             (dense, ["--api-server-count", "2"], {"VLLM_ALLOW_RUNTIME_LORA_UPDATING": "yes"}),
             (dense, ["--api-server-count", "1"], lora), (dense, [], lora), (dense, ["--headless"], lora),
             (moe, ["-dp", "2"], lora), (moe, ["-dp", "2"], {}), (moe, ["-dp", "2", "--api-server-count", "1"], lora),
             (moe, ["-dp", "2", "--data-parallel-rank", "0"], lora),
             (moe, ["-dp", "4", "-dpl", "2", "--data-parallel-hybrid-lb"], lora),
             (moe, ["-dp", "4", "-dpl", "2", "--data-parallel-start-rank", "0"], lora),
             (moe, ["-dp", "2", "--data-parallel-rank", "0", "--data-parallel-hybrid-lb"], {}),
             (moe, ["-dp", "4", "-dpl", "2", "--data-parallel-rank", "1", "--data-parallel-start-rank", "2"], {}),
             (moe, ["-dp", "2", "--data-parallel-external-lb", "--data-parallel-hybrid-lb"], {}),
             (moe, ["-dp", "2", "--headless", "--data-parallel-rank", "1"], {})]
    if v < (0, 11, 1):  # the V0 engine, last in 0.11.0: no headless mode, a single API server
        v0 = {"VLLM_USE_V1": "0"}
        pool += [(dense, ["--headless"], v0), (dense, ["--api-server-count", "2"], v0)]
    if (0, 17, 0) <= v < (0, 18, 0):  # 0.17.x: GPU pooling scores with one API server only
        pool += [(dense, ["--use-gpu-for-pooling-score", "--api-server-count", "2"], {}),
                 (moe, ["--use-gpu-for-pooling-score", "-dp", "2"], {}), (dense, ["--use-gpu-for-pooling-score"], {})]
    if v >= (0, 19, 0):  # elastic EP caps the API servers at one (ParallelConfig wants EPLB, sync from 0.33.0)
        pool.append((moe, ["-dp", "2", "--enable-expert-parallel", "--enable-eplb", "--enable-elastic-ep",
                           "--eplb-config", '{"use_async": false}'], lora))
    if v >= (0, 22, 0):
        mp = "--data-parallel-multi-port-external-lb"
        pool += [(moe, ["-dp", "4", "-dpl", "2", mp], {}), (moe, ["-dp", "4", mp], {}), (moe, [mp], {}),
                 (moe, ["-dp", "4", "-dpl", "2", mp, "--api-server-count", "2"], {}),
                 (moe, ["-dp", "4", "-dpl", "2", mp, "--data-parallel-rank", "0"], {}),
                 (moe, ["-dp", "4", "-dpl", "2", mp, "--data-parallel-hybrid-lb"], {}),
                 (moe, ["-dp", "4", "-dpl", "3", mp], {}), (moe, ["-dp", "2", "-dpl", "4", mp], {}),
                 (moe, ["-dp", "4", "-dpl", "2", mp, "--data-parallel-start-rank", "4"], {}),
                 (moe, ["-dp", "4", "-dpl", "2", mp, "--port", "9255"], {}),
                 (moe, ["-dp", "4", "-dpl", "2", mp, "--uds", "x.sock"], {}),
                 (moe, ["-dp", "4", "-dpl", "2", mp, "--ssl-keyfile", "k.pem"], {}),
                 (moe, ["-dp", "4", "-dpl", "2", mp, "--data-parallel-external-lb"], {})]
    if v >= (0, 25, 0):
        pool += [(dense, ["--enable-per-request-metrics", "--disable-log-stats"], {}),
                 (dense, ["--enable-per-request-metrics"], {})]
    if v >= (0, 29, 0):
        pool += [(dense, ["--sse-keep-alive-interval", "-1"], {}), (dense, ["--sse-keep-alive-interval", "0"], {}),
                 (dense, ["--sse-keep-alive-interval", "15"], {})]
    if v >= (0, 32, 0):
        pool += [(dense, ["--grpc-port", "50051"], {}), (dense, ["--grpc-port", "50051", "--grpc"], {})]
    if v >= (0, 33, 0):
        rem = "--reasoning-effort-map"
        pool += [(dense, [rem, '{"low": "minimal", "high": "max"}'], {}), (dense, [rem, '{"turbo": "high"}'], {}),
                 (dense, [rem, '{"low": 1}'], {}), (dense, [rem, '["low"]'], {})]
    return pool
