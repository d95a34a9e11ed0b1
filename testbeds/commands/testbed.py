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
Policies that need a horizon (iucb, miucb without episodic=true, moss, exp3, sr, seqhalving) are given --horizon.
Fixed means: --env bernoulli --means 0.1,0.05,0.05,0.05,0.02,0.02,0.02,0.01,0.01,0.01 (the KL-UCB paper's
scenario); drifting means: --env nonstationary (Sutton & Barto, exercise 2.5); best-arm identification:
--bai 1..7 (Audibert, Bubeck & Munos 2010; the horizon defaults to the experiment's budget), which prints the
simple regret and the probability of recommending a wrong arm (also in manifest.json for every run).
Same --seed gives identical numbers for any --workers.  Finished chunks of tasks are saved beside
--out (in OUT.checkpoints) as the run goes: after Ctrl-C (or a crash) the same command resumes to the
identical result; the checkpoints are removed once the results folder is written.
"""


def register(sub) -> None:
    p = sub.add_parser("testbed", help="run bandit policies on a random testbed and write a results folder",
                       description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", choices=("gaussian", "bernoulli", "nonstationary"), default="gaussian",
                   help="gaussian: means ~ N(0, mean_sd^2), rewards ~ N(mean, reward_sd^2); "
                        "bernoulli: means ~ U(0, 1); nonstationary: equal means taking N(0, walk_sd^2) steps "
                        "at every play (default %(default)s)")
    p.add_argument("--means", default=None, metavar="M1,M2,...",
                   help="fixed arm means shared by every task (gaussian or bernoulli); sets --arms")
    p.add_argument("--walk-sd", type=Number(*SD, open_low=True), default=0.01,
                   help=ranged(Number(*SD, open_low=True), 0.01, "nonstationary: s.d. of each mean's step per play"))
    p.add_argument("--bai", type=Int(1, 7), default=None, metavar="N",
                   help="best-arm identification: Experiment N (1..7) of Audibert, Bubeck & Munos (2010), "
                        "Bernoulli arms; --horizon defaults to its budget")
    p.add_argument("--tasks", type=Int(*TASKS), default=2000,
                   help=ranged(Int(*TASKS), 2000, "number of random tasks; --tasks x --arms at most 10**8"))
    p.add_argument("--arms", type=Int(*ARMS), default=60, help=ranged(Int(*ARMS), 60, "arms per task, K"))
    p.add_argument("--horizon", type=Int(*HORIZON), default=None,
                   help=ranged(Int(*HORIZON), "10000, or the --bai budget", "plays per task"))
    p.add_argument("--seed", type=Int(*SEED), default=0,
                   help=ranged(Int(*SEED), 0, "seed of the testbed and of the policies"))
    p.add_argument("--policy", action="append", default=None, metavar="[LABEL=]SPEC",
                   help="a policy spec, optionally named (UCB=ucb1); repeat for several (default: ucb1)")
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


def checkpoint_folder(folder):
    """Where a run's finished chunks wait (beside the results folder, which is replaced whole)."""
    from pathlib import Path

    folder = Path(folder)
    return folder.parent / (folder.name + ".checkpoints")


def run(args) -> int:
    from testbeds.checkpoints import ChunkStore
    from testbeds.folders import claim, replace_folder
    from testbeds.results import check_new_results, horizon_table, write_results_into
    from testbeds.runner import CHUNK_TASKS, run_testbed
    from testbeds.testbed import BernoulliTestbed, GaussianTestbed, NonStationaryTestbed

    means = _means(args)
    if args.horizon is None:
        from testbeds.bai import budget

        args.horizon = budget(args.bai) if args.bai is not None else 10_000
    if means is not None:
        args.arms = len(means)
    check_means(args.tasks, args.arms)
    if args.env == "nonstationary":
        if means is not None:
            raise ValueError("--means: a nonstationary testbed starts all means equal (give no --means)")
        testbed = NonStationaryTestbed(n_tasks=args.tasks, n_arms=args.arms, walk_sd=args.walk_sd,
                                       reward_sd=args.reward_sd, seed=args.seed)
    elif args.env == "gaussian":
        testbed = GaussianTestbed(n_tasks=args.tasks, n_arms=args.arms, mean_sd=args.mean_sd,
                                  reward_sd=args.reward_sd, seed=args.seed, means=means)
    else:
        testbed = BernoulliTestbed(n_tasks=args.tasks, n_arms=args.arms, seed=args.seed, means=means)
    folder = output_folder(args.out, "results/testbed")
    check_new_results(folder, args.overwrite)  # refuse before the long run, not after it
    check_writable(folder, create=False)  # before the long run, not after it; creates nothing yet
    policies, labels = split_labels(args.policy or ["ucb1"])
    with claim(folder) as target:  # one writer of --out (and of its checkpoints) from here to the swap
        check_new_results(folder, args.overwrite)  # (again: another process may have written it meanwhile)
        chunks = checkpoint_folder(target)
        args._checkpoints = chunks  # for the interrupt message: N of M (policy, chunk) units saved
        args._units = len(policies) * -(-args.tasks // CHUNK_TASKS)
        result = run_testbed(policies, testbed, args.horizon, seed=args.seed, workers=args.workers,
                             progress=not args.no_progress, labels=labels, checkpoint=chunks, keep_checkpoint=True)
        try:
            # the whole folder at once: old or new, never a mixture; its checks made again at the swap
            with replace_folder(folder, overwrite=args.overwrite) as tmp:
                write_results_into(result, tmp, extra={"command": "banditree testbed", "workers": args.workers})
                if not args.no_plots:
                    _write_plots(result, tmp)
        except (FileExistsError, ValueError) as exc:  # the results stay in the checkpoints: say so
            raise type(exc)(f"{exc}; {interrupted(args)}") from None  # (after an OSError the command line does)
        # the results are written: this run's checkpoints are done (another run's stay)
        ChunkStore(chunks, testbed, args.horizon, args.seed, CHUNK_TASKS).clear(result.specs,
                                                                               range(0, args.tasks, CHUNK_TASKS))
    if args.bai is not None:
        print(f"Experiment {args.bai} (Audibert, Bubeck & Munos 2010), budget {args.horizon}, {args.tasks} tasks:")
        for label, rec in zip(result.labels, result.recommendation):
            print(f"  {label:32s} P(wrong arm) {rec['p_error']:.4f} +- {rec['p_error_se']:.4f}   "
                  f"simple regret {rec['simple_regret']:.5f}")
    print(horizon_table(result))
    print(f"results in {folder}")
    return 0


def _write_plots(result, folder) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from testbeds import plots

    for stem, fig in (("regret", plots.regret_figure(result)), ("optimal_action", plots.optimal_action_figure(result))):
        try:
            plots.save_figure(fig, folder, stem)
        finally:
            plt.close(fig)


def interrupted(args) -> str:
    """What an interrupt leaves: the finished chunks in the checkpoint folder, the results folder as it was."""
    from testbeds.checkpoints import count_saved

    chunks = getattr(args, "_checkpoints", None)
    saved = count_saved(chunks)
    where = args.out if args.out else "the output folder"
    if saved:
        units = getattr(args, "_units", None)
        of = f" of {units}" if units else ""
        return (f"saved {saved}{of} task chunks in {chunks}; {where} is as it was; rerun the same command "
                f"to resume")
    return (f"nothing is saved (the results are written when the run ends; {where} is as it was); "
            f"rerun the command to start again")


def split_labels(items):
    """(specs, labels) from --policy items "SPEC" or "LABEL=SPEC" (a LABEL has no ':' and comes
    before the first '='; "ucb1:c=2" is a spec)."""
    specs, labels = [], []
    for item in items:
        head, eq, tail = item.partition("=")
        if eq and ":" not in head and tail.strip():
            labels.append(head.strip())
            specs.append(tail.strip())
        else:
            labels.append(item)
            specs.append(item)
    return specs, labels


def _means(args):
    """The fixed arm means from --means or --bai (None: drawn by the testbed); --bai sets --env bernoulli."""
    if args.bai is not None:
        from testbeds.bai import experiment_means

        if args.means is not None:
            raise ValueError("give --bai or --means, not both")
        try:
            means = list(experiment_means(args.bai))
        except ValueError as exc:
            raise ValueError(f"--bai: {exc}") from None
        args.env = "bernoulli"
        return means
    if args.means is None:
        return None
    try:
        means = [float(x) for x in args.means.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--means must be numbers separated by commas, e.g. 0.9,0.8; got {args.means!r}") from None
    if not means:
        raise ValueError(f"--means must list at least one mean, got {args.means!r}")
    if args.env == "bernoulli" and not all(0.0 <= m <= 1.0 for m in means):
        raise ValueError(f"--means of a bernoulli testbed must lie in [0, 1], got {args.means!r}")
    return means
