"""Files shapemill writes: atomically, and checked before the work that makes them."""

from __future__ import annotations

import errno
import os
import shutil
import stat
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
    with atomic_paths(path) as (tmp,):
        yield tmp


@contextmanager
def atomic_paths(*paths: str | os.PathLike) -> Iterator[tuple[Path, ...]]:
    """:func:`atomic_path` for the outputs of one command together: every file is
    written to its temporary path first and only then are all renamed into place, so a
    failure (a full disk on the second) leaves every previous file intact.

    A path that is a device, a pipe or a FIFO (``/dev/null``) is never renamed over: its
    temporary file (in the system's temporary folder) is copied into it at the end. A
    symbolic link is written through: the temporary file goes beside its target, which
    it replaces (:func:`output_target`)."""
    for path in paths:
        check_utf8_name(path)
    plain = [output_target(p) for p in paths]
    special = [is_special(path) for path in plain]
    temps: list[Path] = []
    try:
        for path, through in zip(plain, special):
            if not through:
                path.parent.mkdir(parents=True, exist_ok=True)
            # beside the file, so that the rename stays on its file system; a special
            # file's folder (/dev) may not be writable, and its temporary file is copied
            fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=None if through else path.parent)
            os.close(fd)
            temps.append(Path(name))
            os.chmod(name, 0o666 & ~umask())  # mkstemp makes the file private: give it the usual mode
        yield tuple(temps)
        for tmp, path, through in zip(temps, plain, special):
            if not through:
                os.replace(tmp, path)
        for tmp, path, through in zip(temps, plain, special):
            if through:  # written through: a writer may need to seek, which a pipe cannot
                with open(tmp, "rb") as src, open(path, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                tmp.unlink()
    except BaseException:
        for tmp in temps:
            tmp.unlink(missing_ok=True)
        raise


def is_special(path: str | os.PathLike) -> bool:
    """Whether ``path`` exists and is neither a regular file nor a folder: a device,
    a FIFO, a socket (written through, never replaced; refused as input)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def display_name(path: str | os.PathLike) -> str:
    """``path`` as text any table or terminal takes: a name that is not UTF-8 (Python
    holds its bytes as surrogates, which Parquet and a UTF-8 stream refuse) shows its
    bad bytes as ``\\xff``."""
    return os.fsencode(path).decode("utf-8", errors="backslashreplace")


def output_target(path: str | os.PathLike) -> Path:
    """The file an output ``path`` names: itself, or where its chain of symbolic links
    ends, written through as ``cp`` and editors do (the link stays a link); a loop, or a
    chain that ends at no file, is refused in one line. The same for an output folder (a
    dataset, match's games, rate's work folder): what is written goes to the target."""
    p = Path(path)
    if not p.is_symlink():
        return p
    try:
        return Path(os.path.realpath(p, strict=True))
    except OSError as exc:
        why = ("a loop of symbolic links" if exc.errno == errno.ELOOP
               else "a symbolic link to no file (dangling)" if isinstance(exc, FileNotFoundError)
               else f"a symbolic link that cannot be followed ({exc.strerror or exc})")
        raise ShapemillError(f"{display_name(path)}: {why}; not writing through it") from None


def check_utf8_name(path: str | os.PathLike) -> None:
    """Refuse to write ``path`` when its name is not UTF-8 (pyarrow, the tables' writer,
    takes UTF-8 paths only): one line naming it, before any work."""
    try:
        os.fspath(path).encode("utf-8")
    except UnicodeEncodeError:
        raise ShapemillError(f"{display_name(path)}: the name is not UTF-8; give the output a UTF-8 name") from None


def special_kind(path: str | os.PathLike) -> str:
    """What a special file ``path`` is, in a word or two, for messages."""
    mode = os.stat(path).st_mode
    return ("a FIFO" if stat.S_ISFIFO(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file")


def check_distinct(inputs: list[str | os.PathLike], outputs: list[str | os.PathLike | None]) -> None:
    """Raise :class:`ShapemillError` when an output is one of the inputs, or two outputs
    are one file (the same file by any path: links, ``..``): writing it would lose the
    input, or one output, while the command still said it succeeded."""
    seen: list[tuple[str, tuple]] = []
    for name in inputs:
        seen.append((f"the input {name}", _identity(name)))
    for name in outputs:
        if name is None:
            continue
        ident = _identity(name)
        for what, other in seen:
            if ident == other and not is_special(name):
                raise ShapemillError(f"{name}: the output is {what}; not overwriting it (give another path)")
        seen.append((f"another output ({name})", ident))


def _identity(path: str | os.PathLike) -> tuple:
    """The file at ``path``: its device and inode when it exists, else its resolved path."""
    try:
        st = os.stat(path)
        return ("inode", st.st_dev, st.st_ino)
    except OSError:
        return ("path", os.path.realpath(path))


def read_bounded(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them: a FIFO or a
    device (``/dev/zero``), which may never end, and a longer file raise OSError."""
    # O_NONBLOCK: opening a FIFO waits for a writer; a regular file ignores the flag
    with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
        mode = os.fstat(f.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, f"{special_kind(path)}, not a regular file", str(path))
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
    return data


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def check_writable(path: str | os.PathLike, folder: bool = False) -> None:
    """Raise OSError now if ``path`` cannot be written (rather than after the work);
    ``folder``: ``path`` is a dataset folder, to be created beside its parent's files."""
    check_utf8_name(path)
    p = output_target(path)
    if is_special(p):
        if not os.access(p, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(p))
        return
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
