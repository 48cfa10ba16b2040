from vllm_preflight.cli import main

main()
