"""Helpers shared by the testbed and figures sub-commands: output folders and worker counts."""
from __future__ import annotations

import os
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
