"""Figures 1 and 2 of Liu & Tsuruoka (2015) on their testbed, and a sweep over the readings of r.

Testbed (docs/algorithms.md, "The testbed"): 2000 tasks, K = 60 arms, means ~ N(0, 1), rewards ~ N(mean, 1); default
horizon 10 000 plays [OURS].  Curves, with the paper's legend names (``PAPER_CURVES``)::

    UCB                               ucb1                  (c = sqrt 2)
    I-UCB                             iucb                  (bound to the horizon)
    I-UCB (episodic)                  iucb:episodic=true
    Modified I-UCB (no r)             miucb:r=none          (bound to the horizon)
    Modified I-UCB (no r, episodic)   miucb:r=none,episodic=true
    Modified I-UCB                    miucb                 (r = sqrt(T/t), bound to the horizon)
    Modified I-UCB (episodic)         miucb:episodic=true
    KL-UCB                            klucb:family=gaussian (sigma = 1)
    Thompson sampling                 thompson:prior=gaussian

Gaussian KL-UCB with c = 0 and sigma = 1 has the index w_i + sqrt(2 log t / t_i), which is UCB1's:
with common random numbers the two curves coincide exactly, so KL-UCB is drawn dashed.  Likewise
"no r" is greedy once every arm is tried (U_i = w_i + the same bonus for all arms), whatever T and
Delta are, so its known-horizon and episodic curves coincide; the episodic one is drawn dashed.

Figure 1 is the cumulative regret (optimal mean minus received reward), Figure 2 the % optimal
action, each on a linear and a log x axis.  ``r_sweep=True`` adds the five readings of r of
modified improved UCB (docs/algorithms.md), each with a known horizon and episodic: figure
``fig_r_sweep`` (regret and % optimal action; left known horizon, right episodic; UCB as reference).
"""
from __future__ import annotations

import os
from pathlib import Path

from testbeds.results import RESULT_FILES, check_new_results, write_results_into
from testbeds.runner import run_testbed
from testbeds.testbed import GaussianTestbed

__all__ = ["PAPER_CURVES", "R_READINGS", "r_sweep_curves", "figure_policies", "make_figures",
           "PAPER_TASKS", "PAPER_ARMS", "DEFAULT_HORIZON", "FIGURE_FILES"]

PAPER_TASKS = 2000
PAPER_ARMS = 60
DEFAULT_HORIZON = 10_000

#: (legend name, policy spec) of the paper's seven curves plus KL-UCB and Thompson sampling.
PAPER_CURVES = (
    ("UCB", "ucb1"),
    ("I-UCB", "iucb"),
    ("I-UCB (episodic)", "iucb:episodic=true"),
    ("Modified I-UCB (no r)", "miucb:r=none"),
    ("Modified I-UCB (no r, episodic)", "miucb:r=none,episodic=true"),
    ("Modified I-UCB", "miucb"),
    ("Modified I-UCB (episodic)", "miucb:episodic=true"),
    ("KL-UCB", "klucb:family=gaussian"),
    ("Thompson sampling", "thompson:prior=gaussian"),
)

#: The readings of r_i (bandits.modified_improved_ucb.R_CHOICES), in the spec's order.
R_READINGS = ("none", "sqrt(T/t)", "T/t", "sqrt(T)/t", "n/t")

FIGURE_FILES = ("fig1_regret", "fig2_optimal_action")
R_SWEEP_FILE = "fig_r_sweep"


def r_sweep_curves() -> list[tuple[str, str, str, bool]]:
    """(label, spec, reading, episodic) for every reading of r, known horizon and episodic.

    Readings that are already paper curves keep the paper's label, so each policy runs once.
    """
    paper = {spec: label for label, spec in PAPER_CURVES}
    out = []
    for episodic in (False, True):
        for reading in R_READINGS:
            spec = "miucb" if reading == "sqrt(T/t)" else f"miucb:r={reading}"
            if episodic:
                spec += ("," if ":" in spec else ":") + "episodic=true"
            label = paper.get(spec, f"Modified I-UCB (r={reading}{', episodic' if episodic else ''})")
            out.append((label, spec, reading, episodic))
    return out


def figure_policies(r_sweep: bool = False) -> list[tuple[str, str]]:
    """(label, spec) of every policy the figures need, paper curves first."""
    out = list(PAPER_CURVES)
    if r_sweep:
        have = {label for label, _ in out}
        out += [(label, spec) for label, spec, _, _ in r_sweep_curves() if label not in have]
    return out


def make_figures(out: "str | os.PathLike", tasks: int = PAPER_TASKS, horizon: int = DEFAULT_HORIZON,
                 seed: int = 0, workers: int = 1, r_sweep: bool = False, arms: int = PAPER_ARMS,
                 overwrite: bool = False, progress: bool = True) -> list[str]:
    """Run the paper's testbed and write the figures and the results folder into ``out``.

    Writes fig1_regret.png/.pdf, fig2_optimal_action.png/.pdf (and fig_r_sweep.png/.pdf with
    ``r_sweep``) beside curves.npz, summary.csv and manifest.json, the folder replaced as a whole
    (testbeds.folders).  Refuses (FileExistsError) to replace existing results or figures unless
    ``overwrite``.  Returns the paths written.
    """
    folder = Path(out)
    check_new_results(folder, overwrite)
    testbed = GaussianTestbed(n_tasks=tasks, n_arms=arms, mean_sd=1.0, reward_sd=1.0, seed=seed)
    if not isinstance(horizon, int) or isinstance(horizon, bool) or horizon < 1:
        raise ValueError(f"horizon must be an integer >= 1, got {horizon!r}")
    curves = figure_policies(r_sweep)
    result = run_testbed([spec for _, spec in curves], testbed, horizon, seed=seed, workers=workers,
                         progress=progress, labels=[label for label, _ in curves])
    from testbeds import plots
    from testbeds.folders import replace_folder

    paper = [label for label, _ in PAPER_CURVES]
    styles = {"KL-UCB": "--", "Modified I-UCB (no r, episodic)": "--", "Thompson sampling": "-."}
    size = f"{tasks} tasks, K = {arms}, means ~ N(0,1), rewards ~ N(mean,1)"
    figures = [
        ("fig1_regret", plots.regret_figure(result, paper, title=f"Figure 1: cumulative regret ({size})",
                                             linestyles=styles)),
        ("fig2_optimal_action", plots.optimal_action_figure(result, paper, title=f"Figure 2: % optimal action ({size})",
                                                                linestyles=styles)),
    ]
    if r_sweep:
        sweep = r_sweep_curves()
        panels = [(title, ["UCB"] + [c[0] for c in sweep if c[3] == episodic],
                   {"UCB": "UCB (reference)", **{c[0]: f"r = {c[2]}" for c in sweep if c[3] == episodic}})
                  for title, episodic in (("Modified I-UCB, known horizon", False), ("Modified I-UCB, episodic", True))]
        figures.append((R_SWEEP_FILE, plots.grid_figure(result, panels, title=f"Readings of r_i in modified improved UCB ({size})")))
    import matplotlib.pyplot as plt

    written = [str(folder / name) for name in RESULT_FILES]
    with replace_folder(folder, overwrite=overwrite) as tmp:  # results and figures at once: old or new, never a mixture
        write_results_into(result, tmp, extra={"figures": {"r_sweep": r_sweep,
                                                           "reference": "Liu & Tsuruoka (2015), Figures 1-2"}})
        for stem, fig in figures:
            written += [str(folder / Path(p).name) for p in plots.save_figure(fig, tmp, stem)]
            plt.close(fig)
    return written
