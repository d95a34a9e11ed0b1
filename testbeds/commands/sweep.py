"""``banditree sweep``: a policy parameter and/or the horizon over a grid; regret at the horizon per cell.

    banditree sweep --policy ucb1 --param c=0.1,0.2,0.5,1,2 --horizon 1000,10000 --tasks 2000 --out results/sweep-c

Each cell is a testbed run (the same tasks for every cell), stored in --out/cells.jsonl as soon as it
is done; the same command again skips the stored cells (a killed sweep resumes to identical numbers).
Writes sweep.png/.pdf: regret at the horizon against the parameter, one line per horizon, 95% bands.
--scheduler runs each cell's chunks on a Dask cluster, as tournaments do.
"""
from __future__ import annotations

import argparse

from testbeds.commands._common import ARMS, SEED, TASKS, WORKERS, Int, check_counts, check_means, check_writable, \
    cpus, output_folder, ranged


def register(sub) -> None:
    p = sub.add_parser("sweep", help="a policy parameter or the horizon over a grid: regret at the horizon",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--policy", required=True, metavar="SPEC", help="the policy (its other parameters fixed)")
    p.add_argument("--param", default=None, metavar="NAME=V1,V2,...", help="the parameter and its values")
    p.add_argument("--horizon", default="10000", metavar="H1,H2,...", help="horizons (default %(default)s)")
    p.add_argument("--env", choices=("gaussian", "bernoulli"), default="gaussian", help="testbed (default %(default)s)")
    p.add_argument("--means", default=None, metavar="M1,M2,...", help="fixed arm means shared by every task")
    p.add_argument("--tasks", type=Int(*TASKS), default=2000, help=ranged(Int(*TASKS), 2000, "tasks"))
    p.add_argument("--arms", type=Int(*ARMS), default=60, help=ranged(Int(*ARMS), 60, "arms"))
    p.add_argument("--seed", type=Int(*SEED), default=0, help=ranged(Int(*SEED), 0, "seed"))
    p.add_argument("--workers", type=Int(*WORKERS), default=cpus(),
                   help=ranged(Int(*WORKERS), f"all cores, {cpus()}", "worker processes"))
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT", help="a Dask scheduler to run on")
    p.add_argument("--metric", default="regret", choices=("regret", "pseudo_regret", "optimal_pct"),
                   help="what the figure shows (default %(default)s)")
    p.add_argument("--out", default=None, help="results folder (default: a new results/sweep[-N])")
    p.set_defaults(func=run)


def _ints(text, flag):
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"{flag} must be integers separated by commas, got {text!r}") from None
    if not values or min(values) < 1:
        raise ValueError(f"{flag} must be integers >= 1 separated by commas, got {text!r}")
    return values


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from testbeds import plots
    from testbeds.folders import claim
    from testbeds.sweep import run_sweep, sweep_figure
    from testbeds.testbed import BernoulliTestbed, GaussianTestbed

    check_counts(args, ("tasks", "arms", "workers"))
    check_means(args.tasks, args.arms)
    horizons = _ints(args.horizon, "--horizon")
    param, values = None, []
    if args.param is not None:
        param, eq, rest = args.param.partition("=")
        values = [v.strip() for v in rest.split(",") if v.strip()]
        if not eq or not param.strip() or not values:
            raise ValueError(f"--param must be NAME=V1,V2,... (e.g. c=0.1,0.5,1), got {args.param!r}")
        param = param.strip()
    means = None
    if args.means is not None:
        try:
            means = [float(x) for x in args.means.split(",") if x.strip()]
        except ValueError:
            raise ValueError(f"--means must be numbers separated by commas, got {args.means!r}") from None
        args.arms = len(means)
    Bed = GaussianTestbed if args.env == "gaussian" else BernoulliTestbed
    testbed = Bed(n_tasks=args.tasks, n_arms=args.arms, seed=args.seed, means=means)
    client = None
    if args.scheduler is not None:  # (a bad address or an unreachable scheduler: one line, nothing written)
        from testbeds.distributed import connect

        client = connect(args.scheduler)
    try:
        folder = output_folder(args.out, "results/sweep")
        check_writable(folder)
        with claim(folder) as target:  # one writer of --out: its cells.jsonl and its figure
            rows = run_sweep(args.policy, testbed, horizons, param, values, seed=args.seed, workers=args.workers,
                             out=target, executor=None if client is None else client.get_executor())
            fig = sweep_figure(rows, args.metric)
            try:
                plots.save_figure(fig, target, "sweep")
            finally:
                plt.close(fig)
    finally:
        if client is not None:
            client.close()
    for row in rows:
        print(f"{row['spec']:36s} horizon {row['horizon']:>7d}   {args.metric} {row[args.metric]:12.3f} "
              f"+- {1.96 * row[args.metric + '_se']:.3f}")
    print(f"results in {folder}")
    return 0
