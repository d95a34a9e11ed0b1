"""Helpers shared by the testbed and figures sub-commands: output folders and worker counts."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from testbeds.results import RESULT_FILES


def cpus() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def output_folder(out: "str | None", default: str) -> Path:
    """The folder to write into: ``out`` as given, or a fresh one named after ``default``.

    Without ``--out`` an existing ``default`` is never reused: results/figures, results/figures-1, ...
    (an explicit ``--out`` that holds results is refused later unless ``--overwrite``).
    """
    if out is not None:
        return Path(out)
    base = Path(default)
    candidate, n = base, 0
    while candidate.exists() and any((candidate / name).exists() for name in RESULT_FILES):
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def check_counts(args, names: "tuple[str, ...]") -> None:
    """ValueError naming the flag when one of the integer options ``names`` is below 1."""
    for name in names:
        value = getattr(args, name)
        if value < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be an integer >= 1, got {value}")


def check_writable(folder: "str | os.PathLike", flag: str = "--out", create: bool = True) -> Path:
    """Create ``folder`` (and its parents) if needed and check that a file can be written in it,
    *before* any computing, so that a finished run is never lost to an unwritable output folder.

    create=False creates nothing (for a command whose other checks come later): the folder, or
    its nearest existing ancestor, must be a folder this process may write into.
    ValueError naming ``flag`` and the reason (a path under a file, a read-only filesystem, ...).
    """
    path = Path(folder)
    if not create:
        probe = path.absolute()
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        if not probe.is_dir():
            raise ValueError(f"{flag} {os.fspath(folder)!r} cannot be written: {os.fspath(probe)!r} is not a folder")
        if not os.access(probe, os.W_OK | os.X_OK):
            raise ValueError(f"{flag} {os.fspath(folder)!r} cannot be written: {os.fspath(probe)!r} is not writable")
        return path
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise ValueError(f"{flag} {os.fspath(folder)!r} cannot be written: {exc.strerror or exc}") from None
    return path
