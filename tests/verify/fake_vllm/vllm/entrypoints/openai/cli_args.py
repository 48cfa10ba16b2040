from vllm.engine.arg_utils import AsyncEngineArgs


def make_arg_parser(parser):
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host")
    return AsyncEngineArgs.add_cli_args(parser)
