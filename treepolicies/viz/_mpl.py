"""matplotlib set up for headless use (no window is ever opened) and atomic figure files."""
from __future__ import annotations

import os
import tempfile

import matplotlib

if not os.environ.get("DISPLAY") and matplotlib.get_backend().lower() not in ("agg", "pdf", "svg") \
        and "inline" not in matplotlib.get_backend().lower():
    matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from treepolicies.viz.modes import file_mode  # noqa: E402

__all__ = ["plt", "save_figure"]


def save_figure(fig, folder, stem: str, formats=("png", "pdf")) -> list[str]:
    """Save ``fig`` as ``folder/stem.png`` and ``.pdf``, each written atomically; returns the paths."""
    paths = []
    for fmt in formats:
        path = os.path.join(os.fspath(folder), f"{stem}.{fmt}")
        fd, tmp = tempfile.mkstemp(dir=os.fspath(folder), prefix=".tmp-", suffix=f".{fmt}")
        os.close(fd)
        try:
            fig.savefig(tmp, format=fmt, dpi=150 if fmt == "png" else None, bbox_inches="tight")
            os.chmod(tmp, file_mode())  # (mkstemp makes it 0600)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        paths.append(path)
    return paths
