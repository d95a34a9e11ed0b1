"""Games on a Dask distributed cluster (optional extra: ``pip install banditree[distributed]``).

The client submits one task per game (:func:`testbeds.tournament.play_task`) to an existing
scheduler and yields results as they complete; the caller, on the client machine, commits each to
the results database.  Workers need banditree installed (same version as the client) and nothing
else: no shared file system, no database access.  See docs/tournaments.md for starting a scheduler
and workers by hand or on SLURM with dask-jobqueue.
"""
from __future__ import annotations

import re
from typing import Iterator

__all__ = ["run_dask", "require_distributed", "check_scheduler", "connect"]

#: scheme://HOST:PORT (HOST a name, an IPv4 address or a bracketed IPv6 address), or Dask's
#: in-process inproc://... addresses
_ADDRESS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://(\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):([0-9]{1,5})|inproc://\S+")


def check_scheduler(scheduler) -> str:
    """``scheduler`` if it is a Dask scheduler address such as ``tcp://10.0.0.5:8786``, else a
    ValueError naming --scheduler and the form expected.  Checks the form only (no connection),
    so callers run it before they create anything."""
    m = _ADDRESS.fullmatch(scheduler) if isinstance(scheduler, str) else None
    if m is None or (m.group(2) is not None and not 1 <= int(m.group(2)) <= 65535):
        raise ValueError(f"--scheduler must be an address like tcp://HOST:PORT (a Dask scheduler), got {scheduler!r}")
    return scheduler


def require_distributed():
    """Import ``distributed`` or raise a ValueError that tells how to install it."""
    try:
        import distributed
    except ImportError:
        raise ValueError("--scheduler needs Dask: pip install 'banditree[distributed]' "
                         "(or: pip install dask distributed)") from None
    return distributed


def connect(scheduler: str, timeout: float = 30.0):
    """A ``distributed.Client`` of the scheduler at ``scheduler`` (checked first), or a ValueError
    in one line when Dask is missing or the scheduler cannot be reached."""
    check_scheduler(scheduler)
    distributed = require_distributed()
    try:
        return distributed.Client(scheduler, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise ValueError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None


def run_dask(tasks: list, scheduler: str, *, connect_timeout: float = 30.0) -> Iterator[tuple]:
    """Yield ``play_task(t)`` for each task as the cluster at ``scheduler`` finishes them.

    ``scheduler``: address such as ``tcp://10.0.0.5:8786``.  Closing the iterator (Ctrl-C, an
    error) cancels the games still queued or running and closes the client.
    """
    from testbeds.tournament import play_task

    check_scheduler(scheduler)
    distributed = require_distributed()
    if not tasks:
        return
    client = connect(scheduler, connect_timeout)
    futures = []
    try:
        futures = client.map(play_task, tasks, pure=False)
        for fut in distributed.as_completed(futures):
            result = fut.result()
            fut.release()
            yield result
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)
        client.close()
