from support import EXAMPLES, INPUTS, ROOT, by_source, in_root, inputs, recorded, rel  # noqa: F401
