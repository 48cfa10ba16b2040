"""A YAML stream read one document at a time: one bad document does not sink the others.

A plain stream is parsed whole (`yaml_marks.parse_documents`). When that fails, or when the
text holds template actions (`load.templates`), each document (split at its `---` line) is
parsed alone, at its own lines: those that parse are read, each that does not is one
failure with its line. Only a stream none of whose documents parses is an input error.
"""
from __future__ import annotations

import re
from itertools import pairwise

import yaml

from vllm_preflight.errors import InputError, InputFailure
from vllm_preflight.load.source import Source
from vllm_preflight.load.templates import detemplate
from vllm_preflight.load.yaml_marks import YamlDoc, parse_documents
from vllm_preflight.model import Location

_START = re.compile(r"^---(?=[ \t]|$)", re.MULTILINE)


def parse_stream(source: Source, *, templates: bool = True
                 ) -> tuple[list[YamlDoc], list[tuple[int, InputError]]]:
    """The documents that parse, and (first line, InputError) for each that does not (in
    document order). With `templates`, `{{ ... }}` actions are read as placeholders."""
    templated = templates and "{{" in source.text
    if not templated:
        try:
            return parse_documents(source), []
        except InputFailure as whole:
            if not _START.search(source.text):
                raise  # a single document: nothing to save
            first_error = whole
    else:
        first_error = None
    text_source = detemplate(source) if templated else source
    docs: list[YamlDoc] = []
    failures: list[tuple[int, InputError]] = []
    bounds = [0] + [m.start() for m in _START.finditer(text_source.text)] + [len(text_source.text)]
    line = 0
    for a, b in pairwise(bounds):
        if b <= a:
            continue
        chunk = text_source.text[a:b]
        try:
            found = parse_documents(Source(source.path, chunk))
        except InputFailure as e:
            loc = e.error.location
            shifted = InputError(source.path, e.error.message,
                                 Location(loc.file, (loc.line or 1) + line, loc.column) if loc else None)
            failures.append((line + 1 + len(chunk) - len(chunk.lstrip("\n")), shifted))
            docs.append(YamlDoc(text_source, len(docs), None))  # keeps the numbering of the others
        else:
            for doc in found:
                shift_lines(doc, line)
                doc.source, doc.index = text_source, len(docs)
                docs.append(doc)
        line += chunk.count("\n")
    if not any(d.data is not None for d in docs) and failures:
        if first_error is not None:
            raise first_error
        raise InputFailure(failures[0][1])
    return docs, failures


def shift_lines(doc: YamlDoc, lines: int) -> None:
    """Marks of a document parsed alone, moved to its lines in the stream."""
    if not lines:
        return
    done: set[int] = set()
    for node in list(doc.nodes.values()) + list(doc.key_nodes.values()):
        if node is None or id(node) in done:
            continue
        done.add(id(node))
        node.start_mark = _moved(node.start_mark, lines)
        node.end_mark = _moved(node.end_mark, lines)


def _moved(mark, lines: int):
    return yaml.error.Mark(mark.name, mark.index, mark.line + lines, mark.column, None, 0)
