"""``banditree plot``: re-plot or merge saved testbed results folders without re-running anything.

    banditree plot results/a results/b --label "UCB=ucb1" --metric regret --metric optimal_pct --smooth 50

Reads each folder's curves.npz and manifest.json (a damaged or hand-made folder is refused in one
line naming it and what is wrong), merges their policies (same horizon and same testbed, else
refused in one line naming what differs; a label met in two folders is prefixed by the folder
name), and writes one figure per metric (PNG and PDF) into --out, all of them or none
(testbeds.folders.replace_files; other files in --out stay): colours fixed by policy name across
figures, a curve equal to an earlier one dashed and named as such in the legend, Lai & Robbins'
bound on regret when the testbed has fixed means.  Labels are shown as written ($ is not
mathematics).
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from testbeds.commands._common import Int, check_writable, ranged

METRIC_CHOICES = ("regret", "pseudo_regret", "optimal_pct", "avg_reward")


def register(sub) -> None:
    p = sub.add_parser("plot", help="re-plot or merge saved results folders (no re-run)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folders", nargs="+", metavar="DIR", help="results folders (banditree testbed --out ...)")
    p.add_argument("--out", default=None, help="folder for the figures (default: DIR/plots of the first DIR)")
    p.add_argument("--label", action="append", default=[], metavar="NAME=LABEL",
                   help="legend name for a policy label (repeatable), e.g. --label 'UCB=ucb1'")
    p.add_argument("--metric", action="append", choices=METRIC_CHOICES, default=None,
                   help="metric to draw (repeatable; default regret and optimal_pct)")
    p.add_argument("--smooth", type=Int(1, 10_000_000), default=1,
                   help=ranged(Int(1, 10_000_000), "1: none", "moving average over N plays"))
    p.add_argument("--loglog", action="store_true", help="log-log axes")
    p.add_argument("--regret-per-log", action="store_true", help="also draw regret / ln t with the Lai & Robbins level")
    p.set_defaults(func=run)


def parse_labels(items) -> dict[str, str]:
    """{label: legend name} from NAME=LABEL items; ValueError naming --label otherwise."""
    out = {}
    for item in items:
        name, eq, label = item.partition("=")
        if not eq or not name.strip() or not label.strip():
            raise ValueError(f"--label must be NAME=LABEL (e.g. 'UCB=ucb1'), got {item!r}")
        out[label.strip()] = name.strip()
    return out


def run(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from testbeds import plots
    from testbeds.folders import claim, replace_files
    from testbeds.results import read_results

    names = parse_labels(args.label)
    results = [read_results(folder) for folder in args.folders]
    merged = plots.merge_results(results, [Path(folder).name for folder in args.folders])
    unknown = sorted(set(names) - set(merged.labels))
    if unknown:
        raise ValueError(f"--label names {unknown[0]!r}, which is not a policy of these results; "
                         f"have {', '.join(merged.labels)}")
    out = Path(args.out) if args.out else Path(args.folders[0]) / "plots"
    check_writable(out)
    figures = [(metric + ("_loglog" if args.loglog else ""),
                lambda metric=metric: plots.replot_figure(merged, metric, names, smooth=args.smooth, loglog=args.loglog))
               for metric in args.metric or ["regret", "optimal_pct"]]
    if args.regret_per_log:
        figures.append(("regret_per_log", lambda: plots.regret_over_log_figure(merged)))
    written = []
    # one writer of --out; its figures replaced together (a failure leaves the old ones), other files stay
    with claim(out), replace_files(out) as tmp:
        for stem, draw in figures:
            fig = draw()
            try:
                written += [os.path.basename(path) for path in plots.save_figure(fig, tmp, stem)]
            finally:
                plt.close(fig)
    print(f"wrote {len(written)} files to {out}: {', '.join(written)}")
    return 0
