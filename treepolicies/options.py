"""The search's enhancement options, checked once: ``SearchOptions`` (docs/enhancements.md).

Every option is a keyword of :func:`treepolicies.search` and a key of player specs
(``ucb1:c=0.5,rave=true,rollout=heuristic``); they combine freely and work with every node policy.

    rave           False   RAVE / AMAF (Gelly & Silver 2007, 2011): the node policy sees the blended
                           value (1 - beta) Q + beta Q_AMAF of each visited child (treepolicies.amaf)
    rave_schedule  "hand"  beta = sqrt(k / (3 N + k)), N the parent's visits (Gelly & Silver 2007);
                           "mse": beta = n~ / (n + n~ + 4 b^2 n n~), n the child's visits and n~ its
                           AMAF count (the minimum-MSE schedule of Gelly & Silver 2011)
    rave_k         1000    k of the "hand" schedule (MoGo's equivalence parameter), > 0
    rave_bias      0.015   b of the "mse" schedule (4 b^2 = 0.0009), >= 0
    grave_ref      0       GRAVE (Cazenave 2015): the AMAF statistics of the closest ancestor (the
                           node itself included) with at least grave_ref visits; 0 = off.  Implies rave.
    rollout        "random"  the playout: "random" (the game's uniform playout) or another of the
                           game's rollouts (``game.rollouts``: "heuristic" for Go, NoGo, Connect Four)
    rollout_cap    None    stop a playout after this many plies and score the position as it stands
                           (``Rollout.value``); None = play to the end
    reward_bounds  None    (lo, hi): the game's rewards lie in [lo, hi] and are scaled to [0, 1] for
                           the tree; None = the game's ``reward_bounds`` attribute if it has one, else
                           rewards must lie in [0, 1] (anything else is an error)
    fpu            "inf"   first-play urgency, the index of an unvisited child (for PUCT: its Q):
                           "inf" (unvisited children first), "parent" (the node's own mean, for the
                           player choosing there), or a number in [0, 1]
    fpu_reduction  None    x: the parent's mean minus x (Leela Zero); implies fpu="parent"
    prior          "uniform"  the priors P of the children (PUCT's P, widening's order): "uniform", or
                           a prior kernel of the game (``game.priors``: "heuristic" for Go, NoGo,
                           Connect Four, tic-tac-toe)
    widen_k, widen_alpha  None, 0.5   progressive widening: a node with n visits considers only its
                           first ceil(k n^alpha) children in prior order (the game's move order with
                           uniform priors); widen_k > 0, alpha in (0, 1]
    evaluator      None    a leaf evaluator (treepolicies.evaluate): a function or a registered name
    eval_batch     1       leaves evaluated per call (virtual loss keeps them apart), 1..4096
    value_mix      0.0     weight of the playout's result in the backed-up value, in [0, 1]
    transpositions False   positions reached by different move orders share one node
                           (treepolicies.transpositions: the tree becomes a DAG)
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from bandits.spec import parse_bool

__all__ = ["SearchOptions", "OPTION_KEYS", "SCHEDULES", "options_from_spec"]

SCHEDULES = ("hand", "mse")
OPTION_KEYS = ("rave", "rave_schedule", "rave_k", "rave_bias", "grave_ref", "rollout", "rollout_cap",
               "reward_bounds", "fpu", "fpu_reduction", "prior", "widen_k", "widen_alpha", "evaluator",
               "eval_batch", "value_mix", "transpositions")
MAX_ROLLOUT_CAP = 1_000_000
MAX_GRAVE_REF = 10 ** 9

#: layout of SearchOptions.array() (what compiled code reads)
O_RAVE, O_K, O_MSE, O_BIAS, O_REF, O_CAP, O_LO, O_SCALE, O_OPP = range(9)
O_FPU_MODE, O_FPU, O_PRIOR, O_WIDEN_K, O_WIDEN_A = range(9, 14)
N_OPTS = 14
FPU_INF, FPU_VALUE, FPU_PARENT = 0, 1, 2


def _number(name, value, low, high, integer=False, low_open=False):
    bad = isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating))
    if integer and not bad:
        bad = not float(value).is_integer()
    if not bad:
        v = float(value)
        bad = not math.isfinite(v) or v < low or v > high or (low_open and v == low)
    if bad:
        kind = "an integer" if integer else "a number"
        rng = f"{'(' if low_open else '['}{low:g}, {high:g}]" if not integer else f"{int(low)}..{int(high)}"
        raise ValueError(f"{name} must be {kind} in {rng}, got {value!r}")
    return int(value) if integer else float(value)


@dataclasses.dataclass(frozen=True)
class SearchOptions:
    """The enhancement options of one search (module docstring); checked on construction."""

    rave: bool = False
    rave_schedule: str = "hand"
    rave_k: float = 1000.0
    rave_bias: float = 0.015
    grave_ref: int = 0
    rollout: str = "random"
    rollout_cap: int | None = None
    reward_bounds: tuple | None = None
    fpu: object = "inf"
    fpu_reduction: float | None = None
    prior: str = "uniform"
    widen_k: float | None = None
    widen_alpha: float = 0.5
    evaluator: object = None
    eval_batch: int = 1
    value_mix: float = 0.0
    transpositions: bool = False

    def __post_init__(self):
        if not isinstance(self.rave, (bool, np.bool_)):
            raise ValueError(f"rave must be true or false, got {self.rave!r}")
        if self.rave_schedule not in SCHEDULES:
            raise ValueError(f"rave_schedule must be one of {', '.join(SCHEDULES)}, got {self.rave_schedule!r}")
        object.__setattr__(self, "rave_k", _number("rave_k", self.rave_k, 0.0, 1e12, low_open=True))
        object.__setattr__(self, "rave_bias", _number("rave_bias", self.rave_bias, 0.0, 1e6))
        object.__setattr__(self, "grave_ref", _number("grave_ref", self.grave_ref, 0, MAX_GRAVE_REF, integer=True))
        if self.grave_ref > 0:
            object.__setattr__(self, "rave", True)
        object.__setattr__(self, "rave", bool(self.rave))
        if not isinstance(self.rollout, str) or not self.rollout.isidentifier():
            raise ValueError(f"rollout must be a rollout name such as random or heuristic, got {self.rollout!r}")
        if self.rollout_cap is not None:
            object.__setattr__(self, "rollout_cap",
                               _number("rollout_cap", self.rollout_cap, 1, MAX_ROLLOUT_CAP, integer=True))
        if self.reward_bounds is not None:
            object.__setattr__(self, "reward_bounds", check_bounds(self.reward_bounds, "reward_bounds"))
        fpu = self.fpu
        if isinstance(fpu, str) and fpu.strip().lower() in ("inf", "parent"):
            fpu = fpu.strip().lower()
        elif isinstance(fpu, float) and math.isinf(fpu) and fpu > 0:
            fpu = "inf"
        else:
            try:
                fpu = _number("fpu", float(fpu) if isinstance(fpu, str) else fpu, 0.0, 1.0)
            except (ValueError, TypeError):
                raise ValueError(f"fpu must be inf, parent or a number in [0, 1], got {self.fpu!r}") from None
        if self.fpu_reduction is not None:
            object.__setattr__(self, "fpu_reduction", _number("fpu_reduction", self.fpu_reduction, 0.0, 1.0))
            if fpu not in ("inf", "parent"):
                raise ValueError(f"fpu_reduction goes with fpu=parent (the parent's mean minus it), not fpu={fpu!r}")
            fpu = "parent"
        object.__setattr__(self, "fpu", fpu)
        if not isinstance(self.prior, str) or not self.prior.isidentifier():
            raise ValueError(f"prior must be uniform or a prior name such as heuristic, got {self.prior!r}")
        if self.widen_k is not None:
            object.__setattr__(self, "widen_k", _number("widen_k", self.widen_k, 0.0, 1e6, low_open=True))
        object.__setattr__(self, "widen_alpha", _number("widen_alpha", self.widen_alpha, 0.0, 1.0, low_open=True))
        if self.evaluator is not None and not callable(self.evaluator) and not isinstance(self.evaluator, str):
            raise ValueError(f"evaluator must be a function or a registered evaluator name, got {self.evaluator!r}")
        object.__setattr__(self, "eval_batch", _number("eval_batch", self.eval_batch, 1, 4096, integer=True))
        object.__setattr__(self, "value_mix", _number("value_mix", self.value_mix, 0.0, 1.0))
        if self.evaluator is None and (self.value_mix > 0.0 or self.eval_batch != 1):
            raise ValueError("eval_batch and value_mix go with evaluator=...")  # (refused when parsed, not at a move)
        if not isinstance(self.transpositions, (bool, np.bool_)):
            raise ValueError(f"transpositions must be true or false, got {self.transpositions!r}")
        object.__setattr__(self, "transpositions", bool(self.transpositions))

    @property
    def plain(self) -> bool:
        """True when no option changes the search (the plain UCT loop runs)."""
        return (not self.rave and self.rollout == "random" and self.rollout_cap is None
                and self.reward_bounds is None and self.fpu == "inf" and self.prior == "uniform"
                and self.widen_k is None and self.evaluator is None and not self.transpositions)

    @property
    def view(self) -> bool:
        """True when the node policies see a view of NVIEW rows (priors or first-play urgency)."""
        return self.fpu != "inf" or self.prior != "uniform" or self.widen_k is not None or self.evaluator is not None

    def spec_items(self) -> list[str]:
        """The options that differ from the defaults as ``key=value`` texts (for player names)."""
        out = []
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v != f.default:
                if f.name == "reward_bounds":
                    v = f"{v[0]:g}:{v[1]:g}"
                elif f.name == "evaluator" and callable(v):
                    v = getattr(v, "__name__", "function")
                out.append(f"{f.name}={str(v).lower() if isinstance(v, bool) else v}")
        return out

    def array(self, bounds=None) -> np.ndarray:
        """The options as the float64 array compiled code reads (``O_*`` slots); ``bounds`` = the
        reward bounds in force (these options' own, or the game's)."""
        lo, hi = bounds if bounds is not None else (0.0, 1.0)
        a = np.zeros(N_OPTS)
        a[O_RAVE] = 1.0 if self.rave else 0.0
        a[O_K] = self.rave_k
        a[O_MSE] = 1.0 if self.rave_schedule == "mse" else 0.0
        a[O_BIAS] = self.rave_bias
        a[O_REF] = self.grave_ref
        a[O_CAP] = -1 if self.rollout_cap is None else self.rollout_cap
        a[O_LO] = lo
        a[O_SCALE] = 1.0 / (hi - lo)
        a[O_OPP] = 1.0 if self.grave_ref > 0 else 0.0
        if self.fpu == "parent":
            a[O_FPU_MODE], a[O_FPU] = FPU_PARENT, self.fpu_reduction or 0.0
        elif self.fpu != "inf":
            a[O_FPU_MODE], a[O_FPU] = FPU_VALUE, self.fpu
        a[O_PRIOR] = 0.0 if self.prior == "uniform" else 1.0
        a[O_WIDEN_K] = 0.0 if self.widen_k is None else self.widen_k
        a[O_WIDEN_A] = self.widen_alpha
        return a


def check_bounds(bounds, name="reward_bounds") -> tuple:
    """(lo, hi) as floats with lo < hi, both finite, else ValueError naming ``name``."""
    try:
        lo, hi = bounds
        lo, hi = float(lo), float(hi)
        ok = math.isfinite(lo) and math.isfinite(hi) and lo < hi
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{name} must be two finite numbers (lo, hi) with lo < hi, got {bounds!r}")
    return (lo, hi)


def options_from_spec(params: dict, spec: str) -> SearchOptions:
    """Pop the option keys (OPTION_KEYS) from a player spec's ``params`` (raw strings) into a
    SearchOptions; ``reward_bounds`` is written ``lo:hi``."""
    kw = {}
    for key in OPTION_KEYS:
        if key not in params:
            continue
        raw = params.pop(key)
        try:
            if key in ("rave", "transpositions"):
                kw[key] = parse_bool(key, raw, spec)
            elif key in ("rave_schedule", "rollout", "prior", "fpu", "evaluator"):
                kw[key] = raw
            elif key in ("grave_ref", "rollout_cap", "eval_batch"):
                kw[key] = int(raw)
            elif key == "reward_bounds":
                kw[key] = tuple(float(x) for x in raw.split(":"))
            else:
                kw[key] = float(raw)
        except ValueError as exc:
            if key in ("rave", "transpositions"):
                raise
            want = {"grave_ref": "an integer", "rollout_cap": "an integer", "eval_batch": "an integer",
                    "reward_bounds": "lo:hi"}.get(key, "a number")
            raise ValueError(f"{key} must be {want} in player spec {spec!r}, got {raw!r}") from exc
    return SearchOptions(**kw)
