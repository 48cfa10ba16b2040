"""`vllm-preflight confirm`: a vLLM start log held against the prediction.

    lines.py        a log line without its decorations (vLLM's header and process prefix,
                    docker/kubectl/journald/Compose prefixes, ANSI, CR)
    scan.py         one pass over the log's bytes: the lines that matter, hard-wrapped records joined
    starts.py       those lines grouped per engine start (DP ranks of one launch as one start)
    literal.py      Python reprs and JSON read as data, never evaluated (depth and size limits)
    reconstruct.py  the logged arguments back to `vllm serve` words; logged values in the
                    resolver's shapes
    compare.py      one start against `check`'s resolution: per setting, and the runtime stage
    render.py       text, json, concise
    record.py       `--record DIR`: verify records that `matrix --records` reads
    command.py      the click command and its exit codes
"""
