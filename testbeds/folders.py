"""Output folders written as a whole: a reader sees the old folder or the new one, never a mixture.

A results folder (``banditree testbed``/``figures``: curves.npz, summary.csv, manifest.json and the
plots; ``banditree tables``: table.csv, table.md, heatmap.png/.pdf; ``banditree tune``: table.csv,
table.md, score.png/.pdf, tune.json) is built in a temporary
sibling folder ``.<name>.new-XXXX`` and then swapped in::

    rename  <name>            -> .<name>.old-XXXX     (only if <name> exists)
    rename  .<name>.new-XXXX  -> <name>
    remove  .<name>.old-XXXX

so a file of the new run never lands beside a file of the old one.  A failure while building
removes the temporary folder and leaves ``<name>`` untouched; a failure of the second rename puts
the old folder back.  A process killed between the two renames (a window of two system calls)
leaves ``<name>`` missing and both complete folders under their hidden names; the next write of
``<name>`` removes such leftovers (``.<name>.new-*`` / ``.<name>.old-*``), and until then
``read_results`` says where the old folder is.

Because the old folder is replaced as a whole, it may hold only files this package writes
(:data:`OWN_FILES`, plus hidden files): replacing a folder that holds anything else (``--out .``,
a folder of notes) is refused with ``FileExistsError`` before any computing (:func:`check_replaceable`).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["OWN_FILES", "check_replaceable", "replace_folder", "leftovers"]

#: Every file a results or tables folder of this package holds.
OWN_FILES = frozenset(
    ["curves.npz", "summary.csv", "manifest.json", "table.csv", "table.md", "tune.json"]
    + [f"{stem}_claims.{ext}" for stem in ("figure", "reading", "table") for ext in ("csv", "md")]
    + ["cost.csv", "cost.md"]
    + [f"{stem}.{ext}" for stem in ("regret", "optimal_action", "fig1_regret", "fig2_optimal_action",
                                    "fig_r_sweep", "heatmap", "score") for ext in ("png", "pdf")])


def _foreign(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in OWN_FILES and not p.name.startswith("."))


def check_replaceable(folder: "str | os.PathLike", flag: str = "--out") -> None:
    """FileExistsError naming ``flag`` when ``folder`` exists and is not a folder, or holds files that
    are not this package's (a replaced folder is replaced whole, so they would be lost)."""
    path = Path(folder)
    if not path.exists():
        return
    if not path.is_dir():
        raise FileExistsError(f"{flag} {os.fspath(folder)!r} exists and is not a folder")
    foreign = _foreign(path)
    if foreign:
        shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise FileExistsError(f"{flag} {os.fspath(folder)!r} holds files that are not results ({shown}); the "
                              f"results folder is replaced as a whole, so give it a folder of its own")


def leftovers(folder: "str | os.PathLike") -> list[Path]:
    """Hidden siblings a killed swap of ``folder`` may have left (``.<name>.new-*``, ``.<name>.old-*``)."""
    path = Path(folder)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        return []
    return sorted(p for p in parent.iterdir()
                  if p.name.startswith(f".{path.name}.new-") or p.name.startswith(f".{path.name}.old-"))


@contextlib.contextmanager
def replace_folder(folder: "str | os.PathLike", flag: str = "--out"):
    """Context manager: yields a fresh temporary folder to write into; on a normal exit it replaces
    ``folder`` (module docstring), on an exception it is removed and ``folder`` stays as it was."""
    target = Path(folder)
    check_replaceable(target, flag)
    parent = target.parent if str(target.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    for stale in leftovers(target):  # a swap killed between its renames
        shutil.rmtree(stale, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}.new-"))
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it private; a results folder is not
        _swap(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _swap(new: Path, target: Path) -> None:
    old = None
    if target.exists():
        check_replaceable(target)  # nothing foreign appeared while the run was computing
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
