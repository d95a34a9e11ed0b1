"""Writer locks on results databases and results folders: one writing process at a time.

A lock is an exclusive ``flock`` on a lock file, named after what the given path *resolves to*
(:func:`resolved`), so a second writer reaching the same database or folder through a symbolic link
meets the same lock:

    database ``results/a.sqlite``   lock file ``results/a.sqlite.lock``
    folder   ``results/run``         lock file ``results/.run.lock`` (hidden, beside the folder)

A lock that cannot be taken because another process holds it is a ``ValueError`` (one line, the
caller's message).  The lock file is removed when the lock is released, so a finished or refused
command leaves none behind; a process killed while holding it leaves the file, which holds no lock
(the kernel drops a dead process's flock) and is taken over by the next writer.  Removing a lock
file is safe against a second process that opened it just before: after taking the flock, a
process checks that the path still names the file it locked, and starts again if not.
"""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["Lock", "resolved", "lock_file_for"]

#: lock files this process holds -> [open file, depth]
_HELD: dict[str, list] = {}


def resolved(path: "str | os.PathLike") -> Path:
    """``path`` with a symbolic link as its last component followed to what it names (also a
    dangling link: then the path the link points to, which a writer creates); any other path as given."""
    path = Path(path)
    if os.path.islink(path):
        return Path(os.path.realpath(path))
    return path


def lock_file_for(path: "str | os.PathLike", folder: bool = False) -> Path:
    """The lock file of a database (``<file>.lock``) or of a results folder (``.<name>.lock`` beside it)."""
    target = Path(os.path.abspath(resolved(path)))
    if folder:
        return target.parent / f".{target.name}.lock"
    return target.with_name(target.name + ".lock")


class Lock:
    """The writer lock of ``lock_file`` (see the module docstring).

    ``busy``: the message of the ValueError raised when another process holds the lock; ``{who}`` in
    it becomes `` (process PID)``, the holder's process id where the lock file names it.  ``reentrant``: taking a lock this process already holds succeeds (and
    counts); otherwise it is refused like another process's.
    """

    def __init__(self, lock_file: "str | os.PathLike", busy: str, reentrant: bool = False):
        self.path = os.path.abspath(os.fspath(lock_file))
        self.busy = busy
        self.reentrant = reentrant
        self._taken = False

    def acquire(self) -> "Lock":
        """Take the lock; ValueError(busy) if another process (or, not reentrant, this one) holds it,
        OSError if the lock file cannot be created."""
        if self._taken:
            return self
        held = _HELD.get(self.path)
        if held is not None:
            if not self.reentrant:
                raise ValueError(self._busy_message(os.getpid()))
            held[1] += 1
            self._taken = True
            return self
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no lock, one writer by convention
            self._taken = True
            _HELD[self.path] = [None, 1]
            return self
        while True:
            f = open(self.path, "a+")
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _read_pid(f)
                f.close()
                raise ValueError(self._busy_message(holder)) from None
            try:
                same = os.path.samestat(os.fstat(f.fileno()), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                break
            f.close()  # its holder removed the file between our open and our flock: take the new one
        f.seek(0)
        f.truncate()
        f.write(f"{os.getpid()}\n")
        f.flush()
        _HELD[self.path] = [f, 1]
        self._taken = True
        return self

    def release(self) -> None:
        """Give the lock back (the lock file is removed when the last holder in this process releases it)."""
        if not self._taken:
            return
        self._taken = False
        held = _HELD[self.path]
        held[1] -= 1
        if held[1] > 0:
            return
        del _HELD[self.path]
        if held[0] is not None:
            try:
                os.unlink(self.path)  # while still holding the flock (module docstring)
            except OSError:
                pass
            held[0].close()

    def _busy_message(self, pid) -> str:
        who = f" (process {pid})" if pid else ""
        return self.busy.replace("{who}", who)

    def __enter__(self) -> "Lock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _read_pid(f) -> "int | None":
    try:
        f.seek(0)
        text = f.read(32).strip()
        return int(text) if text.isdigit() else None
    except (OSError, ValueError):
        return None
