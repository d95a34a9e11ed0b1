"""The leaf evaluators known by name (``evaluator=NAME`` in player specs and the command line).

An evaluator is a function ``fn(states, moves, counts) -> (priors, values)`` (treepolicies.mcts.evaluate
documents it); :func:`register_evaluator` names one (e.g. in a ``--plugin`` file).
"""
from __future__ import annotations

__all__ = ["EVALUATORS", "register_evaluator", "get_evaluator"]

#: name -> evaluator function (module docstring)
EVALUATORS: dict = {}


def register_evaluator(name: str, fn) -> None:
    """Make ``fn`` (module docstring) known as ``evaluator=name`` in player specs and the command line."""
    if not isinstance(name, str) or not name.strip() or not callable(fn):
        raise ValueError(f"register_evaluator needs a name and a callable, got {name!r}, {fn!r}")
    EVALUATORS[name.strip().lower()] = fn


def get_evaluator(evaluator):
    """A callable from a callable or a registered name (ValueError naming the registered ones)."""
    if evaluator is None or callable(evaluator):
        return evaluator
    name = str(evaluator).strip().lower()
    if name not in EVALUATORS:
        raise ValueError(f"unknown evaluator {evaluator!r}; registered evaluators: "
                         f"{', '.join(EVALUATORS) or '(none; treepolicies.register_evaluator in a --plugin file)'}")
    return EVALUATORS[name]
