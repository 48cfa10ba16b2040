"""Renderers over Resolutions: they never compute, only show what the resolver recorded."""
