"""Renderers of a matrix: they draw a `table.Table` (or the unfolded rows), never compute."""
