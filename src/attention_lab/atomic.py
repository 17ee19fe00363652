"""Atomic file writes: a crash never leaves a half-written output that a later stage would read."""

from __future__ import annotations

import glob
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary sibling of `path`; it replaces `path` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(path)
    try:
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:  # name the file asked for, not the random temporary
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    os.close(fd)
    tmp = Path(tmp_name)
    tmp.chmod(0o666 & ~_umask())  # mkstemp creates 0600; outputs get the usual permissions
    try:
        yield tmp
        with open(tmp, "rb+") as handle:  # flush to disk before the rename makes it visible
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror, str(path)) from None  # a write (a full disk) names the file asked for
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def atomic_dir(path: str | Path) -> Iterator[Path]:
    """Yield an empty temporary sibling folder; it replaces the folder `path` (and all it held)
    only if the block succeeds, so a failed stage leaves the old set of files or none, never a
    partial one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(path)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"))
    old = tmp.with_name(tmp.name[: -len(".tmp")] + ".old.tmp")
    try:
        yield tmp
        tmp.chmod(0o777 & ~_umask())
        if path.exists():
            os.replace(path, old)  # a folder cannot be renamed over a non-empty one
        os.replace(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def remove_stale(path: Path) -> None:
    """Delete temporaries of `path` left by a writer that was killed (SIGKILL skips `finally`)."""
    for stale in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)


def write_with(path: str | Path, write: Callable[[BinaryIO], object]) -> None:
    """`write(file)` into an open temporary file, then rename. Writers that name their contents
    after the file (`torch.save` names its archive's root folder so) see no random name, so the
    same data gives the same bytes and the same DVC hash."""
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        write(handle)


def write_text(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json(path: str | Path, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
