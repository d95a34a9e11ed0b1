"""The permissions of the files and folders banditree writes: what a plain ``open`` or ``mkdir``
would give (0666 / 0777 less the umask: 0644 / 0755 as a rule), also for the temporary files
(``tempfile.mkstemp`` makes them 0600) that are renamed into place to write atomically."""
from __future__ import annotations

import os

__all__ = ["umask", "file_mode", "folder_mode"]


def umask() -> int:
    """The process's umask, read without changing it where the system allows."""
    try:  # Linux: read it (setting it to read it back would race with other threads creating files)
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # pragma: no cover - elsewhere
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode of a file a plain ``open`` creates: 0666 less the umask (0644 as a rule)."""
    return 0o666 & ~umask()


def folder_mode() -> int:
    """The mode of a folder a plain ``mkdir`` creates: 0777 less the umask (0755 as a rule)."""
    return 0o777 & ~umask()
