"""Say when numba is compiling, and report what a process found in numba's disk cache.

Compiled code is built the first time it is needed on a machine and cached on disk (numba's
``cache=True``); later processes load it.  A first compilation can take many seconds, so every
place that may compile (a policy's kernels, the testbed loop, a game's search loop) runs inside
:func:`notice`, which prints one line to standard error, from the main process, if numba
compiles there for longer than a moment (loading from the cache is not announced)::

    banditree: compiling the kernels of policy 'miucb' (first run only, cached on disk afterwards) ...

:func:`cache_report` lists, for the compiled functions of banditree used in this process, how
many of their specialisations were loaded from the cache and how many were compiled (tests use it
to prove that a second process compiles nothing).
"""
from __future__ import annotations

import contextlib
import hashlib
import inspect
import sys
import threading
import time

__all__ = ["notice", "interrupts_delivered", "kernel_errors", "KernelErrors", "cache_report", "track", "say",
           "load_cached", "source_hash"]

#: generated dispatchers (closures made per policy or per game), for cache_report
_TRACKED: list = []


def track(dispatcher):
    """Remember a generated dispatcher for :func:`cache_report`; returns it."""
    _TRACKED.append(dispatcher)
    return dispatcher


#: Python function -> its source (bytes), read once per function object: ``inspect.getsource``
#: re-reads and re-tokenizes the whole module (about 0.5 ms a function), and each search asks for
#: the keys of its kernels
_SOURCES: dict = {}


def _source(py) -> bytes:
    text = _SOURCES.get(py)
    if text is None:
        try:
            text = inspect.getsource(py).encode()
        except (OSError, TypeError):  # (typed at a prompt: the bytecode and its constants)
            text = py.__code__.co_code + repr(py.__code__.co_consts).encode()
        _SOURCES[py] = text
    return text


def source_hash(functions) -> str:
    """16 hex digits of the SHA-256 of the sources of ``functions`` (numba dispatchers or Python
    functions; None counts as "-"), in order: the part of a compiled kernel's key that changes when
    its code does.  A function edited and created again is another object, so it is read again."""
    h = hashlib.sha256()
    for fn in functions:
        h.update(b"-" if fn is None else _source(getattr(fn, "py_func", fn)))
    return h.hexdigest()[:16]


_HOOKS: list = []  # the sys.unraisablehook each interrupts_delivered() block replaced
_PENDING: list = []  # interrupts swallowed while another tracer (a debugger, coverage) was set


_TRACED: list = []  # frames given the one-shot trace function


def _raise_interrupt(frame, event, arg):
    """One-shot trace function: raise the swallowed KeyboardInterrupt at the next Python line of a
    waiting frame, or in the next Python call, whichever comes first; then tracing is off again."""
    sys.settrace(None)
    for f in _TRACED:
        f.f_trace = None
    _TRACED.clear()
    raise KeyboardInterrupt


def _arm_interrupt() -> None:
    frame = sys._getframe(2)  # above this function and the hook: the code that called into C
    while frame is not None:
        frame.f_trace = _raise_interrupt
        _TRACED.append(frame)
        frame = frame.f_back
    sys.settrace(_raise_interrupt)


def _redeliver(unraisable) -> None:
    """sys.unraisablehook inside :func:`interrupts_delivered`.

    numba compiles through ctypes callbacks (llvmlite), and a Ctrl-C that lands in one is
    'ignored' by ctypes ("Exception ignored on calling ctypes callback ... KeyboardInterrupt"), so
    a run went on to the end as if nothing had happened.  Here the interrupt is raised again at
    the next Python line (a one-shot trace function on the waiting frames; raising in the hook
    itself would be ignored too).  With another tracer set, it is kept for the end of the block instead.  Anything
    else goes to the previous hook."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        if sys.gettrace() is None:
            _arm_interrupt()
        else:
            _PENDING.append(unraisable.exc_value)
        return
    (_HOOKS[-1] if _HOOKS else sys.__unraisablehook__)(unraisable)


@contextlib.contextmanager
def interrupts_delivered():
    """A Ctrl-C inside the block always raises KeyboardInterrupt, even one that lands in a ctypes
    callback of numba's compiler (see :func:`_redeliver`).  Nests; the command line wraps every
    command in it, :func:`notice` every compilation."""
    _HOOKS.append(sys.unraisablehook)
    sys.unraisablehook = _redeliver
    before = len(_PENDING)
    try:
        yield
    finally:
        sys.unraisablehook = _HOOKS.pop()
        pending = len(_PENDING) > before
        del _PENDING[before:]
        if pending:
            raise KeyboardInterrupt


class KernelErrors:
    """What :func:`kernel_errors` collects for one block: ``flag`` (a (1,) int64 array, set to 1 by
    the first error, which compiled loops read to stop) and ``error``, the first exception."""

    def __init__(self):
        import numpy as np

        self.flag = np.zeros(1, np.int64)
        self.error: BaseException | None = None


_SINKS: list = []       # the KernelErrors of the blocks running now (any thread)
_SINK_LOCK = threading.Lock()
_BEFORE: list = []      # the hook kernel_errors() replaced, while any block runs


def _kernel_hook(unraisable) -> None:
    """sys.unraisablehook inside :func:`kernel_errors`: an exception that a compiled kernel raised
    inside a call through a function value (numba can only report it as "Exception ignored") is
    given to every running block; anything else, and every Ctrl-C, goes to the hook before."""
    value = unraisable.exc_value
    if isinstance(value, Exception) and "numba" in str(unraisable.object):
        with _SINK_LOCK:
            for sink in _SINKS:
                if sink.error is None:
                    sink.error = value
                sink.flag[0] = 1
        return
    (_BEFORE[0] if _BEFORE else sys.__unraisablehook__)(unraisable)


@contextlib.contextmanager
def kernel_errors():
    """A block whose compiled code calls policy kernels through function values (bandits.kernels):
    numba cannot pass an exception raised in such a kernel through the compiled caller (it prints
    "Exception ignored" and the call returns a default), so here the first one is kept on the
    yielded :class:`KernelErrors` and its ``flag`` is set, for the caller to stop and raise it.
    Blocks nest and run in several threads at once (one hook for all of them)."""
    sink = KernelErrors()
    with _SINK_LOCK:
        if not _SINKS:
            _BEFORE[:] = [sys.unraisablehook]
            sys.unraisablehook = _kernel_hook
        _SINKS.append(sink)
    try:
        yield sink
    finally:
        with _SINK_LOCK:
            _SINKS.remove(sink)
            if not _SINKS:
                if sys.unraisablehook is _kernel_hook:
                    sys.unraisablehook = _BEFORE[0]
                _BEFORE.clear()


#: the notice blocks open in this process, innermost last: a compilation is announced by the
#: innermost one (a policy's kernels may compile inside a search loop's block)
_OPEN: list = []


def _speaks() -> bool:
    """Whether this process prints notices: the main process, not a worker process (a testbed's
    or a tournament's workers load what the main process compiled before it started them)."""
    import multiprocessing

    return multiprocessing.parent_process() is None


def _cached(dispatcher) -> bool:
    """Whether numba saves what ``dispatcher`` compiles to its disk cache (not without
    ``cache=True``, nor for a function defined at a prompt, in a notebook cell or in ``python -c``:
    numba needs a source file)."""
    from numba.core.caching import NullCache

    return not isinstance(getattr(dispatcher, "_cache", None), NullCache)


def _write_line(line: str, out) -> None:
    """``line`` and a newline in one write, above any tqdm progress bar drawn on ``out`` (a bar
    line has no newline: written after it, the notice ran into the bar)."""
    from tqdm import tqdm

    tqdm.write(line, file=out)
    out.flush()


def load_cached(disp, sig) -> bool:
    """Load the overload of ``disp`` for argument types ``sig`` from numba's disk cache, without
    compiling (what Dispatcher.compile does first); False if the cache has none."""
    from numba.core.compiler_lock import global_compiler_lock

    try:
        with global_compiler_lock:
            cres = disp._cache.load_overload(sig, disp.targetctx)
            if cres is None:
                return False
            disp._cache_hits[sig] += 1
            if not cres.objectmode:
                disp.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
            disp.add_overload(cres)
            return True
    except Exception:  # pragma: no cover - a numba without this interface: the shared loop runs
        return False


def say(line: str, stream=None) -> None:
    """Write ``banditree: <line>`` on standard error as :func:`notice` does: one whole line, above a
    progress bar, from the main process only (a worker process says nothing).  For what a
    compilation outside a notice block has to tell, e.g. a search loop compiled in the background."""
    if _speaks():
        _write_line(f"banditree: {line}", stream if stream is not None else sys.stderr)


class _Block:
    """The state of one open :func:`notice` block (compared by identity)."""

    __slots__ = ("compiled", "uncached", "said", "depth")

    def __init__(self):
        self.compiled, self.uncached, self.said, self.depth = 0, False, False, 0


@contextlib.contextmanager
def notice(what: str, delay: float = 0.75, stream=None):
    """One line on standard error when numba compiles inside the block and the block has run
    ``delay`` seconds::

        banditree: compiling <what> (first run only, cached on disk afterwards) ...
        banditree: compiling <what> (not cached on disk: compiled in every process) ...

    the second when a function compiled has no disk cache (:func:`_cached`).  Only a compilation
    counts: numba's ``numba:compile`` event fires on a cache miss, not when compiled code is
    loaded from the disk cache, which takes about a second in a fresh process (numba's own
    start-up); timed and not told what happened, the notice announced that second as a first-run
    compilation in every worker process of every run.  The line is written once, whole, from the
    main process only (:func:`_speaks`), so that the lines of several processes cannot run
    together.  A Ctrl-C during the block always stops it (:func:`interrupts_delivered`).
    """
    from numba.core import event

    out = stream if stream is not None else sys.stderr
    start = time.perf_counter()
    mine = _Block()
    lock = threading.Lock()
    speaks = _speaks()

    def say():
        with lock:
            if mine.said or not mine.compiled or not speaks:
                return
            mine.said = True
            cache = "not cached on disk: compiled in every process" if mine.uncached else \
                "first run only, cached on disk afterwards"
        _write_line(f"banditree: compiling {what} ({cache}) ...", out)

    class Compiling(event.Listener):
        def on_start(self, ev):
            mine.depth += 1
            if not (_OPEN and _OPEN[-1] is mine):
                return
            with lock:
                mine.compiled += 1
                if mine.depth == 1:  # a function called from Python; what it calls is cached with it
                    mine.uncached |= not _cached((ev.data or {}).get("dispatcher"))
            if time.perf_counter() - start >= delay:
                say()

        def on_end(self, ev):
            mine.depth -= 1

    timer = threading.Timer(delay, say)
    timer.daemon = True
    _OPEN.append(mine)
    timer.start()
    try:
        with event.install_listener("numba:compile", Compiling()), interrupts_delivered():
            yield
    finally:
        timer.cancel()
        del _OPEN[next(i for i in range(len(_OPEN) - 1, -1, -1) if _OPEN[i] is mine)]
        with lock:
            mine.said = True  # (a late timer says nothing now)


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
