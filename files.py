"""Files shapemill writes: atomically, and checked before the work that makes them."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import ShapemillError


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on a clean exit it is renamed over
    ``path``, on any exception removed: a reader never sees a half-written file and an
    interrupted write leaves the previous file intact."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    os.chmod(tmp, 0o666 & ~umask())  # mkstemp makes the file private: give it the usual mode
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def check_writable(path: str | os.PathLike, folder: bool = False) -> None:
    """Raise OSError now if ``path`` cannot be written (rather than after the work);
    ``folder``: ``path`` is a dataset folder, to be created beside its parent's files."""
    p = Path(path)
    if p.is_dir() and not folder:
        raise IsADirectoryError(f"{p}: is a folder (use --partition-size to write a partitioned dataset)")
    parent = p.parent
    parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".check", dir=parent)
    os.close(fd)
    os.unlink(tmp)


@contextmanager
def output_errors(path: str | os.PathLike) -> Iterator[None]:
    """Turn an ``OSError`` met while checking or writing ``path`` (no permission, a
    full disk, ...) into a one-line :class:`ShapemillError` naming the file."""
    try:
        yield
    except OSError as exc:
        raise ShapemillError(f"cannot write {path}: {exc.strerror or exc}") from None


def umask() -> int:
    """The process's file-mode creation mask."""
    umask = os.umask(0)
    os.umask(umask)
    return umask
