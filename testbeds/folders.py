"""Output folders written as a whole: a reader sees the old folder or the new one, never a mixture.

A results folder (``banditree testbed``/``figures``: curves.npz, summary.csv, manifest.json and the
plots; ``banditree tables``: table.csv, table.md, heatmap.png/.pdf; ``banditree tune``: table.csv,
table.md, score.png/.pdf, tune.json; ``banditree analyze``: the heatmaps, tree view, growth plot and
exports; ``banditree claims``) is built in a temporary sibling folder ``.<name>.new-XXXX`` and then
swapped in::

    rename  <name>            -> .<name>.old-XXXX     (only if <name> exists)
    rename  .<name>.new-XXXX  -> <name>
    remove  .<name>.old-XXXX

so a file of the new run never lands beside a file of the old one.  A failure while building
removes the temporary folder and leaves ``<name>`` untouched; a failure of the second rename puts
the old folder back.  A process killed between the two renames (a window of two system calls)
leaves ``<name>`` missing and both complete folders under their hidden names; the next write of
``<name>`` removes such leftovers (``.<name>.new-*`` / ``.<name>.old-*``), and until then
``read_results`` says where the old folder is.  Every file of the new folder gets the mode a plain
``open`` gives (0666 less the umask: 0644 as a rule), whichever way it was written.  A write that
fails (a full disk) is one ``OSError`` naming the argument and the file, ``cannot write --out
results/run (No space left on device: results/run/regret.png)`` (:func:`cannot_write`).

A folder that is written into rather than replaced (``banditree plot``'s --out, which may hold other
files) gets its new files together (:func:`replace_files`): all written into a hidden temporary
folder inside it, then renamed over their namesakes, so a failure leaves all the old files.

One writer at a time: a command holds the folder's lock (:func:`claim`, :mod:`testbeds.locks`) from
its first check to the swap, and the swap itself takes it too, so a second command (or a notebook's
``write_results``) writing the same folder is refused in one line instead of replacing the first
one's results.  What the checks refuse at the start is checked again at the swap.

A symbolic link is written through: ``<name>`` a link to a folder (or a dangling link) replaces
the folder the link names, and the link stays as it is.

Because the old folder is replaced as a whole, it may hold only files this package writes
(:data:`OWN_FILES`, plus hidden files): replacing a folder that holds anything else (``--out .``,
a folder of notes, a sub-folder) is refused with ``FileExistsError`` before any computing
(:func:`check_replaceable`), and again at the swap.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from testbeds.locks import Lock, lock_file_for, resolved
from treepolicies.viz.modes import file_mode, folder_mode

__all__ = ["OWN_FILES", "check_replaceable", "replace_folder", "replace_files", "leftovers", "claim", "atomic_file",
           "file_mode", "cannot_write"]

#: Every file a results or tables folder of this package holds.
OWN_FILES = frozenset(
    ["curves.npz", "summary.csv", "manifest.json", "table.csv", "table.md", "tune.json"]
    + [f"{stem}_claims.{ext}" for stem in ("figure", "reading", "table") for ext in ("csv", "md")]
    + ["cost.csv", "cost.md", "tree.json", "tree.dot", "search.json"]
    + [f"{stem}.{ext}" for stem in ("regret", "optimal_action", "fig1_regret", "fig2_optimal_action",
                                    "fig_r_sweep", "heatmap", "score", "root", "tree", "growth")
       for ext in ("png", "pdf")])


def _foreign(folder: Path) -> list[str]:
    """Entries that are not this package's files: other names, and own names that are not plain files."""
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")
                  and (p.name not in OWN_FILES or p.is_symlink() or not p.is_file()))


def check_replaceable(folder: "str | os.PathLike", flag: str = "--out", overwrite: bool = True) -> None:
    """FileExistsError naming ``flag`` when ``folder`` (through a symbolic link) exists and is not a
    folder, holds entries that are not this package's files (a replaced folder is replaced whole,
    so they would be lost), or, with ``overwrite`` False, holds any of this package's files."""
    path = resolved(folder)
    if not path.exists():
        return
    if not path.is_dir():
        raise FileExistsError(f"{flag} {os.fspath(folder)!r} exists and is not a folder")
    foreign = _foreign(path)
    if foreign:
        shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise FileExistsError(f"{flag} {os.fspath(folder)!r} holds files that are not results ({shown}); the "
                              f"results folder is replaced as a whole, so give it a folder of its own")
    if not overwrite:
        existing = sorted(p.name for p in path.iterdir() if p.name in OWN_FILES)
        if existing:
            raise FileExistsError(f"{os.fspath(folder)} already holds results ({', '.join(existing)}); choose another "
                                  f"output folder ({flag}) or pass --overwrite (overwrite=True) to replace them")


def leftovers(folder: "str | os.PathLike") -> list[Path]:
    """Hidden siblings a killed swap of ``folder`` may have left (``.<name>.new-*``, ``.<name>.old-*``)."""
    path = resolved(folder)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        return []
    return sorted(p for p in parent.iterdir()
                  if p.name.startswith(f".{path.name}.new-") or p.name.startswith(f".{path.name}.old-"))


def _lock(folder, flag: str) -> Lock:
    return Lock(lock_file_for(folder, folder=True),
                f"{flag} {os.fspath(folder)} is in use by another banditree process{{who}} writing the same folder; "
                f"wait for it to finish or choose another {flag}", reentrant=True)


@contextlib.contextmanager
def claim(folder: "str | os.PathLike", flag: str = "--out"):
    """Context manager: hold the lock of the folder ``folder`` (:mod:`testbeds.locks`) for a whole
    command, from its first check to the swap; yields the folder the writes go to (``folder``
    through a symbolic link).  ValueError naming ``flag`` when another process holds it or the lock
    file cannot be created.  Parent folders it had to create are removed again when left empty."""
    target = resolved(folder)
    created = []
    parent = Path(os.path.abspath(target)).parent
    while not parent.exists() and parent != parent.parent:
        created.append(parent)
        parent = parent.parent
    lock = _lock(folder, flag)
    try:
        for path in reversed(created):
            path.mkdir()
        lock.acquire()
    except OSError as exc:
        _remove_empty(created)
        raise ValueError(f"{flag} {os.fspath(folder)!r} cannot be written: {exc.strerror or exc}") from None
    except BaseException:
        _remove_empty(created)
        raise
    try:
        yield target
    finally:
        lock.release()
        _remove_empty(created)


def _remove_empty(folders) -> None:
    for path in folders:  # deepest first
        try:
            path.rmdir()
        except OSError:
            break


@contextlib.contextmanager
def replace_folder(folder: "str | os.PathLike", flag: str = "--out", overwrite: bool = True):
    """Context manager: yields a fresh temporary folder to write into; on a normal exit it replaces
    ``folder`` (module docstring: through a symbolic link, under the folder's lock, the checks of
    :func:`check_replaceable` made again at the swap), on an exception it is removed and ``folder``
    stays as it was.  An OSError while writing or swapping (a full disk) is raised again as one
    naming ``flag`` and the file (:func:`cannot_write`); a FileExistsError of the checks as it is."""
    target = resolved(folder)
    check_replaceable(folder, flag, overwrite)
    parent = target.parent if str(target.parent) else Path(".")
    lock = _lock(folder, flag)
    try:
        parent.mkdir(parents=True, exist_ok=True)
        lock.acquire()  # (ValueError when another process holds it)
        for stale in leftovers(target):  # a swap killed between its renames
            shutil.rmtree(stale, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}.new-"))
    except OSError as exc:
        lock.release()
        raise cannot_write(exc, f"{flag} {os.fspath(folder)}") from None
    try:
        with _staged(tmp, folder, flag):
            yield tmp
            os.chmod(tmp, folder_mode())  # mkdtemp makes it private; a results folder is not
            _plain_modes(tmp)
            _swap(tmp, target, lambda: check_replaceable(folder, flag, overwrite))
    finally:
        lock.release()


@contextlib.contextmanager
def replace_files(folder: "str | os.PathLike", flag: str = "--out"):
    """Context manager for a folder that is written into, not replaced (``banditree plot``'s --out,
    which may hold other files): yields a fresh hidden temporary folder inside ``folder`` (created
    if needed) to write the new files into; on a normal exit each of them gets :func:`file_mode` and
    is renamed over its namesake in ``folder``, other files stay.  A failure while writing (a full
    disk, a figure that cannot be drawn) removes the temporary folder and changes nothing in
    ``folder``: its files are all the old ones or all the new ones (only a kill between two of the
    final renames leaves some of each), and a ``folder`` made for them is removed again.  OSErrors
    as in :func:`replace_folder`."""
    target = resolved(folder)
    made = not target.exists()
    try:
        target.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=target, prefix=".new-"))
    except OSError as exc:
        raise cannot_write(exc, f"{flag} {os.fspath(folder)}") from None
    try:
        with _staged(tmp, folder, flag):
            yield tmp
            _plain_modes(tmp)
            for path in sorted(tmp.iterdir()):
                os.replace(path, target / path.name)
            os.rmdir(tmp)
    except BaseException:
        if made:  # (a folder made for these files goes again, empty)
            with contextlib.suppress(OSError):
                target.rmdir()
        raise


@contextlib.contextmanager
def _staged(tmp: Path, folder, flag: str):
    """The temporary folder ``tmp`` of ``folder`` while it is written: removed on any exception, an
    OSError (other than the checks' FileExistsError) raised again by :func:`cannot_write`."""
    try:
        yield
    except FileExistsError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise cannot_write(exc, f"{flag} {os.fspath(folder)}", staged=tmp, final=folder) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _plain_modes(folder: Path) -> None:
    for path in folder.iterdir():
        if path.is_file() and not path.is_symlink():
            os.chmod(path, file_mode())


def cannot_write(exc: OSError, what: str, staged: "Path | None" = None,
                 final: "str | os.PathLike | None" = None) -> OSError:
    """The one-line OSError for output that could not be written: ``cannot write WHAT (REASON: FILE)``,
    WHAT naming the argument (``--out results/run``); a file of the temporary folder ``staged`` is
    named by its path in ``final``.  Always of class OSError whatever its errno (which it keeps),
    so the command line prints it with exit status 1."""
    reason = exc.strerror or str(exc)
    if exc.filename:
        name = os.fspath(exc.filename)
        if staged is not None and name.startswith(os.fspath(staged) + os.sep):
            name = os.path.join(os.fspath(final), os.path.relpath(name, staged))
        reason += f": {name}"
    error = OSError(f"cannot write {what} ({reason})")
    error.errno = exc.errno
    return error


@contextlib.contextmanager
def atomic_file(path: "str | os.PathLike"):
    """Context manager: yields a temporary path beside ``path`` (``.<name>.part-XXXX``) to write the
    file into; on a normal exit it gets :func:`file_mode` and is renamed to ``path``, so a reader sees
    the old file or the new one; on an exception (a full disk, Ctrl-C) it is removed (an OSError
    naming the temporary file then names ``path``)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.part-")
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is not None and os.fspath(exc.filename) == tmp:
            exc.filename = os.fspath(path)  # (the file that could not be written, not its temporary name)
        raise


def _swap(new: Path, target: Path, check) -> None:
    old = None
    if target.exists():
        check()  # nothing foreign (nor, without overwrite, any results) appeared while the run was computing
        old = Path(tempfile.mkdtemp(dir=new.parent, prefix=f".{target.name}.old-"))
        os.rmdir(old)  # only the unique name is wanted
        os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException:
        if old is not None:
            os.rename(old, target)  # put the old folder back
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
