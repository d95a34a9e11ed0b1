"""Can worker processes started with "spawn" work from this program's ``__main__``?

A spawned child first re-creates the parent's main module (``multiprocessing.spawn.prepare``):
it imports ``__main__.__spec__.name`` when the program was started with ``python -m``, else it
runs the file ``__main__.__file__`` again (as ``__mp_main__``), else it does nothing (an interactive
interpreter, ``python -c``, a Jupyter kernel's user namespace).  Two cases break it:

* ``__file__`` names no file, as ``'<stdin>'`` does for a script piped into ``python -``: every
  child dies at start and the pool raises BrokenProcessPool;
* the file is a script that starts the pool at module level without an
  ``if __name__ == "__main__":`` guard: every child runs the whole script again.

:func:`spawn_problem` detects both, so a caller can run in its own process instead.
"""
from __future__ import annotations

import ast
import os
import sys
from types import FrameType

__all__ = ["spawn_problem", "in_process_notice", "run_here_instead"]


def _is_main_guard(node: ast.AST) -> bool:
    """Whether ``node`` is ``if __name__ == "__main__":`` (either side of the comparison)."""
    if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1
            and isinstance(node.test.ops[0], ast.Eq)):
        return False
    sides = [node.test.left, *node.test.comparators]
    return (any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
            and any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides))


def _guarded(source: str, line: int) -> bool:
    """Whether line ``line`` of the module ``source`` lies inside an ``if __name__ == "__main__":`` block.

    Unreadable source counts as guarded (nothing is claimed that cannot be checked).
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return True
    for node in ast.walk(tree):
        if _is_main_guard(node) and node.body:
            end = max(getattr(n, "end_lineno", n.lineno) for n in node.body)
            if node.body[0].lineno <= line <= end:
                return True
    return False


def _main_module_frame(main_globals: dict) -> FrameType | None:
    """The frame running ``__main__``'s module-level code on the current call stack, if any."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals is main_globals and frame.f_code.co_name == "<module>":
            return frame
        frame = frame.f_back
    return None


def spawn_problem() -> str | None:
    """A one-line reason why processes started with "spawn" cannot work from this ``__main__``, or None.

    None also for interactive sessions, notebooks, ``python -c`` and ``python -m``: there a spawned
    child does not run the caller's code again.  For a script file, the call stack is checked: if it
    runs at the script's module level outside an ``if __name__ == "__main__":`` block, every child
    would run the script again, which is the problem reported.
    """
    main = sys.modules.get("__main__")
    if main is None:
        return None
    name = getattr(getattr(main, "__spec__", None), "name", None)
    path = getattr(main, "__file__", None)
    if name is not None:  # `python -m name`: children import the module by name, unless it is a __main__
        if name == "__main__" or name.endswith(".__main__"):
            return None
    elif path is None:
        return None  # interactive interpreter, `python -c`, a Jupyter kernel: children skip __main__
    elif not os.path.isfile(path):
        return (f"the main program is not a file ({path!r}, e.g. a script piped into `python -`), "
                f"so worker processes started with 'spawn' cannot load it")
    frame = _main_module_frame(main.__dict__)
    if frame is None or path is None or not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    if not _guarded(source, frame.f_lineno):
        return (f"{os.path.basename(path)} line {frame.f_lineno} starts worker processes at module level "
                f"without `if __name__ == \"__main__\":`, so every 'spawn' worker would run the script again")
    return None


def in_process_notice(caller: str, workers: int, reason: str) -> str:
    """The one line that says ``caller`` runs in this process instead of ``workers`` processes, and why."""
    return (f"{caller}: running in this process instead of workers={workers} (the numbers are the same): "
            f"{reason}. To use several processes, put the code in a script file and call {caller} under "
            f"`if __name__ == \"__main__\":`; pass workers=1 to silence this notice.")


def run_here_instead(caller: str, workers: int) -> bool:
    """Whether ``caller`` must run in this process instead of spawning ``workers`` processes.

    True when :func:`spawn_problem` finds a reason; the notice (:func:`in_process_notice`) then goes
    to stderr.
    """
    reason = spawn_problem()
    if reason is None:
        return False
    print(in_process_notice(caller, workers, reason), file=sys.stderr)
    return True
