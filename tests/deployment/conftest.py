from cli_support import work  # noqa: F401
