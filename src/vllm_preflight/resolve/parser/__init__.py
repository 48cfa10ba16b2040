"""The parser (vllm/utils/argparse_utils.py FlexibleArgumentParser, vllm/engine/arg_utils.py
add_cli_args): the release's option table, its converters, and the pydantic validation of
JSON-typed options as argparse reads them."""
