"""Where game records come from: SGF files, folders, zip and tar archives.

:func:`plan` turns the PATHs a user gives into work *batches*, each a small
picklable description that :func:`run_batch` (in a worker process or not) turns
into parsed games. Order is deterministic: PATHs in the order given, a folder's
entries sorted by name (recursively), a zip's members sorted by name, a tar's
members in stored order (a compressed tar cannot be read out of order cheaply).

Inside folders and archives, files ending in ``.sgf`` (any case) are read;
archives found in a folder are opened; anything else is reported as
``not-sgf`` (skipped) so that every file is either read or reported. A PATH
named explicitly is read as SGF unless it is a zip or tar archive.

Zip-bomb guard: a member whose declared size exceeds ``max_bytes`` is not read,
and no read takes more than ``max_bytes + 1`` bytes, whatever the header says.
"""

from __future__ import annotations

import os
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ShapemillError
from ..files import display_name, is_special, special_kind
from .records import ScanError

__all__ = ["Batch", "plan", "read_items", "DEFAULT_MAX_BYTES", "InputError"]

#: Largest SGF file or archive member read (10 MB; the largest real game
#: collections are far smaller, while a zip bomb is far larger).
DEFAULT_MAX_BYTES = 10 * 1024 * 1024

BATCH_FILES = 400

_ARCHIVE_SUFFIXES = (".zip", ".tar", ".tgz", ".tar.gz", ".tbz2", ".tar.bz2", ".txz", ".tar.xz")


class InputError(ShapemillError):
    """A PATH that cannot be scanned at all (missing, not readable)."""


@dataclass
class Batch:
    """A unit of work for one worker.

    ``kind``: ``"files"`` (``items`` are (path, display name)), ``"zip"``
    (``archive`` and member names in ``items``) or ``"blobs"`` (``items`` are
    (display name, bytes or a ScanError)). ``skipped`` are errors found while
    planning (reported in order before the batch's games).
    """

    kind: str
    items: list = field(default_factory=list)
    archive: str = ""
    display: str = ""
    skipped: list[ScanError] = field(default_factory=list)


def _is_sgf_name(name: str) -> bool:
    return name.lower().endswith(".sgf")


def _is_archive_name(name: str) -> bool:
    return name.lower().endswith(_ARCHIVE_SUFFIXES)


def _archive_kind(path: Path) -> str | None:
    """``"zip"``, ``"tar"`` or None, by content (the extension can lie)."""
    try:
        if zipfile.is_zipfile(path):
            return "zip"
    except Exception:
        pass
    try:
        if tarfile.is_tarfile(path):
            return "tar"
    except Exception:  # truncated compressed data raises EOFError and others
        pass
    return None


def _skip(display: str, why: str = "not an SGF file or archive (skipped)") -> ScanError:
    return ScanError(display, "not-sgf", f"not-sgf: {why}")


def plan(paths: list[str | os.PathLike], max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[Batch]:
    """Batches of work for ``paths``, in deterministic order.

    Raises :class:`InputError` (before yielding anything) when a PATH does not
    exist.
    """
    roots = [Path(p) for p in paths]
    for p in roots:
        if not p.exists():
            raise InputError(f"{p}: no such file or folder")
    for root in roots:
        if root.is_dir():
            yield from _plan_dir(root, max_bytes)
        else:
            yield from _plan_file(root, display_name(root), max_bytes, explicit=True)


def _plan_dir(root: Path, max_bytes: int) -> Iterator[Batch]:
    pending = Batch("files")

    def unreadable(exc: OSError) -> None:  # a subfolder os.walk cannot list: an errors row, not silence
        folder = display_name(exc.filename or root)
        pending.skipped.append(ScanError(folder, "unreadable", f"unreadable: folder ({exc.strerror or exc})"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            display = display_name(path)
            if is_special(path):  # a FIFO or a device: reading it may never end
                pending.skipped.append(ScanError(display, "unreadable",
                                                 f"unreadable: {special_kind(path)}, not a regular file"))
            elif _is_sgf_name(name):
                pending.items.append((str(path), display))
                if len(pending.items) >= BATCH_FILES:
                    yield pending
                    pending = Batch("files")
            elif _is_archive_name(name):
                if pending.items or pending.skipped:
                    yield pending
                    pending = Batch("files")
                yield from _plan_file(path, display, max_bytes, explicit=False)
            else:
                pending.skipped.append(_skip(display))
    if pending.items or pending.skipped:
        yield pending


def _plan_file(path: Path, display: str, max_bytes: int, explicit: bool) -> Iterator[Batch]:
    kind = None if _is_sgf_name(path.name) else _archive_kind(path)
    if kind == "zip":
        yield from _plan_zip(path, display, max_bytes)
    elif kind == "tar":
        yield from _plan_tar(path, display, max_bytes)
    elif explicit or _is_sgf_name(path.name):
        yield Batch("files", [(str(path), display)])
    else:
        b = Batch("blobs")
        b.items.append((display, ScanError(display, "unreadable", "unreadable: not a readable archive")))
        yield b


def _plan_zip(path: Path, display: str, max_bytes: int) -> Iterator[Batch]:
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
    except Exception as exc:
        b = Batch("blobs")
        b.items.append((display, ScanError(display, "unreadable", f"unreadable: zip archive ({exc})")))
        yield b
        return
    batch = Batch("zip", archive=str(path), display=display)
    for info in sorted(infos, key=lambda i: i.filename):
        if info.is_dir():
            continue
        member = f"{display}!{info.filename}"
        if not _is_sgf_name(info.filename):
            why = "archive inside an archive (skipped)" if _is_archive_name(info.filename) else None
            batch.skipped.append(_skip(member, why) if why else _skip(member))
            continue
        batch.items.append(info.filename)
        if len(batch.items) >= BATCH_FILES:
            yield batch
            batch = Batch("zip", archive=str(path), display=display)
    if batch.items or batch.skipped:
        yield batch


def _plan_tar(path: Path, display: str, max_bytes: int) -> Iterator[Batch]:
    batch = Batch("blobs")
    size = 0
    try:
        with tarfile.open(path, "r:*") as tf:
            for info in tf:
                if info.isdir():
                    continue
                member = f"{display}!{info.name}"
                if not info.isfile():
                    batch.skipped.append(_skip(member, "not a regular file (skipped)"))
                    continue
                if not _is_sgf_name(info.name):
                    why = "archive inside an archive (skipped)" if _is_archive_name(info.name) else None
                    batch.skipped.append(_skip(member, why) if why else _skip(member))
                    continue
                if info.size > max_bytes:
                    batch.items.append((member, _too_large(member, info.size, max_bytes)))
                    continue
                try:
                    f = tf.extractfile(info)
                    data = _read_capped(member, f, max_bytes) if f is not None else b""
                except Exception as exc:
                    data = ScanError(member, "unreadable", f"unreadable: {exc}")
                batch.items.append((member, data))
                size += len(data)
                if len(batch.items) >= BATCH_FILES or size > 8 * 1024 * 1024:
                    yield batch
                    batch = Batch("blobs")
                    size = 0
    except Exception as exc:  # a damaged archive: report it, keep what was read
        batch.items.append((display, ScanError(display, "unreadable", f"unreadable: tar archive ({exc})")))
    if batch.items or batch.skipped:
        yield batch


def _too_large(source: str, size: int, max_bytes: int) -> ScanError:
    return ScanError(
        source, "too-large",
        f"too-large: {'over ' if size > max_bytes else ''}{size:,} bytes, the limit is {max_bytes:,}",
    )


def _read_capped(source: str, f, max_bytes: int) -> bytes | ScanError:
    """At most ``max_bytes`` of ``f``: a file that turns out longer is refused, so a
    size field that lies (a zip bomb) cannot make us read more."""
    data = f.read(max_bytes + 1)
    return _too_large(source, len(data), max_bytes) if len(data) > max_bytes else data


# ---------------------------------------------------------------- reading

_OPEN_ZIPS: dict[str, zipfile.ZipFile] = {}


def _zip(path: str) -> zipfile.ZipFile:
    zf = _OPEN_ZIPS.get(path)
    if zf is None:
        if len(_OPEN_ZIPS) > 4:
            for old in _OPEN_ZIPS.values():
                old.close()
            _OPEN_ZIPS.clear()
        zf = _OPEN_ZIPS[path] = zipfile.ZipFile(path)
    return zf


def read_items(batch: Batch, max_bytes: int) -> Iterator[tuple[str, bytes | ScanError]]:
    """(display name, bytes or the reason it could not be read) per file of a batch."""
    if batch.kind == "files":
        for path, display in batch.items:
            try:
                with open(path, "rb") as f:
                    yield display, _read_capped(display, f, max_bytes)
            except OSError as exc:
                yield display, ScanError(display, "unreadable", f"unreadable: {exc.strerror or exc}")
    elif batch.kind == "zip":
        try:
            zf = _zip(batch.archive)
        except Exception as exc:
            for name in batch.items:
                member = f"{batch.display}!{name}"
                yield member, ScanError(member, "unreadable", f"unreadable: zip archive ({exc})")
            return
        for name in batch.items:
            member = f"{batch.display}!{name}"
            try:
                info = zf.getinfo(name)
                if info.file_size > max_bytes:
                    yield member, _too_large(member, info.file_size, max_bytes)
                    continue
                with zf.open(info) as f:
                    data = _read_capped(member, f, max_bytes)
            except Exception as exc:  # CRC, compression method, encryption, ...
                data = ScanError(member, "unreadable", f"unreadable: {exc}")
            yield member, data
    else:
        yield from batch.items
