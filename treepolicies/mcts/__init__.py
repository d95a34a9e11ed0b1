"""MCTS whose node policy is any bandits policy: one iteration, written once, on every storage and executor.

    search(game, policy, budget=None, options=None, **options) -> SearchResult
    SearchOptions (every option declared once: options.OPTIONS), Budget, reroot
    register_evaluator, EVALUATORS (leaf evaluators)

Modules (docs/architecture.md):
    steps         the iteration: descend, leaf value, backup, chosen at compile time by a Config
    loops         the compiled executors around it (one thread, tree / leaf threads, evaluator halves)
    executors     the executors as a search runs them: one budget loop, scratch, compile, errors
    pydriver      the same steps for a game driven from Python
    evaluate      the leaf evaluator's batched executor; evaluators: the registry of named ones
    tree, dag     the storages: the tree, and the DAG of transpositions
    parallel      the storages under locks (tree parallelism)
    view, amaf    what a policy sees: priors, first-play urgency, widening; RAVE / GRAVE
    options       the options' declarations and the SearchOptions record
    capabilities  what combines with what: the one check, and the table of docs/options.md
    calls         a compiled game's kernels called by key
    playouts      playout policies (rollout=SPEC) with search-wide statistics; playout_policies the built-ins
    result        SearchResult, the final move, root parallelism's combination, tree reuse
    search        search() itself
"""
from treepolicies.mcts.evaluators import EVALUATORS, register_evaluator
from treepolicies.mcts import playout_policies as _playout_policies  # noqa: F401  (registers mast, nst, lgrf1, lgrf2, ppa)
from treepolicies.mcts.options import OPTIONS, Budget, SearchOptions
from treepolicies.mcts.result import SearchResult, reroot
from treepolicies.mcts.search import search

__all__ = ["search", "SearchResult", "SearchOptions", "Budget", "OPTIONS", "reroot", "register_evaluator",
           "EVALUATORS"]
