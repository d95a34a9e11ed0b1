"""The one registry of bandit policies: built-in and user-defined policies register the same way.

A policy is a :class:`bandits.Policy` subclass with a spec name, its parameters, its state widths
and a :class:`KernelSpec` naming its compiled functions.  Three ways to write one, all ending in
:func:`register_policy` (which is what the built-in policies use too):

* an **index policy**, one function of an arm's statistics (:mod:`bandits.index`)::

      @bandits.index_policy("myucb", c=1.0)
      @numba.njit
      def myucb(stats, i, t, params, state):
          return stats[MEAN, i] + params[0] * math.sqrt(math.log(t) / stats[COUNT, i])

* a **stateful policy**, its own init / select / on_record kernels with a per-bandit state of
  ``state_width`` floats and a per-arm state of ``arm_state_width`` rows
  (:func:`stateful_policy`; signatures in :mod:`bandits.kernels`);
* a **Policy subclass** with its own ``__init__`` (validation), ``_pack`` (parameters as floats)
  and ``kernel_spec``, decorated with :func:`register_policy`.

Once registered, the name works everywhere: :func:`bandits.make_policy` spec strings, the testbed
runner, ``treepolicies.search`` and players, and the command line (``banditree ... --plugin
FILE.py`` loads a file of registrations, :func:`load_plugin`).  A name that is not registered is an
error naming the registered ones.

Kernels are compiled the first time a policy is used on a machine and cached on disk (numba);
a policy whose functions numba cannot compile (it calls scipy, say) runs the same functions as
plain Python through numba's object mode, much slower, after a one-line notice.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from typing import Any, Callable, NamedTuple

import numba as nb
import numpy as np
from numba.core.errors import NumbaError

from bandits.compiling import notice, source_hash
from bandits.kernels import INIT_SIG, RECORD_SIG, SELECT_SIG, Kernel, PolicyKernels

__all__ = ["KernelSpec", "Param", "POLICIES", "register_policy", "index_policy", "stateful_policy",
           "kernels_for", "policy_key", "load_plugin", "policy_names", "njit_kernel"]


class KernelSpec(NamedTuple):
    """A policy's compiled functions (njit; plain Python functions are compiled, or run as Python).

    index    index(stats, i, t, params, state) -> float        (index policies; bandits.index)
    prepare  prepare(params, state, valid, t)                   (index policies; optional)
    select   select(params, state, arm_state, stats, valid, t, rng, work) -> arm   (stateful)
    init     init(params, state, arm_state, valid)              (optional)
    on_record  on_record(params, state, arm_state, stats, arm, reward)   (optional)

    Exactly one of ``index`` and ``select`` is given.
    """

    index: Any = None
    prepare: Any = None
    select: Any = None
    init: Any = None
    on_record: Any = None


@dataclasses.dataclass(frozen=True)
class Param:
    """A declared parameter of a registered policy (:func:`index_policy`, :func:`stateful_policy`).

    default: a number, a bool, a str (then ``choices`` lists the valid values) or None (only for
    ``horizon``: None means "bind later" to a testbed's horizon or a search's iteration budget).
    low, high: inclusive bounds of a number (``low_open``: low excluded).  The policy's kernels get
    the parameters in declaration order as floats: numbers as given, bools as 1.0 / 0.0, a choice
    as its index in ``choices``, an unbound horizon as 0.0.
    """

    default: Any
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple | None = None
    doc: str = ""


#: spec name -> (class, fixed parameters)
POLICIES: dict[str, tuple[type, dict]] = {}


def policy_names() -> list[str]:
    """The registered spec names."""
    return list(POLICIES)


def register_policy(cls=None, *, name: str | None = None, fixed: dict | None = None):
    """Register a :class:`bandits.Policy` subclass under ``name`` (default ``cls.name``).

    fixed: parameters this name fixes (``greedy`` is ``egreedy`` with ``epsilon=0``).  Usable as
    a decorator (``@register_policy``).  A name already registered by another class is an error;
    the same class defined again (a re-run notebook cell, a reloaded plugin) replaces it.
    """
    if cls is None:
        return lambda c: register_policy(c, name=name, fixed=fixed)
    from bandits.policy import Policy

    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise ValueError(f"register_policy needs a bandits.Policy subclass, got {cls!r}")
    spec_name = (name or cls.name or "").strip().lower()
    if not spec_name or not spec_name.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"a policy name must be a non-empty word (letters, digits, _ or -), got {spec_name!r}")
    kspec = getattr(cls, "kernel_spec", None)
    if not isinstance(kspec, KernelSpec) or (kspec.index is None) == (kspec.select is None):
        raise ValueError(f"{cls.__name__}.kernel_spec must be a bandits.KernelSpec with exactly one of "
                         "index= (an index policy) and select= (a stateful policy)")
    for width in ("state_width", "arm_state_width"):
        value = getattr(cls, width)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{cls.__name__}.{width} must be an integer >= 0, got {value!r}")
    old = POLICIES.get(spec_name)
    if old is not None and old[0] is not cls and _identity(old[0]) != _identity(cls):
        raise ValueError(f"policy name {spec_name!r} is already registered by {_identity(old[0])}; "
                         "choose another name")
    POLICIES[spec_name] = (cls, dict(fixed or {}))
    for cached in [c for c in _KERNELS if c[0] is cls]:
        del _KERNELS[cached]
    return cls


def _identity(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# -- policies declared by their functions ------------------------------------------------------------

def _as_param(name: str, value) -> Param:
    param = value if isinstance(value, Param) else Param(value)
    d = param.default
    if d is None and name != "horizon":
        raise ValueError(f"parameter {name!r}: only 'horizon' may default to None")
    if isinstance(d, str) and not param.choices:
        raise ValueError(f"parameter {name!r}: a text parameter needs choices=(...)")
    if not isinstance(d, (bool, int, float, str, type(None))):
        raise ValueError(f"parameter {name!r}: default must be a number, bool or str, got {d!r}")
    return param


def _check_value(name: str, param: Param, value):
    from bandits.policy import Policy

    if name == "horizon" and param.default is None:
        if value is None:
            return None
        if isinstance(value, bool) or not float(value).is_integer() or value < 1:
            raise ValueError(f"horizon must be an integer >= 1, got {value!r}")
        return int(value)
    if param.choices:
        return Policy._check_choice(name, value, tuple(param.choices))
    if isinstance(param.default, bool):
        return Policy._check_bool(name, value)
    value = Policy._check_float(name, value, low=param.low, high=param.high, low_open=param.low_open)
    if isinstance(param.default, int):
        if not value.is_integer():
            raise ValueError(f"{name} must be an integer, got {value!r}")
        return int(value)
    return value


def _pack_value(name, param: Param, value) -> float:
    if value is None:
        return 0.0
    if param.choices:
        return float(list(param.choices).index(value))
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    return float(value)


def _declared_class(name: str, kspec: KernelSpec, params: dict, state_width: int, arm_state_width: int,
                    doc: str | None, module: str, recommend: Callable | None = None, hands_down: bool = False):
    from bandits.policy import Policy

    declared = {key: _as_param(key, value) for key, value in params.items()}

    def __init__(self, **kwargs):
        unknown = sorted(set(kwargs) - set(declared))
        if unknown:
            raise ValueError(f"unknown parameter {unknown[0]!r} for policy {name!r}; valid parameters: "
                             f"{', '.join(declared) if declared else '(none)'}")
        values = {}
        for key, param in declared.items():
            values[key] = _check_value(key, param, kwargs.get(key, param.default))
        Policy.__init__(self, **values)

    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=p.default) for k, p in declared.items()])

    def _pack(self):
        return [_pack_value(k, p, getattr(self, k)) for k, p in declared.items()]

    namespace = {
        "name": name, "state_width": state_width, "arm_state_width": arm_state_width,
        "kernel_spec": kspec, "declared_params": declared, "__init__": __init__, "_pack": _pack,
        "__doc__": doc or _describe(name, kspec, declared), "__module__": module, "hands_down": bool(hands_down),
    }
    if "horizon" in declared and declared["horizon"].default is None:
        namespace["needs_horizon"] = property(lambda self: self.horizon is None)
        namespace["bind"] = lambda self, horizon: self.replace(horizon=int(horizon)) if self.horizon is None else self
    if recommend is not None:
        rows = njit_kernel(recommend)

        def recommend_method(self, batch, rng):
            """(B,) the arm each bandit recommends: the policy's own rule (its ``recommend`` kernel, on
            copies of the state), ties from ``rng`` (a Stream, Generator or int seed)."""
            from bandits.rng import make_stream

            out = np.empty(batch.n_bandits, dtype=np.int64)
            rows(np.asarray(self.params, dtype=np.float64), batch.state.copy(), batch.arm_state.copy(), batch.stats,
                 batch.valid, make_stream(rng).state, out)
            return out
        namespace["recommend"] = recommend_method
    cls = type(f"{name}_policy", (Policy,), namespace)
    cls.__qualname__ = cls.__name__
    return cls


def _describe(name, kspec, declared) -> str:
    fn = kspec.index if kspec.index is not None else kspec.select
    text = inspect.getdoc(getattr(fn, "py_func", fn)) or f"Policy {name!r}."
    if declared:
        text += "\n\nParameters: " + ", ".join(f"{k} (default {p.default!r})" for k, p in declared.items())
    return text


def _caller_module(depth: int = 2) -> str:
    frame = sys._getframe(depth)
    return frame.f_globals.get("__name__", "__main__")


def index_policy(name: str, *, prepare: Callable | None = None, init: Callable | None = None,
                 on_record: Callable | None = None, state_width: int = 0, arm_state_width: int = 0,
                 doc: str | None = None, **params):
    """Decorator: register the index function it decorates as policy ``name`` (:mod:`bandits.index`).

    params: the parameters with their defaults (a number, bool, or :class:`Param`), passed to the
    functions as ``params`` in this order.  prepare / init / on_record and the state widths are for
    index policies with a per-bandit schedule.  Returns the index function unchanged; the policy
    class is ``bandits.POLICIES[name][0]``.
    """
    module = _caller_module()

    def decorate(index):
        kspec = KernelSpec(index=index, prepare=prepare, init=init, on_record=on_record)
        register_policy(_declared_class(name, kspec, params, state_width, arm_state_width, doc, module))
        return index
    return decorate


def stateful_policy(name: str, *, select: Callable, init: Callable | None = None,
                    on_record: Callable | None = None, state_width: int = 0, arm_state_width: int = 0,
                    doc: str | None = None, recommend: Callable | None = None, hands_down: bool = False,
                    **params):
    """Register a policy given by its own kernels (signatures in :mod:`bandits.kernels`); returns its class.

    state_width: floats of per-bandit state; arm_state_width: rows of per-arm state (A, K).
    params: as for :func:`index_policy`.
    recommend: optional compiled ``recommend_rows(params, state, arm_state, stats, valid, rng, out)``
        writing out[b], the arm bandit b recommends (state (B, S), arm_state (B, A, K) copies it may
        change, stats (B, NSTAT, K), valid (B, K), rng a stream's state): the policy's own
        ``Policy.recommend`` (a best-arm policy's survivor; a search's ``final="recommend"``).
        Without it the policy recommends the best empirical mean (``Policy.recommend``'s default).
    hands_down: in a search tree, the policy reads at each node other than the root, in state[0],
        what its parent's policy wrote in the node's per-arm state row 0 (a budget handed down, as
        SHOT's; :func:`bandits.kernels.handed_down`); ``init`` sets state[0] for the root.
    """
    kspec = KernelSpec(select=select, init=init, on_record=on_record)
    return register_policy(_declared_class(name, kspec, params, state_width, arm_state_width, doc,
                                           _caller_module(), recommend=recommend, hands_down=hands_down))


# -- compiling a policy's kernels ---------------------------------------------------------------------

_KERNELS: dict[tuple, tuple] = {}  # (class, KernelSpec) -> (PolicyKernels, static key)


def _python_function(fn):
    return getattr(fn, "py_func", fn)


def njit_kernel(fn):
    """fn as a numba dispatcher, cached on disk when it comes from a file (numba cannot cache code
    typed at a prompt or passed to ``python -c``): a plain function is wrapped with njit, and a
    plugin's ``@numba.njit`` function without ``cache=True`` is compiled again from its Python
    function with the same options and ``cache=True``.  Without that, every process (each testbed
    worker, each tournament worker) compiled such a kernel anew: its cache was missed, not only
    announced.  Node policies' kernels and playout policies' (treepolicies.mcts.playouts) go
    through it."""
    dispatcher = isinstance(fn, nb.core.registry.CPUDispatcher)
    if dispatcher and not isinstance(fn._cache, nb.core.caching.NullCache):
        return fn  # cached already (our own kernels, cache=True plugins)
    py = _python_function(fn)
    try:
        source = inspect.getsourcefile(py)
    except TypeError:
        source = None
    cache = bool(source) and os.path.isfile(source)
    if dispatcher:
        if not cache:
            return fn
        options = {k: v for k, v in fn.targetoptions.items() if k != "nopython"}
        from bandits.compiling import track

        return track(nb.njit(cache=True, locals=dict(fn.locals), **options)(py))
    return nb.njit(cache=cache)(fn)


@nb.njit(cache=True)
def _no_init(params, state, arm_state, valid):  # pragma: no cover - never called (has_init False)
    pass


@nb.njit(cache=True)
def _no_record(params, state, arm_state, stats, arm, reward):  # pragma: no cover - never called
    pass


def _python_kernel(fn, which: str):
    """A compiled kernel of signature ``which`` that calls the plain Python ``fn`` (object mode)."""
    if which == "select":
        @nb.njit(cache=False)
        def select(params, state, arm_state, stats, valid, t, rng, work):
            with nb.objmode(arm="int64"):
                arm = int(fn(params, state, arm_state, stats, valid, int(t), rng, work))
            return arm
        return select
    if which == "init":
        @nb.njit(cache=False)
        def init(params, state, arm_state, valid):
            with nb.objmode():
                fn(params, state, arm_state, valid)
        return init

    @nb.njit(cache=False)
    def on_record(params, state, arm_state, stats, arm, reward):
        with nb.objmode():
            fn(params, state, arm_state, stats, int(arm), float(reward))
    return on_record


def _inline(fn):
    return nb.njit(inline="always")(_python_function(fn))


def _build(cls, k: KernelSpec, python: bool) -> tuple[PolicyKernels, str]:
    """(function values, static key) of policy class ``cls`` with kernels ``k`` (bandits.kernels,
    bandits.static)."""
    from bandits import index as index_mod
    from bandits.static import register_static

    key = f"{_identity(cls)}#{source_hash(k)}" + ("#python" if python else "")
    if k.index is not None:
        prepare = None if k.prepare is None else _python_function(k.prepare)
        select_fn = index_mod.make_select(key, _python_function(k.index), prepare, python)
        select_static = select_fn if python else index_mod.make_inline_select(key)
    elif python:
        select_fn = select_static = _python_kernel(_python_function(k.select), "select")
    else:
        select_fn, select_static = njit_kernel(k.select), _inline(k.select)
    extra = {}
    for which, fn, none in (("init", k.init, _no_init), ("on_record", k.on_record, _no_record)):
        if fn is None:
            extra[which] = (none, None)
        elif python:
            wrapped = _python_kernel(_python_function(fn), which)
            extra[which] = (wrapped, wrapped)
        else:
            extra[which] = (njit_kernel(fn), _inline(fn))
    hands_down = bool(getattr(cls, "hands_down", False))
    register_static(key, extra["init"][1], select_static, extra["on_record"][1], hands_down)
    kernels = PolicyKernels(Kernel(extra["init"][0], INIT_SIG), Kernel(select_fn, SELECT_SIG),
                            Kernel(extra["on_record"][0], RECORD_SIG), k.init is not None, k.on_record is not None,
                            hands_down)
    return kernels, key


def kernels_for(cls, kspec: KernelSpec | None = None) -> PolicyKernels:
    """The compiled kernels of policy class ``cls`` (made once per process; numba caches them on disk).

    kspec: the kernels, default ``cls.kernel_spec`` (a policy whose kernels depend on a parameter
    returns another spec from ``Policy.instance_kernel_spec``).  When numba cannot compile them, the
    same functions run as plain Python (object mode), after a one-line notice on standard error.
    """
    kspec = cls.kernel_spec if kspec is None else kspec
    built = _KERNELS.get((cls, kspec))
    if built is not None:
        return built[0]
    try:
        with notice(f"the kernels of policy {cls.name!r}"):
            built = _build(cls, kspec, python=False)
    except NumbaError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"banditree: numba cannot compile policy {cls.name!r} ({type(exc).__name__}: {first[:160]}); "
              "running its functions as plain Python instead (much slower; see docs/plugins.md)",
              file=sys.stderr, flush=True)
        built = _build(cls, kspec, python=True)
    _KERNELS[(cls, kspec)] = built
    return built[0]


def policy_key(policy) -> tuple[str, bool]:
    """(key, python) of ``policy``'s kernels for :mod:`bandits.static` (made first); python: True
    when the policy runs as plain Python (a loop using the key cannot be cached)."""
    cls, kspec = type(policy), policy.instance_kernel_spec()
    kernels_for(cls, kspec)
    key = _KERNELS[(cls, kspec)][1]
    return key, key.endswith("#python")


# -- plugins -----------------------------------------------------------------------------------------

_PLUGINS: dict[str, Any] = {}  # absolute path -> module


def load_plugin(path: str):
    """Import a Python file of policy (or game, player) registrations; returns the module.

    The same file is loaded once per process.  Worker processes (testbeds, tournaments) load it
    again by its path when they rebuild a policy defined in it.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"plugin must be a path to a .py file, got {path!r}")
    full = os.path.abspath(os.fspath(path))
    if full in _PLUGINS:
        return _PLUGINS[full]
    if not os.path.isfile(full) or not full.endswith(".py"):
        raise ValueError(f"plugin must be an existing .py file, got {os.fspath(path)!r}")
    stem = "".join(ch if ch.isalnum() else "_" for ch in os.path.basename(full)[:-3])
    name = f"banditree_plugin_{stem}_{hashlib.sha256(full.encode()).hexdigest()[:8]}"
    spec = importlib.util.spec_from_file_location(name, full)
    module = importlib.util.module_from_spec(spec)
    module.__banditree_plugin__ = full
    sys.modules[name] = module
    _PLUGINS[full] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name], _PLUGINS[full]
        raise
    return module


def plugin_paths() -> list[str]:
    """The plugin files loaded in this process (to load them again in worker processes)."""
    return list(_PLUGINS)


def rebuild_policy(module: str, plugin: str | None, spec: str):
    """The policy ``spec`` after importing the module (or plugin file) that registered it (unpickling)."""
    if plugin is not None:
        load_plugin(plugin)
    elif module not in sys.modules:
        importlib.import_module(module)
    from bandits.spec import make_policy

    return make_policy(spec)


def origin_of(cls) -> tuple[str, str | None]:
    """(module name, plugin path or None) that defines ``cls``, for :func:`rebuild_policy`."""
    module = sys.modules.get(cls.__module__)
    return cls.__module__, getattr(module, "__banditree_plugin__", None)

