"""``banditree figures``: Figures 1-2 of Liu & Tsuruoka (2015) (cumulative regret, % optimal action).

Testbed: --tasks random tasks (default 2000), K = 60 arms, means ~ N(0, 1), rewards ~ N(mean, 1),
--horizon plays (default 10 000). Nine curves: the paper's seven (UCB, I-UCB, I-UCB (episodic),
Modified I-UCB (no r), Modified I-UCB (no r, episodic), Modified I-UCB, Modified I-UCB (episodic))
plus KL-UCB and Thompson sampling. Writes fig1_regret.png/.pdf, fig2_optimal_action.png/.pdf
(and fig_r_sweep.png/.pdf with --r-sweep) beside curves.npz, summary.csv and manifest.json.
"""
from __future__ import annotations

import argparse

from testbeds.commands._common import ARMS, HORIZON, SEED, TASKS, WORKERS, Int, check_means, check_writable, \
    cpus, output_folder, ranged


def register(sub) -> None:
    from testbeds.figures import DEFAULT_HORIZON, PAPER_ARMS, PAPER_TASKS

    p = sub.add_parser("figures", help="reproduce Figures 1-2 of Liu & Tsuruoka (2015) (regret, %% optimal action)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=None, help="output folder (default: a new results/figures[-N])")
    p.add_argument("--tasks", type=Int(*TASKS), default=PAPER_TASKS,
                   help=ranged(Int(*TASKS), f"{PAPER_TASKS}, the paper's", "random tasks; --tasks x --arms at most 10**8"))
    p.add_argument("--arms", type=Int(*ARMS), default=PAPER_ARMS,
                   help=ranged(Int(*ARMS), f"{PAPER_ARMS}, the paper's", "arms per task"))
    p.add_argument("--horizon", type=Int(*HORIZON), default=DEFAULT_HORIZON,
                   help=ranged(Int(*HORIZON), DEFAULT_HORIZON, "plays per task"))
    p.add_argument("--seed", type=Int(*SEED), default=0, help=ranged(Int(*SEED), 0, "seed"))
    p.add_argument("--workers", type=Int(*WORKERS), default=cpus(),
                   help=ranged(Int(*WORKERS), f"all cores, {cpus()}", "worker processes"))
    p.add_argument("--r-sweep", action="store_true",
                   help="also run the five readings of r (known horizon and episodic): fig_r_sweep.png/.pdf")
    p.add_argument("--overwrite", action="store_true", help="replace results and figures already in --out")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run, interrupted=interrupted)


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from testbeds.figures import make_figures
    from testbeds.folders import claim

    check_means(args.tasks, args.arms)
    folder = output_folder(args.out, "results/figures")
    check_writable(folder)  # before the long run, not after it
    with claim(folder):  # one writer of --out from the first check to the swap
        written = make_figures(folder, tasks=args.tasks, horizon=args.horizon, seed=args.seed, workers=args.workers,
                               r_sweep=args.r_sweep, arms=args.arms, overwrite=args.overwrite,
                               progress=not args.no_progress)
    print(f"wrote {len(written)} files to {folder}: " + ", ".join(p.rsplit('/', 1)[-1] for p in written))
    return 0


def interrupted(args) -> str:
    """Nothing is written before the run ends, and the folder is replaced as a whole."""
    where = args.out if args.out else "the output folder"
    return (f"nothing is saved (the results are written when the run ends; {where} is as it was); "
            f"rerun the command to start again")
