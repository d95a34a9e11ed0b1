"""Checkpoints of a testbed run: every finished chunk of tasks on disk, so a run resumes.

``run_testbed(..., checkpoint=FOLDER)`` saves the outcome of each (policy, chunk) unit of work as
``FOLDER/<key>-<first task>.npz`` as soon as it is absorbed (per-play sums, diagnostics and the
recommendation sums; plain arrays, written atomically), and loads the ones already there instead of
computing them.  The key is a hash of everything the numbers depend on (the testbed's
configuration and means, horizon, seed, chunk size, the policy's bound spec), so a changed
command never reuses another run's chunks, and a policy added to a command reuses the others'.
Chunk sums are absorbed in chunk order whether computed or loaded, so a resumed run gives
bit-identical numbers.  Ctrl-C keeps what is saved.  A chunk file that cannot be written (a full
disk) leaves no partial file behind and stops the run with an ``OSError`` saying what is kept.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

__all__ = ["ChunkStore", "count_saved"]


def count_saved(folder: "str | os.PathLike | None") -> int:
    """How many chunk files (of any run) ``folder`` holds; 0 when it does not exist."""
    if folder is None or not os.path.isdir(folder):
        return 0
    return sum(1 for name in os.listdir(folder) if name.endswith(".npz") and not name.startswith("."))


class ChunkStore:
    """The chunk files of one testbed run in ``folder`` (created when the first chunk is saved)."""

    def __init__(self, folder: "str | os.PathLike", testbed, horizon: int, seed: int, chunk_tasks: int):
        self.folder = Path(folder)
        means = hashlib.sha256(np.ascontiguousarray(testbed.means).tobytes()).hexdigest()
        self._base = {"testbed": {k: v for k, v in testbed.config().items() if k not in ("means", "arm_means")},
                      "means_sha256": means, "horizon": horizon, "seed": seed, "chunk_tasks": chunk_tasks}

    def key(self, policy) -> str:
        """The key of a policy (a bound ``bandits.Policy`` or its spec string) in this run."""
        spec = policy if isinstance(policy, str) else policy.spec
        text = json.dumps({**self._base, "policy": spec}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:20]

    def path(self, policy, start: int) -> Path:
        return self.folder / f"{self.key(policy)}-{start}.npz"

    def load(self, policy, start: int):
        """The saved outcome (acc, diagnostics, None, rec) of this chunk, or None."""
        path = self.path(policy, start)
        if not path.exists():
            return None
        with np.load(path, allow_pickle=False) as data:
            diagnostics = {str(k): float(v) for k, v in zip(data["diag_keys"], data["diag_values"])}
            return np.array(data["acc"]), diagnostics, None, np.array(data["rec"])

    def save(self, policy, start: int, outcome) -> None:
        """Write one chunk's outcome atomically (testbeds.folders.atomic_file).  OSError naming the
        checkpoint folder when the file cannot be written (testbeds.folders.cannot_write); nothing
        partial stays, the chunks saved before stay."""
        from testbeds.folders import atomic_file, cannot_write

        acc, diagnostics, _, rec = outcome
        path = self.path(policy, start)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with atomic_file(path) as tmp, open(tmp, "wb") as f:
                np.savez(f, acc=acc, rec=rec, diag_keys=np.array(list(diagnostics), dtype=str),
                         diag_values=np.array(list(diagnostics.values()), dtype=np.float64))
        except OSError as exc:  # (the command line adds what is kept: the chunks saved before)
            raise cannot_write(exc, f"a checkpoint in {self.folder}") from None

    def clear(self, policies, starts) -> None:
        """Remove this run's chunk files of ``policies`` (Policy objects or spec strings) at the task
        chunks ``starts`` (the folder too when it is left empty); other runs' files stay."""
        for policy in policies:
            for start in starts:
                self.path(policy, start).unlink(missing_ok=True)
        try:
            self.folder.rmdir()
        except OSError:
            pass
