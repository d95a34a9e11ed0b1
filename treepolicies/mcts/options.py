"""The search's options, each declared once (like a policy's parameters: ``bandits.Param``, default,
range, doc): ``OPTIONS``, and the record a search takes, :class:`SearchOptions`.

Every option is a keyword of :func:`treepolicies.search`, a field of SearchOptions and a key of
player specs (``ucb1:c=0.5,rave=true,rollout=heuristic``); the command line, the docs' tables
(docs/options.md, generated from these declarations) and the capability check
(:mod:`treepolicies.mcts.capabilities`, which says what combines with what) read them from here.
Adding an option is one declaration here plus the step that reads it.

How a value is read (``Option.kind``): ``param`` a number, bool or choice checked against its
Param; ``optional`` a number or None (unset); ``name`` a name a game offers (rollouts, priors);
``rollout`` such a name or a playout policy's spec (treepolicies.mcts.playouts);
``bounds`` two numbers lo < hi (``lo:hi`` in a spec); ``fpu`` inf, parent or a number in [0, 1];
``evaluator`` a function or a registered evaluator's name; ``policy`` a policy spec (or None);
``auto`` true, false or auto.

Implications (applied when a record is made): ``grave_ref > 0`` turns ``rave`` on;
``fpu_reduction`` sets ``fpu=parent``.  ``eval_batch`` and ``value_mix`` go with an evaluator.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from bandits.registry import Param
from bandits.spec import parse_bool

__all__ = ["Option", "OPTIONS", "SearchOptions", "set_playout_check", "OPTION_KEYS", "ENHANCEMENT_KEYS", "SCHEDULES", "FINALS",
           "PARALLEL_MODES", "options_from_spec", "check_bounds", "Budget", "check_budget"]

SCHEDULES = ("hand", "mse")
FINALS = ("robust", "max", "recommend")
PARALLEL_MODES = ("tree", "root", "leaf")
DEFAULT_NODE_CAP = 2_000_000
MAX_ITERATIONS = 2**62  # the compiled loops count iterations in int64
MAX_THREADS = 256
MAX_VIRTUAL_LOSS = 1000
MAX_ROLLOUT_CAP = 1_000_000
MAX_GRAVE_REF = 10 ** 9

#: layout of SearchOptions.array() (what compiled code reads)
O_RAVE, O_K, O_MSE, O_BIAS, O_REF, O_CAP, O_LO, O_SCALE, O_OPP = range(9)
O_FPU_MODE, O_FPU, O_PRIOR, O_WIDEN_K, O_WIDEN_A, O_NOISE, O_NOISE_A, O_PVIS = range(9, 17)
N_OPTS = 17
FPU_INF, FPU_VALUE, FPU_PARENT = 0, 1, 2


@dataclasses.dataclass(frozen=True)
class Option:
    """A declared search option: its Param (default, range, doc), how a value is read (``kind``,
    module docstring) and its group ("search", "parallel" or "enhancement")."""

    param: Param
    kind: str = "param"
    group: str = "search"
    integer: bool = False

    @property
    def default(self):
        return self.param.default

    @property
    def doc(self) -> str:
        return self.param.doc


def _p(default, kind="param", group="enhancement", integer=False, **param):
    return Option(Param(default, **param), kind=kind, group=group, integer=integer)


#: every option of a search, in the order of SearchOptions' fields
OPTIONS: dict[str, Option] = {
    # -- the search
    "final": _p("robust", group="search", choices=FINALS,
                doc="the final move: robust = most visits (ties: higher mean), max = highest mean among visited "
                    "moves (ties: more visits), recommend = the root policy's own recommendation (Policy.recommend: "
                    "the survivor of sr / seqhalving, gumbel's best of the most visited; the best mean otherwise)"),
    "solver": _p(False, group="search", doc="MCTS-Solver (Winands et al. 2008): proven wins and losses; a proven win "
                                            "is played at once, proven losses are avoided"),
    "node_cap": _p(DEFAULT_NODE_CAP, group="search", integer=True, low=2, high=10 ** 10,
                   doc="the most nodes the tree may hold; when reached the search stops (stop_reason node_cap)"),
    "early_stop": _p(True, group="search", doc="stop when the robust final move can no longer change (an iteration "
                                               "budget only)"),
    "specialize": _p("auto", kind="auto", group="search",
                     doc="the policy's code compiled into the game's loop (faster selection; one more compilation per "
                         "game and policy, cached on disk): true, false, or auto (the specialised loop once it is "
                         "on disk; a long run compiles it in the background)"),
    "root_policy": _p(None, kind="policy", group="search",
                      doc="a bandit policy spec for the root (any registered policy, plugins included; its horizon "
                          "is bound to the iterations), the tree policy below it; None: the tree policy everywhere"),
    # -- parallel search (docs/parallel.md)
    "threads": _p(1, group="parallel", integer=True, low=1, high=MAX_THREADS,
                  doc="threads of one search (1: single-threaded)"),
    "parallel": _p("tree", group="parallel", choices=PARALLEL_MODES,
                   doc="with threads > 1: tree (one shared tree, virtual loss), root (independent trees, root "
                       "statistics summed) or leaf (one descent, a playout per thread)"),
    "virtual_loss": _p(1, group="parallel", integer=True, low=0, high=MAX_VIRTUAL_LOSS,
                       doc="visits a tree-parallel descent adds to each node of its path until its backup"),
    # -- the enhancements (docs/enhancements.md)
    "rave": _p(False, doc="RAVE / AMAF (Gelly & Silver 2007, 2011): the policy sees (1 - beta) Q + beta Q_AMAF"),
    "rave_schedule": _p("hand", choices=SCHEDULES,
                        doc="hand: beta = sqrt(k / (3 N + k)); mse: beta = n~ / (n + n~ + 4 b^2 n n~)"),
    "rave_k": _p(1000.0, low=0.0, high=1e12, low_open=True, doc="k of the hand schedule (MoGo's equivalence "
                                                               "parameter)"),
    "rave_bias": _p(0.015, low=0.0, high=1e6, doc="b of the mse schedule"),
    "grave_ref": _p(0, integer=True, low=0, high=MAX_GRAVE_REF,
                    doc="GRAVE (Cazenave 2015): AMAF statistics of the closest ancestor with at least this many "
                        "visits; 0 = off; > 0 turns rave on"),
    "rollout": _p("random", kind="rollout",
                  doc="the playout: random, a rollout the game offers (game.rollouts: heuristic for Go, NoGo, "
                      "Connect Four; patterns, MoGo's 3x3 patterns, nakade and fillboard, those with MoGo's later "
                      "rules, for Go), or a playout policy with "
                      "search-wide statistics by spec (mast, mast:epsilon=0.1, nst, lgrf1, lgrf2, ppa, a plugin's: "
                      "docs/playouts.md)"),
    "rollout_cap": _p(None, kind="optional", integer=True, low=1, high=MAX_ROLLOUT_CAP,
                      doc="stop a playout after this many plies and score the position as it stands; none = play to "
                          "the end"),
    "reward_bounds": _p(None, kind="bounds", doc="lo:hi, the game's rewards, scaled to [0, 1] for the tree; none = "
                                                 "the game's reward_bounds attribute, else [0, 1]"),
    "fpu": _p("inf", kind="fpu", doc="first-play urgency, the index of an unvisited child (PUCT: its Q): inf, "
                                     "parent (the node's own mean) or a number in [0, 1]"),
    "fpu_reduction": _p(None, kind="optional", low=0.0, high=1.0,
                        doc="x: the parent's mean minus x (Leela Zero); sets fpu=parent"),
    "prior": _p("uniform", kind="name", doc="the children's priors (PUCT's P, widening's order): uniform, or a prior "
                                            "the game offers (game.priors: heuristic; knowledge for Go)"),
    "prior_visits": _p(0.0, low=0.0, high=1e6,
                       doc="n0: each child carries n0 virtual results of mean Q0 = n P / (1 + n P) (P its prior, n "
                           "the node's children: 1/2 at the uniform prior) in what its node's policy sees, its AMAF "
                           "statistics too with RAVE (Gelly & Silver's prior knowledge as equivalent experience); "
                           "0 = off"),
    "widen_k": _p(None, kind="optional", low=0.0, high=1e6, low_open=True,
                  doc="progressive widening: a node with n visits considers its first ceil(k n^alpha) children"),
    "widen_alpha": _p(0.5, low=0.0, high=1.0, low_open=True, doc="alpha of progressive widening"),
    "evaluator": _p(None, kind="evaluator", doc="a leaf evaluator (treepolicies.mcts.evaluate): a function or a "
                                                "registered name"),
    "eval_batch": _p(1, integer=True, low=1, high=4096, doc="leaves evaluated per call (virtual loss keeps them "
                                                            "apart)"),
    "value_mix": _p(0.0, low=0.0, high=1.0, doc="weight of a playout's result in the backed-up value"),
    "transpositions": _p(False, doc="positions reached by different move orders share one node (a DAG: "
                                    "treepolicies.mcts.dag)"),
    "root_noise": _p(0.0, low=0.0, high=1.0, doc="eps: Dirichlet noise on the root's priors when it is expanded, "
                                                 "P = (1 - eps) p + eps Dir(alpha) (AlphaZero; Silver et al. 2017); "
                                                 "0 = off"),
    "root_noise_alpha": _p(0.3, low=0.0, high=100.0, low_open=True,
                           doc="alpha of the root's Dirichlet noise (AlphaZero: 0.3 chess, 0.03 Go)"),
}

OPTION_KEYS = tuple(OPTIONS)
#: the options that change the iteration itself (all at their defaults: the plain search)
ENHANCEMENT_KEYS = tuple(k for k, o in OPTIONS.items() if o.group == "enhancement")


def _number(name, value, opt: Option):
    p = opt.param
    bad = isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating))
    if opt.integer and not bad:
        bad = not isinstance(value, (int, np.integer))  # (2.0 is not an integer count)
    if not bad:
        v = float(value)
        bad = not math.isfinite(v) or (p.low is not None and (v < p.low or (p.low_open and v == p.low))) or \
            (p.high is not None and v > p.high)
    if bad:
        if opt.integer:
            raise ValueError(f"{name} must be an integer in {int(p.low)}..{int(p.high)}, got {value!r}")
        rng = f"{'(' if p.low_open else '['}{p.low:g}, {p.high:g}]"
        raise ValueError(f"{name} must be a number in {rng}, got {value!r}")
    return int(value) if opt.integer else float(value)


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


def _check(name: str, opt: Option, value):
    """``value`` of option ``name`` checked and normalised (one-line ValueError naming it)."""
    p, kind = opt.param, opt.kind
    if kind == "param":
        if p.choices:
            if value not in p.choices:
                raise ValueError(f"{name} must be one of {', '.join(p.choices)}, got {value!r}")
            return value
        if isinstance(p.default, bool):
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name} must be true or false, got {value!r}")
            return bool(value)
        return _number(name, value, opt)
    if kind == "optional":
        return None if value is None else _number(name, value, opt)
    if kind == "rollout":  # a game's rollout by name, or a playout policy's spec (treepolicies.mcts.playouts)
        spec = _PLAYOUT_SPEC[0](value) if _PLAYOUT_SPEC[0] is not None and isinstance(value, str) else None
        if spec is not None:
            return spec
        kind = "name"
    if kind == "name":
        if not isinstance(value, str) or not value.isidentifier():
            raise ValueError(f"{name} must be a name such as {p.default} or heuristic, got {value!r}")
        return value
    if kind == "bounds":
        return None if value is None else check_bounds(value, name)
    if kind == "fpu":
        if isinstance(value, str) and value.strip().lower() in ("inf", "parent"):
            return value.strip().lower()
        if isinstance(value, float) and math.isinf(value) and value > 0:
            return "inf"
        try:
            v = float(value) if isinstance(value, str) else value
            return _number(name, v, Option(Param(0.0, low=0.0, high=1.0)))
        except (ValueError, TypeError):
            raise ValueError(f"{name} must be inf, parent or a number in [0, 1], got {value!r}") from None
    if kind == "evaluator":
        if value is not None and not callable(value) and not isinstance(value, str):
            raise ValueError(f"{name} must be a function or a registered evaluator name, got {value!r}")
        return value
    if kind == "policy":
        if value is None:
            return None
        from bandits import Policy, make_policy

        if isinstance(value, Policy):
            return value.spec
        if not isinstance(value, str):
            raise ValueError(f"{name} must be a policy spec such as 'seqhalving' or 'ucb1:c=0.5', got {value!r}")
        make_policy(value)  # (an unknown name or a bad parameter: the policy's own one-line error)
        return value.strip()
    if kind == "auto":
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if value == "auto":
            return "auto"
        raise ValueError(f"{name} must be true, false or auto, got {value!r}")
    raise AssertionError(kind)  # pragma: no cover - a declaration error


#: the check of a playout policy's spec: spec -> its normal form, None if it names no playout policy,
#: ValueError if it is wrong (set by treepolicies.mcts.playouts, which imports this module)
_PLAYOUT_SPEC = [None]


def set_playout_check(check) -> None:
    """Install the check of ``rollout=`` specs that name a playout policy (treepolicies.mcts.playouts)."""
    _PLAYOUT_SPEC[0] = check


def _init(self, **values):
    unknown = sorted(set(values) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown search option {unknown[0]!r}; valid options: {', '.join(OPTIONS)}")
    for name, opt in OPTIONS.items():
        object.__setattr__(self, name, _check(name, opt, values.get(name, opt.default)))
    # implications (module docstring)
    if self.grave_ref > 0:
        object.__setattr__(self, "rave", True)
    if self.fpu_reduction is not None:
        if self.fpu not in ("inf", "parent"):
            raise ValueError(f"fpu_reduction goes with fpu=parent (the parent's mean minus it), not fpu={self.fpu!r}")
        object.__setattr__(self, "fpu", "parent")
    if self.evaluator is None and (self.value_mix > 0.0 or self.eval_batch != 1):
        raise ValueError("eval_batch and value_mix go with evaluator=...")


class _Record:
    """Methods of :class:`SearchOptions` (the class itself is made from :data:`OPTIONS`)."""

    @property
    def plain(self) -> bool:
        """True when no enhancement is on (the plain iteration runs)."""
        return all(getattr(self, k) == OPTIONS[k].default for k in ENHANCEMENT_KEYS if k not in
                   ("rave_schedule", "rave_k", "rave_bias", "widen_alpha", "eval_batch", "value_mix",
                    "root_noise_alpha"))

    @property
    def view(self) -> bool:
        """True when the node policies see a view of NVIEW rows (priors, first-play urgency, widening, an
        evaluator, root noise or prior_visits)."""
        return self.fpu != "inf" or self.prior != "uniform" or self.widen_k is not None or self.evaluator is not None \
            or self.root_noise > 0.0 or self.prior_visits > 0.0

    @property
    def stores_priors(self) -> bool:
        """True when the tree keeps a prior per node (a prior kernel, an evaluator or the root's noise)."""
        return self.prior != "uniform" or self.evaluator is not None or self.root_noise > 0.0

    def evaluator_fn(self):
        """The leaf evaluator as a function (a registered name looked up), or None."""
        from treepolicies.mcts.evaluators import get_evaluator

        return get_evaluator(self.evaluator)

    def changed(self) -> dict:
        """The options that differ from their defaults."""
        return {k: getattr(self, k) for k, o in OPTIONS.items() if getattr(self, k) != o.default}

    def spec_items(self, keys=None) -> list[str]:
        """The options that differ from the defaults as ``key=value`` texts (for player names);
        ``keys``: only these."""
        out = []
        for k, v in self.changed().items():
            if keys is not None and k not in keys:
                continue
            if k == "reward_bounds":
                v = f"{v[0]:g}:{v[1]:g}"
            elif k == "evaluator" and callable(v):
                v = getattr(v, "__name__", "function")
            out.append(f"{k}={str(v).lower() if isinstance(v, bool) else v}")
        return out

    def replace(self, **changes) -> "SearchOptions":
        """A copy with ``changes`` (checked as on construction)."""
        values = {k: getattr(self, k) for k in OPTIONS}
        values.update(changes)
        return SearchOptions(**values)

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
        a[O_PRIOR] = 1.0 if self.prior != "uniform" or self.root_noise > 0.0 else 0.0
        a[O_WIDEN_K] = 0.0 if self.widen_k is None else self.widen_k
        a[O_WIDEN_A] = self.widen_alpha
        a[O_NOISE] = self.root_noise
        a[O_NOISE_A] = self.root_noise_alpha
        a[O_PVIS] = self.prior_visits
        return a


SearchOptions = dataclasses.make_dataclass(
    "SearchOptions", [(k, object, dataclasses.field(default=o.default)) for k, o in OPTIONS.items()],
    bases=(_Record,), frozen=True, init=False,
    namespace={"__init__": _init, "__doc__": "The options of one search, each declared in OPTIONS (module "
                                               "docstring); checked on construction, frozen."})
SearchOptions.__module__ = __name__
SearchOptions.__init__.__doc__ = "SearchOptions(**options): every field of OPTIONS, defaults where not given."


def _parse(key: str, opt: Option, raw: str, spec: str):
    """A player spec's raw text for option ``key`` as the value SearchOptions checks."""
    p, kind = opt.param, opt.kind
    low = raw.strip().lower()
    try:
        if kind == "param" and isinstance(p.default, bool):
            return parse_bool(key, raw, spec)
        if kind in ("param", "optional") and not p.choices:
            if kind == "optional" and low in ("none", "null"):
                return None
            return int(raw) if opt.integer else float(raw)
        if kind == "bounds":
            if low in ("none", "null"):
                return None
            return tuple(float(x) for x in raw.split(":"))
        if kind == "auto":
            return "auto" if low == "auto" else parse_bool(key, raw, spec)
        if kind == "rollout":  # (a playout policy's parameters in parentheses: rollout=(mast:tau=0.5,epsilon=0.1))
            return raw[1:-1].strip() if raw.startswith("(") and raw.endswith(")") else raw
        if kind == "policy":  # (a spec with parameters of its own in parentheses: root_policy=(gumbel:m=4,c_scale=0.1))
            if low in ("none", "null"):
                return None
            return raw[1:-1].strip() if raw.startswith("(") and raw.endswith(")") else raw
        return raw
    except ValueError as exc:
        if kind in ("auto",) or (kind == "param" and isinstance(p.default, bool)):
            raise
        p = opt.param
        if kind == "bounds":
            want = "lo:hi (two numbers, lo < hi)"
        elif opt.integer:
            want = f"an integer in {int(p.low)}..{int(p.high)}"
        else:
            want = f"a number in {'(' if p.low_open else '['}{p.low:g}, {p.high:g}]"
        raise ValueError(f"{key} must be {want} in player spec {spec!r}, got {raw!r}") from exc


def options_from_spec(params: dict, spec: str, base=None) -> "SearchOptions":
    """Pop the option keys (OPTION_KEYS) from a player spec's ``params`` (raw strings) into a
    SearchOptions (over ``base``'s values, if given)."""
    kw = {}
    for key, opt in OPTIONS.items():
        if key in params:
            kw[key] = _parse(key, opt, params.pop(key), spec)
    return base.replace(**kw) if base is not None else SearchOptions(**kw)


@dataclasses.dataclass(frozen=True)
class Budget:
    """A search's budget: ``iterations`` (playouts) and/or ``seconds`` (at least one; the search
    stops at whichever comes first).  Checked on construction."""

    iterations: int | None = None
    seconds: float | None = None

    def __post_init__(self):
        it, sec = check_budget(self.iterations, self.seconds)
        object.__setattr__(self, "iterations", it)
        object.__setattr__(self, "seconds", sec)


def check_budget(iterations, seconds):
    """(iterations, seconds) checked: at least one; ValueError naming the argument and its range."""
    if iterations is None and seconds is None:
        raise ValueError("give a budget: iterations=N (>= 1) and/or seconds=S (> 0)")
    if iterations is not None:
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) \
                or not 1 <= iterations <= MAX_ITERATIONS:
            raise ValueError(f"iterations must be an integer in 1..{MAX_ITERATIONS}, got {iterations!r}")
        iterations = int(iterations)
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float, np.number)) \
                or not math.isfinite(seconds) or seconds <= 0:
            raise ValueError(f"seconds must be a number > 0, got {seconds!r}")
        seconds = float(seconds)
    return iterations, seconds
