from support import EXAMPLES, ROOT, in_root  # noqa: F401
