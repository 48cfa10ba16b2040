from hsupport import good  # noqa: F401  (fixture)
