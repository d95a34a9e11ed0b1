"""``banditree testbed``: run bandit policies on a Gaussian or Bernoulli testbed; write a results folder.

Writes curves.npz (every play), summary.csv (checkpoint plays), manifest.json (configuration, seed,
version) and regret.png/.pdf, optimal_action.png/.pdf into --out.
"""
from __future__ import annotations

import argparse

from testbeds.commands._common import ARMS, HORIZON, SD, SEED, TASKS, WORKERS, Int, Number, check_means, \
    check_writable, cpus, output_folder, ranged

EPILOG = """\
policy specs: name[:key=value,...], e.g. ucb1, ucb1:c=2, iucb, iucb:episodic=true,
miucb:r=none,episodic=true, klucb:family=gaussian, thompson:prior=gaussian, egreedy:epsilon=0.1, greedy.
Policies that need a horizon (iucb, miucb without episodic=true) are given --horizon.
Same --seed gives identical numbers for any --workers.
"""


def register(sub) -> None:
    p = sub.add_parser("testbed", help="run bandit policies on a random testbed and write a results folder",
                       description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", choices=("gaussian", "bernoulli"), default="gaussian",
                   help="gaussian: means ~ N(0, mean_sd^2), rewards ~ N(mean, reward_sd^2); "
                        "bernoulli: means ~ U(0, 1) (default %(default)s)")
    p.add_argument("--tasks", type=Int(*TASKS), default=2000,
                   help=ranged(Int(*TASKS), 2000, "number of random tasks; --tasks x --arms at most 10**8"))
    p.add_argument("--arms", type=Int(*ARMS), default=60, help=ranged(Int(*ARMS), 60, "arms per task, K"))
    p.add_argument("--horizon", type=Int(*HORIZON), default=10_000,
                   help=ranged(Int(*HORIZON), 10_000, "plays per task"))
    p.add_argument("--seed", type=Int(*SEED), default=0,
                   help=ranged(Int(*SEED), 0, "seed of the testbed and of the policies"))
    p.add_argument("--policy", action="append", default=None, metavar="SPEC",
                   help="a policy spec; repeat for several (default: ucb1)")
    p.add_argument("--mean-sd", type=Number(*SD, open_low=True), default=1.0,
                   help=ranged(Number(*SD, open_low=True), 1, "gaussian: s.d. of the arm means"))
    p.add_argument("--reward-sd", type=Number(*SD, open_low=True), default=1.0,
                   help=ranged(Number(*SD, open_low=True), 1, "gaussian: s.d. of the rewards"))
    p.add_argument("--workers", type=Int(*WORKERS), default=cpus(),
                   help=ranged(Int(*WORKERS), f"all cores, {cpus()}", "worker processes"))
    p.add_argument("--out", default=None, help="results folder (default: a new results/testbed[-N])")
    p.add_argument("--overwrite", action="store_true", help="replace the results already in --out")
    p.add_argument("--no-plots", action="store_true", help="write no figures")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run, interrupted=interrupted)


def run(args) -> int:
    from testbeds.folders import replace_folder
    from testbeds.results import check_new_results, write_results_into
    from testbeds.runner import run_testbed
    from testbeds.testbed import BernoulliTestbed, GaussianTestbed

    check_means(args.tasks, args.arms)
    if args.env == "gaussian":
        testbed = GaussianTestbed(n_tasks=args.tasks, n_arms=args.arms, mean_sd=args.mean_sd,
                                  reward_sd=args.reward_sd, seed=args.seed)
    else:
        testbed = BernoulliTestbed(n_tasks=args.tasks, n_arms=args.arms, seed=args.seed)
    folder = output_folder(args.out, "results/testbed")
    check_new_results(folder, args.overwrite)  # refuse before the long run, not after it
    check_writable(folder, create=False)  # before the long run, not after it; creates nothing yet
    policies = args.policy or ["ucb1"]
    result = run_testbed(policies, testbed, args.horizon, seed=args.seed, workers=args.workers,
                         progress=not args.no_progress)
    with replace_folder(folder) as tmp:  # the whole folder at once: old or new, never a mixture
        write_results_into(result, tmp, extra={"command": "banditree testbed", "workers": args.workers})
        if not args.no_plots:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            from testbeds import plots

            for stem, fig in (("regret", plots.regret_figure(result)),
                              ("optimal_action", plots.optimal_action_figure(result))):
                plots.save_figure(fig, tmp, stem)
                plt.close(fig)
    print(f"results in {folder}")
    return 0


def interrupted(args) -> str:
    """Nothing is written before the run ends, and the folder is replaced as a whole."""
    where = args.out if args.out else "the output folder"
    return (f"nothing is saved (the results are written when the run ends; {where} is as it was); "
            f"rerun the command to start again")
