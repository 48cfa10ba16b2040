"""Which files an input may make the tool read (README "Limits and hostile input").

`check` runs on files other people write, so an input must not be able to make it read (and
then quote) a file of the machine. A file whose text the tool parses as options or shell (a
`--config` YAML, a `source`d script, a deployment file's `from:`), when an input file names
it, is read only if its real path (links resolved) lies inside that input's folder tree —
the named folder, or for a named file the folder it is in — or inside a folder the user
allowed (`--allow-path DIR`, `allow-path` in the project config). The words a user types on
the tool's own command line (`check -- vllm serve ... --config x.yaml`) are the user's own:
what they name is read. Model folders are not confined (vLLM reads them wherever they are);
only their config.json is read, and only for model facts.

The confinement of the input being loaded is context state (set by `load.load_paths` around
each input), so the readers deep inside the loaders ask `current()` instead of every loader
passing it along. Without one (a loader called on its own), a file is confined to its own
folder: the safe default.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass

ALLOW_HINT = "pass --allow-path DIR (or list DIR under allow-path in the project config) to read it"


@dataclass(frozen=True)
class Confinement:
    """Real folder paths an input may read below; `roots` None: anything (the user's own words)."""

    roots: tuple[str, ...] | None
    tree: str = ""  # the input's own folder tree, as shown in messages

    def allows(self, path: str) -> bool:
        if self.roots is None:
            return True
        real = os.path.realpath(path)
        return any(inside(real, root) for root in self.roots)

    @property
    def user_words(self) -> bool:
        return self.roots is None

    def refusal(self) -> str:
        """Why a file was not read, and how to allow it."""
        return f"not read: it lies outside the folder tree of its input ({self.tree}); {ALLOW_HINT}"


def inside(real: str, root: str) -> bool:
    """Whether the real path `real` is `root` or below it (both absolute, links resolved)."""
    return real == root or real.startswith(root if root.endswith(os.sep) else root + os.sep)


_CURRENT: ContextVar[Confinement | None] = ContextVar("vllm_preflight_confinement", default=None)


def real_roots(paths: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(os.path.realpath(os.path.abspath(p)) for p in paths))


def active() -> Confinement | None:
    return _CURRENT.get()


def current(base_dir: str | None) -> Confinement:
    """The confinement of the input being loaded; without one, the folder `base_dir`."""
    got = _CURRENT.get()
    if got is not None:
        return got
    try:
        tree = base_dir or os.getcwd()
    except OSError:  # no working folder (deleted): nothing is below it
        return Confinement((), "the working folder")
    return Confinement(real_roots([tree]), _shown(tree))


@contextlib.contextmanager
def _active(conf: Confinement) -> Iterator[Confinement]:
    token = _CURRENT.set(conf)
    try:
        yield conf
    finally:
        _CURRENT.reset(token)


def within(tree: str, allowed: Sequence[str] = ()) -> contextlib.AbstractContextManager[Confinement]:
    """Confine reads while one input is loaded: its folder tree, plus the allowed folders."""
    return _active(Confinement(real_roots([tree, *allowed]), _shown(tree)))


def user_words() -> contextlib.AbstractContextManager[Confinement]:
    """The user's own command line: every file it names is read."""
    return _active(Confinement(None, ""))


@contextlib.contextmanager
def default_for(path: str) -> Iterator[None]:
    """Confine to `path`'s folder unless a confinement is already active (a loader called directly)."""
    if _CURRENT.get() is not None:
        yield
        return
    with within(os.path.dirname(os.path.abspath(path))):
        yield


def tree_of(path: str, is_dir: bool) -> str:
    """The folder tree of a named input: the folder itself, or the folder a file is in."""
    if is_dir:
        return path
    return os.path.dirname(os.path.abspath(path)) or os.sep


def _shown(path: str) -> str:
    """A folder as messages show it: relative to the working folder when below it, with a `/`."""
    try:
        rel = os.path.relpath(path) if os.path.isabs(path) else path
    except (OSError, ValueError):  # no working folder (deleted), another drive
        rel = path
    shown = path if rel.startswith("..") else rel
    return shown if shown.endswith(os.sep) else shown + os.sep
