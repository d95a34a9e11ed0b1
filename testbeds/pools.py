"""Process pools whose workers exit when the process that started them dies.

A ``concurrent.futures.ProcessPoolExecutor`` worker waits for work on a pipe whose writing end it
holds itself, so when its parent is killed (``kill -9``, the OOM killer) it is re-parented and waits
for ever.  Each worker of :func:`process_pool` runs a watcher thread that waits on the parent's
sentinel (``multiprocessing.parent_process().sentinel``, readable once the parent is gone) and then
ends the worker with ``os._exit``: a worker that is waiting exits at once, one inside a compiled
chunk as soon as the chunk returns to Python.  (``multiprocessing.Pool`` workers, used by the
tournaments, already die on their broken result pipe.)
"""
from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import threading

__all__ = ["process_pool", "exit_with_parent"]

#: exit status of a worker whose parent died
ORPHANED = 70


def exit_with_parent() -> None:
    """Worker initializer: start the watcher thread (module docstring).  Nothing in a process that
    has no parent process of multiprocessing's (the main process)."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch(sentinel=parent.sentinel):
        from multiprocessing.connection import wait

        wait([sentinel])
        os._exit(ORPHANED)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def process_pool(workers: int) -> concurrent.futures.ProcessPoolExecutor:
    """A pool of ``workers`` fresh interpreters ("spawn": the same on Linux and macOS, no forked
    threads) that exit by themselves when this process dies."""
    return concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                                  initializer=exit_with_parent)
