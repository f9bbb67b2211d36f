"""Atomic and exclusive writes, strict UTF-8 reads (the writer lock is in `lock.py`).

Standard library only, and only cheap modules: the SessionStart hook imports this
on every session start.
"""

from __future__ import annotations

import errno
import os
import stat

from session_skill.errors import StoreError

# The hook passes plain strings; pathlib alone would cost it a third of Python's start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import TypeVar

    _P = TypeVar("_P", str, Path)

TMP_MARK = ".tmp-"


def tmp_name(path: _P) -> _P:
    """A temp file beside `path`, of the same type (str or Path)."""
    name = f".{os.path.basename(path)}{TMP_MARK}{os.getpid()}-{os.urandom(4).hex()}"
    return type(path)(os.path.join(os.path.dirname(path), name))


def is_tmp_name(name: str) -> bool:
    return name.startswith(".") and TMP_MARK in name


def _write_new(path: str | Path, data: bytes, like: os.stat_result | None = None) -> None:
    """Create `path` (it must not exist, nor be a link), write all of `data`, fsync, close.
    `like`: the file it replaces, whose permissions (and owner, where allowed) it keeps."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        if like is not None:
            os.fchmod(fd, stat.S_IMODE(like.st_mode))  # the umask does not apply
            if (like.st_uid, like.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.fchown(fd, like.st_uid, like.st_gid)
                except OSError:
                    pass  # only root may give a file away
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: _P, data: bytes, *, keep_mode: bool = False) -> None:
    """Write `data` to `path` so that readers see the old file or the new one, never a part.
    `keep_mode`: the file keeps its permissions and owner (a user's settings.json is 0600
    because it holds tokens: the new file was 0644)."""
    tmp = tmp_name(path)
    like = None
    if keep_mode:
        try:
            like = os.stat(path)
        except OSError:
            pass
    try:
        _write_new(tmp, data, like)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(os.path.dirname(path) or ".")


def create_exclusive(path: _P, data: bytes) -> bool:
    """Create `path` holding `data` only if it does not exist yet. False when it exists.

    The content is written to a temp file first and linked into place, so a crash never
    leaves a half-written doc under the final name.
    """
    tmp = tmp_name(path)
    _write_new(tmp, data)
    try:
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV):
                raise
            # Filesystems without hard links: O_EXCL reservation, then replace.
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW))
            except FileExistsError:
                return False
            os.replace(tmp, path)
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    _fsync_dir(os.path.dirname(path) or ".")
    return True


def append_line(path: Path, line: str) -> None:
    """Append one whole line with a single write() (callers hold the store lock)."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
    try:
        # A previous crash may have left a partial last line: start on a fresh line.
        size = os.fstat(fd).st_size
        if size:
            with open(path, "rb") as fh:
                fh.seek(size - 1)
                if fh.read(1) != b"\n":
                    data = b"\n" + data
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_text(path: Path, *, limit: int | None = None, keep_bom: bool = False) -> str:
    """Read a store file as UTF-8, keeping CRLF. A non-UTF-8 file is an error naming it."""
    with open(path, "rb") as fh:
        data = fh.read() if limit is None else fh.read(limit)
    return decode(data, path, keep_bom=keep_bom)


def read_upto(fd: int, limit: int | None, chunk: int = 65536) -> bytes:
    """Up to `limit` bytes of `fd` (None: to its end), as a file object's read(limit) gives
    them, in reads of at most `chunk` bytes: asking for a MiB at once costs the kernel a MiB
    of pages, and a doc is a few KB. No file object: the store may hold 10,000 docs."""
    chunks: list[bytes] = []
    size = 0
    while limit is None or size < limit:
        part = os.read(fd, chunk if limit is None else min(chunk, limit - size))
        if not part:
            break
        chunks.append(part)
        size += len(part)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_regular_bytes(path: str, limit: int) -> bytes | None:
    """A regular file's bytes (not a symlink, FIFO or device; at most `limit` bytes), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        data = read_upto(fd, limit + 1)  # one byte more: a file grown past the limit
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if len(data) > limit else data


def read_regular(path: str, limit: int) -> str | None:
    """`read_regular_bytes` as UTF-8 text, else None. For the hooks: a doc that cannot be
    read this way is not restored."""
    data = read_regular_bytes(path, limit)
    if data is None:
        return None
    try:
        # The BOM is kept: frontmatter handles it, and a rewrite keeps it.
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def decode(data: bytes, path: Path, *, keep_bom: bool = False) -> str:
    """UTF-8 text, a BOM dropped unless `keep_bom` (a file rewritten whole must keep it)."""
    if data.startswith(b"\xef\xbb\xbf") and not keep_bom:
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise StoreError(f"{path} is not UTF-8 text; not touching it") from None


def newline_of(text: str) -> str:
    """The line ending a file uses, so a rewrite keeps it."""
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


def stdin_text() -> str | None:
    """stdin when it is not a terminal (a pipe or heredoc), else None; must be UTF-8. A
    leading BOM is dropped."""
    import sys

    try:
        if sys.stdin is None or sys.stdin.isatty():
            return None
        data = sys.stdin.buffer.read()
    except (OSError, ValueError, AttributeError):
        return None
    try:
        # "utf-8-sig": a BOM that starts the stream (a Windows editor, PowerShell) is no
        # part of the words; one further in is, and stays.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise StoreError("stdin is not UTF-8 text") from None
