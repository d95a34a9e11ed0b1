"""Arm-selection policies for batches of independent multi-armed bandits.

Every policy answers one question: given per-arm statistics of B independent K-armed bandits,
which arm does each pull next?  The same compiled row kernels serve a bandit testbed (all B tasks
at every play) and a search tree (one node's children at every step); see :mod:`bandits.kernels`.

Policies: :class:`UCB1`, :class:`ImprovedUCB`, :class:`ModifiedImprovedUCB`, :class:`KLUCB`,
:class:`ThompsonSampling`, :class:`EpsilonGreedy`, and the zoo (:mod:`bandits.zoo`: UCB1-Tuned,
UCB-V, MOSS, KL-UCB+, Bayes-UCB, softmax, gradient bandit, Exp3, Exp3-IX, discounted and
sliding-window UCB, successive rejects, sequential halving); :func:`make_policy` builds one from a spec string
such as ``"miucb:r=none,episodic=true"``.  A user's own policy registers the way these do
(:mod:`bandits.registry`): :func:`index_policy` (one function of an arm's statistics),
:func:`stateful_policy` (its own kernels) or :func:`register_policy` (a Policy subclass); then its
name works in every spec string, testbed, search and command (docs/plugins.md).
"""
from bandits.policy import BanditBatch, Policy
from bandits.registry import KernelSpec, Param, index_policy, load_plugin, register_policy, stateful_policy
from bandits.kernels import PolicyKernels
# the built-in policies, registered in this order (bandits.POLICIES)
from bandits.ucb1 import UCB1
from bandits.improved_ucb import ImprovedUCB
from bandits.modified_improved_ucb import ModifiedImprovedUCB
from bandits.klucb import KLUCB
from bandits.thompson import ThompsonSampling
from bandits.egreedy import EpsilonGreedy
from bandits.puct import PUCT
from bandits.rng import Stream, make_stream
from bandits.spec import POLICIES, make_policy, parse_spec, policy_names
from bandits.stats import COUNT, FIRST, ISQRT, MEAN, NSTAT, NVIEW, PRIOR, SUM, SUMSQ, new_stats
# the zoo: more policies, each registered through the public interface above (bandits/zoo)
from bandits import zoo  # noqa: E402

__all__ = [
    "Policy", "BanditBatch", "UCB1", "ImprovedUCB", "ModifiedImprovedUCB", "KLUCB",
    "ThompsonSampling", "EpsilonGreedy", "make_policy", "parse_spec", "policy_names", "POLICIES",
    "Stream", "make_stream", "new_stats", "COUNT", "SUM", "SUMSQ", "MEAN", "ISQRT", "NSTAT", "PRIOR", "FIRST", "NVIEW", "PUCT",
    "register_policy", "index_policy", "stateful_policy", "KernelSpec", "Param", "PolicyKernels", "load_plugin",
]
