"""YAML loaded safely, with the line and column of every node kept.

Only plain YAML is read: the safe constructor builds scalars, so `!!python/...` and other
unknown tags are an error, never an object. Merge keys (`<<: *base`) are flattened as PyYAML
does. Aliases are expanded with a node budget (an "alias bomb" is an error, not a hang). Each document keeps a map from its JSON path
(a tuple of keys and indices) to the YAML node, so loaders can place what they find, and
`ScalarText` maps offsets inside a scalar back to the file (block scalars exactly, one-line
scalars by column, folded or multi-line flow scalars at their start).
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

import yaml

from vllm_preflight.load.source import Source, fail
from vllm_preflight.model import Location

Path = tuple  # of str | int
NODE_BUDGET = 200_000
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE = "tag:yaml.org,2002:merge"


class _TooBig(Exception):
    pass


@dataclass
class YamlDoc:
    """One YAML document: its plain data and the node behind every path."""

    source: Source
    index: int
    data: Any
    nodes: dict = field(default_factory=dict)  # path -> value node
    key_nodes: dict = field(default_factory=dict)  # path -> key node (mappings only)

    def location(self, path: Path, *, key: bool = False) -> Location:
        node = (self.key_nodes.get(path) if key else None) or self.nodes.get(path)
        while node is None and path:
            path = path[:-1]
            node = self.nodes.get(path)
        if node is None:
            return Location(self.source.path, 1, 1)
        return Location(self.source.path, node.start_mark.line + 1, node.start_mark.column + 1)

    def scalar_text(self, path: Path) -> ScalarText:
        return ScalarText(self.source, self.nodes.get(path))


class ScalarText:
    """Maps an offset in a scalar's value to its place in the file."""

    def __init__(self, source: Source, node):
        self.source = source
        self.node = node
        self.line_starts: list[tuple[int, int, int]] | None = None  # (value offset, line, col)
        if node is None or not isinstance(node, yaml.ScalarNode):
            return
        style = node.style
        sl, sc = node.start_mark.line, node.start_mark.column
        if style == "|":
            self._literal_block(node)
        elif style == ">":
            self._folded_block(node)
        elif node.end_mark.line == sl and style in (None, "", "'", '"'):
            self.line_starts = [(0, sl + 1, sc + 1 + (1 if style in ("'", '"') else 0))]

    def _literal_block(self, node) -> None:
        text = self.source.text
        first = node.start_mark.line + 1  # 0-based line of the first content line
        lines = text.split("\n")
        indent = None
        for ln in range(first, min(node.end_mark.line + 1, len(lines))):
            raw = lines[ln]
            if raw.strip():
                indent = len(raw) - len(raw.lstrip(" "))
                break
        if indent is None:
            return
        starts = []
        offset = 0
        for k, vline in enumerate(node.value.split("\n")):
            starts.append((offset, first + k + 1, indent + 1))
            offset += len(vline) + 1
        self.line_starts = starts

    def _folded_block(self, node) -> None:
        """`>` scalars: plain lines joined by one space (checked against the value)."""
        lines = self.source.text.split("\n")
        first = node.start_mark.line + 1
        content = []
        indent = None
        last = min(node.end_mark.line, len(lines) - 1)
        while last >= first and not lines[last].strip():
            last -= 1
        for ln in range(first, last + 1):
            raw = lines[ln]
            if not raw.strip():
                return  # blank lines fold to newlines: not worth mapping
            if indent is None:
                indent = len(raw) - len(raw.lstrip(" "))
            if len(raw) - len(raw.lstrip(" ")) != indent:
                if raw.strip() and len(raw) - len(raw.lstrip(" ")) < indent:
                    break
                return  # more-indented lines keep their newlines
            content.append((ln, raw[indent:]))
        if indent is None or not content or " ".join(c for _, c in content).rstrip("\n") != node.value.rstrip("\n"):
            return
        starts = []
        offset = 0
        for ln, text in content:
            starts.append((offset, ln + 1, indent + 1))
            offset += len(text) + 1
        self.line_starts = starts

    def location(self, offset: int) -> Location:
        if self.node is None:
            return Location(self.source.path, 1, 1)
        if not self.line_starts:
            return Location(self.source.path, self.node.start_mark.line + 1, self.node.start_mark.column + 1)
        best = self.line_starts[0]
        for entry in self.line_starts:
            if entry[0] <= offset:
                best = entry
            else:
                break
        return Location(self.source.path, best[1], best[2] + offset - best[0])


class _Builder:
    def __init__(self, loader, doc: YamlDoc):
        self.loader = loader
        self.doc = doc
        self.count = 0
        self._flat: dict[int, list] = {}  # id(mapping node) -> its pairs, merges flattened

    def build(self, node, path: Path) -> Any:
        self.count += 1
        if self.count > NODE_BUDGET:
            raise _TooBig()
        self.doc.nodes[path] = node
        if isinstance(node, yaml.ScalarNode):
            return self.loader.construct_object(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            if node.tag not in ("tag:yaml.org,2002:seq",):
                self._unknown_tag(node)
            return [self.build(child, path + (i,)) for i, child in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            if node.tag not in ("tag:yaml.org,2002:map",):
                self._unknown_tag(node)
            # the last value of a key wins, at the place of its first occurrence (PyYAML's dict)
            final: dict = {}
            for key_node, value_node in self._pairs(node):
                final[self._key(key_node)] = (key_node, value_node)
            out: dict = {}
            for key, (key_node, value_node) in final.items():
                self.doc.key_nodes[path + (key,)] = key_node
                out[key] = self.build(value_node, path + (key,))
            return out
        raise yaml.constructor.ConstructorError(None, None, f"unexpected node {node!r}", node.start_mark)

    def _pairs(self, node) -> list:
        """The (key node, value node) pairs of a mapping with its merge keys (`<<: *base`,
        `<<: [*a, *b]`) flattened as PyYAML does: merged pairs first (of a list, the earlier
        mappings win), then the mapping's own; merges inside merged mappings too. Each mapping
        is flattened once (anchors are shared), and the pairs count against the node budget."""
        got = self._flat.get(id(node))
        if got is not None:
            return got
        self._flat[id(node)] = []  # a mapping merging itself (`&a {<<: *a}`) merges nothing more
        merged: list = []
        own: list = []
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE:
                own.append((key_node, value_node))
                continue
            sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            parts = []
            for src in sources:
                if not isinstance(src, yaml.MappingNode) or src.tag != "tag:yaml.org,2002:map":
                    raise yaml.constructor.ConstructorError(
                        None, None, "a merge key `<<` takes a mapping or a list of mappings", src.start_mark)
                parts.append(self._pairs(src))
            for part in reversed(parts):
                merged.extend(part)
        out = merged + own
        self.count += len(merged)
        if self.count > NODE_BUDGET:
            raise _TooBig()
        self._flat[id(node)] = out
        return out

    def _key(self, key_node) -> Any:
        if not isinstance(key_node, yaml.ScalarNode):
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a plain value", key_node.start_mark)
        key = self.loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            key = str(key)
        return key

    def _unknown_tag(self, node) -> None:
        raise yaml.constructor.ConstructorError(
            None, None, f"could not determine a constructor for the tag {node.tag!r}", node.start_mark)


def _problem_place(e: Exception) -> tuple[int | None, int | None]:
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    if mark is None:
        return None, None
    return mark.line + 1, mark.column + 1


def parse_documents(source: Source) -> list[YamlDoc]:
    """All documents of a YAML stream, or InputFailure naming the place of the problem."""
    docs: list[YamlDoc] = []
    loader = _Loader(source.text)
    try:
        while loader.check_node():
            node = loader.get_node()
            doc = YamlDoc(source, len(docs), None)
            if node is not None:
                doc.data = _Builder(loader, doc).build(node, ())
            docs.append(doc)
    except _TooBig:
        fail(source.path, f"YAML expands to more than {NODE_BUDGET} nodes (an alias bomb?); not read")
    except yaml.constructor.ConstructorError as e:
        line, col = _problem_place(e)
        problem = str(e.problem or e)
        if "constructor for the tag" in problem:
            tag = problem.split("tag", 1)[1].strip(" '\"").replace("tag:yaml.org,2002:", "!!")
            problem = f"unsafe or unknown YAML tag {tag}; only plain YAML is read"
        fail(source.path, f"invalid YAML: {problem}", line, col)
    except yaml.YAMLError as e:
        line, col = _problem_place(e)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        context = getattr(e, "context", None)
        msg = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
        fail(source.path, msg, line, col)
    except RecursionError:
        fail(source.path, "YAML nested too deeply; not read")
    except (ValueError, TypeError, OverflowError) as e:  # odd scalars (dates, numbers)
        fail(source.path, f"invalid YAML value: {e}")
    finally:
        with contextlib.suppress(Exception):  # disposal never matters to the result
            loader.dispose()
    return docs
