"""Arm-selection policies for batches of independent multi-armed bandits.

Every policy answers one question: given per-arm statistics of B independent K-armed bandits,
which arm does each pull next?  The same compiled row kernels serve a bandit testbed (all B tasks
at every play) and a search tree (one node's children at every step); see :mod:`bandits.kernels`.

Policies: :class:`UCB1`, :class:`ImprovedUCB`, :class:`ModifiedImprovedUCB`, :class:`KLUCB`,
:class:`ThompsonSampling`, :class:`EpsilonGreedy`; :func:`make_policy` builds one from a spec string
such as ``"miucb:r=none,episodic=true"``.
"""
from bandits.egreedy import EpsilonGreedy
from bandits.improved_ucb import ImprovedUCB
from bandits.klucb import KLUCB
from bandits.modified_improved_ucb import ModifiedImprovedUCB
from bandits.policy import BanditBatch, Policy
from bandits.rng import Stream, make_stream
from bandits.spec import POLICIES, make_policy, parse_spec, policy_names
from bandits.stats import COUNT, ISQRT, MEAN, NSTAT, SUM, SUMSQ, new_stats
from bandits.thompson import ThompsonSampling
from bandits.ucb1 import UCB1

__all__ = [
    "Policy", "BanditBatch", "UCB1", "ImprovedUCB", "ModifiedImprovedUCB", "KLUCB",
    "ThompsonSampling", "EpsilonGreedy", "make_policy", "parse_spec", "policy_names", "POLICIES",
    "Stream", "make_stream", "new_stats", "COUNT", "SUM", "SUMSQ", "MEAN", "ISQRT", "NSTAT",
]
