"""Say when numba is compiling, and report what a process found in numba's disk cache.

Compiled code is built the first time it is needed on a machine and cached on disk (numba's
``cache=True``); later processes load it.  A first compilation can take many seconds, so every
place that may compile (a policy's kernels, the testbed loop, a game's search loop) runs inside
:func:`notice`, which prints one line to standard error if the work takes longer than a moment::

    banditree: compiling the kernels of policy 'miucb' (first run only, cached on disk afterwards) ...

:func:`cache_report` lists, for the compiled functions of banditree used in this process, how
many of their specialisations were loaded from the cache and how many were compiled (tests use it
to prove that a second process compiles nothing).
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time

__all__ = ["notice", "cache_report", "track"]

#: generated dispatchers (closures made per policy or per game), for cache_report
_TRACKED: list = []


def track(dispatcher):
    """Remember a generated dispatcher for :func:`cache_report`; returns it."""
    _TRACKED.append(dispatcher)
    return dispatcher


@contextlib.contextmanager
def notice(what: str, delay: float = 0.75, stream=None):
    """Print ``compiling <what> ...`` (and the time it took) if the block runs longer than ``delay`` s."""
    out = stream if stream is not None else sys.stderr
    start = time.perf_counter()
    said = threading.Event()

    def speak():
        said.set()
        print(f"banditree: compiling {what} (first run only, cached on disk afterwards) ...", file=out, flush=True)

    timer = threading.Timer(delay, speak)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if said.is_set():
            print(f"banditree: compiled {what} in {time.perf_counter() - start:.1f} s", file=out, flush=True)


def _dispatchers():
    import numba.core.registry

    seen = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.split(".")[0] in ("bandits", "treepolicies", "testbeds"):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, numba.core.registry.CPUDispatcher):
                seen[id(value)] = value
    for value in _TRACKED:
        seen[id(value)] = value
    return list(seen.values())


def cache_report() -> dict[str, dict[str, int]]:
    """``{function name: {"hits": n, "misses": m}}`` for banditree's compiled functions used here.

    hits: specialisations loaded from numba's disk cache; misses: compiled in this process.
    Functions not used in this process are left out.
    """
    report = {}
    for disp in _dispatchers():
        stats = disp.stats
        hits, misses = sum(stats.cache_hits.values()), sum(stats.cache_misses.values())
        if hits or misses:
            name = f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
            entry = report.setdefault(name, {"hits": 0, "misses": 0})
            entry["hits"] += hits
            entry["misses"] += misses
    return report
