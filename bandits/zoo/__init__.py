"""The bandit zoo: the policies researchers compare against, each written through the public
plugin interface (:func:`bandits.index_policy`, :func:`bandits.stateful_policy`,
:func:`bandits.register_policy`, :class:`bandits.Param`) exactly as a user's policy is.

One module per policy (formula, shapes and reference in its docstring); spec names:

    ucb1tuned            UCB1-Tuned (Auer, Cesa-Bianchi & Fischer 2002)             index
    ucbv                 UCB-V (Audibert, Munos & Szepesvari 2009)                  index
    moss, moss:anytime   MOSS (Audibert & Bubeck 2009), anytime MOSS (Degenne & Perchet 2016)   index
    klucb:plus=true      KL-UCB+ (bandits/klucb.py, beside KL-UCB)                  index
    bayesucb             Bayes-UCB (Kaufmann, Cappe & Garivier 2012)                index
    softmax              Boltzmann exploration                                      stateful
    gradient             gradient bandit (Sutton & Barto 2018, section 2.8)         stateful
    exp3, exp3ix         Exp3 (Auer et al. 2002), Exp3-IX (Neu 2015)                stateful
    ducb                 discounted UCB (Garivier & Moulines 2011)                 index
    swucb                sliding-window UCB (Garivier & Moulines 2011)             stateful
    sr, seqhalving       successive rejects (Audibert, Bubeck & Munos 2010), sequential halving
                         (Karnin, Koren & Somekh 2013): fixed-budget best-arm identification,
                         with ``Policy.recommend``
    halfgreedy, ucbsqrt  the simple-regret samplers of SR+CR (Tolpin & Shimony 2012)  stateful, index
    gumbel, gumbelq      Gumbel MuZero's root (sequential halving with Gumbel, with its own
                         ``recommend``) and interior selection (Danihelka et al. 2022)   stateful
    shot, hmcts          SHOT (Cazenave 2015: sequential halving applied to trees, budgets handed
                         down) and H-MCTS (Pepels et al. 2014: SHOT above a budget B, UCT below)
                         as node policies of a search                              stateful

Every policy with a horizon (a known T or a budget) takes ``horizon=`` and, left unset, is bound
to a testbed's horizon or a search's iteration budget, as ``iucb`` is.
"""
from bandits.zoo import (bayesucb, ducb, exp3, exp3ix, gradient, gumbel, moss, sequential_halving,  # noqa: F401
                         shot, simple_regret, softmax, successive_rejects, swucb, ucb1tuned, ucbv)
