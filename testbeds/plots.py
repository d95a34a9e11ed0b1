"""Plots of testbed results: curves against plays with shaded 95% bands (no computing here).

Every function takes a loaded :class:`testbeds.results.TestbedResult` (from ``run_testbed`` or
``read_results``) and returns a matplotlib Figure; the caller saves or shows it.  The band is
mean +- 1.96 standard errors (normal approximation over tasks).  Long curves are thinned to at most
``MAX_POINTS`` plays before drawing (evenly spaced on a linear axis, geometrically on a log axis);
the last play is always drawn.
"""
from __future__ import annotations

import os
from typing import Sequence

import matplotlib

if not os.environ.get("DISPLAY") and matplotlib.get_backend().lower() not in ("agg", "pdf", "svg") \
        and "inline" not in matplotlib.get_backend().lower():
    matplotlib.use("Agg")  # headless: never try to open a window

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from testbeds.results import Z95, TestbedResult  # noqa: E402

__all__ = ["plot_curves", "metric_figure", "regret_figure", "optimal_action_figure", "grid_figure",
           "save_figure", "draw_lower_bound", "regret_over_log_figure", "merge_results", "testbed_of", "color_for",
           "colors_for", "coinciding", "replot_figure", "literal", "METRIC_LABELS", "MAX_POINTS", "Z95"]

MAX_POINTS = 2000
METRIC_LABELS = {
    "regret": "cumulative regret",
    "pseudo_regret": "cumulative pseudo-regret",
    "optimal_pct": "% optimal action",
    "avg_reward": "average reward",
}


def literal(text) -> str:
    """``text`` (a policy label, a legend name, a value read from a results folder) as matplotlib
    shows it: as written, never as mathematics (matplotlib reads ``$...$`` as mathtext, and a label
    such as ``$\\foo$`` would stop the drawing with a parse error), so each ``$`` is escaped."""
    return str(text).replace("$", r"\$")


def _style():
    try:
        import seaborn as sns

        sns.set_theme(style="whitegrid", context="notebook")
    except ImportError:  # pragma: no cover - seaborn is a dependency, styling is optional
        pass


def _plays(horizon: int, xscale: str) -> np.ndarray:
    """0-based indices of the plays to draw."""
    if horizon <= MAX_POINTS:
        return np.arange(horizon)
    if xscale == "log":
        idx = np.unique(np.geomspace(1, horizon, MAX_POINTS).astype(np.int64) - 1)
    else:
        idx = np.unique(np.linspace(0, horizon - 1, MAX_POINTS).astype(np.int64))
    return np.union1d(idx, [horizon - 1])


def plot_curves(ax, result: TestbedResult, metric: str, labels: Sequence[str] | None = None,
                xscale: str = "linear", names: dict[str, str] | None = None, band: bool = True,
                linestyles: dict[str, str] | None = None):
    """Draw ``metric`` of the policies ``labels`` (default: all) on ``ax`` with 95% bands.

    names: optional legend name for a label (default: the label itself).
    linestyles: optional matplotlib line style per label (e.g. dashed for a curve that coincides
    with another one).
    """
    if metric not in METRIC_LABELS:
        raise ValueError(f"metric must be one of {', '.join(METRIC_LABELS)}; got {metric!r}")
    if xscale not in ("linear", "log"):
        raise ValueError(f"xscale must be 'linear' or 'log', got {xscale!r}")
    labels = list(result.labels if labels is None else labels)
    idx = _plays(result.horizon, xscale)
    x = idx + 1
    shown = {label: (names or {}).get(label, label) for label in labels}
    colors = colors_for([shown[label] for label in labels])  # fixed by name (banditree plot uses the same)
    for label in labels:
        y = result.curve(label, metric)[idx]
        se = result.curve(label, metric + "_se")[idx]
        color = colors[shown[label]]
        ax.plot(x, y, label=literal(shown[label]), linewidth=1.4, color=color,
                linestyle=(linestyles or {}).get(label, "-"))
        if band and np.isfinite(se).any():
            ax.fill_between(x, y - Z95 * se, y + Z95 * se, color=color, alpha=0.2, linewidth=0)
    ax.set_xscale(xscale)
    ax.set_xlabel("plays" + (" (log scale)" if xscale == "log" else ""))
    ax.set_ylabel(METRIC_LABELS[metric])
    if xscale == "linear":
        ax.set_xlim(1, result.horizon)
    return ax


def draw_lower_bound(ax, result: TestbedResult, xscale: str = "linear", per_log: bool = False):
    """The Lai & Robbins bound C ln t (``per_log``: the level C) as a dashed black line, when the
    testbed has one fixed set of Bernoulli or Gaussian means (testbeds.lower_bound); returns C or None."""
    from testbeds.lower_bound import constant_for

    c = constant_for(result.config)
    if c is None:
        return None
    x = _plays(result.horizon, xscale) + 1
    y = np.full(x.shape, c) if per_log else c * np.log(x)
    ax.plot(x, y, color="black", linestyle="--", linewidth=1.0, label=f"Lai & Robbins C ln t (C = {c:.3g})")
    return c


def metric_figure(result: TestbedResult, metric: str, labels: Sequence[str] | None = None,
                  names: dict[str, str] | None = None, title: str | None = None,
                  linestyles: dict[str, str] | None = None, lower_bound: bool = True):
    """One metric against plays on a linear (left) and a log (right) x axis, one shared legend.

    lower_bound: on a regret metric of a testbed with fixed means, draw Lai & Robbins' C ln t.
    """
    _style()
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), constrained_layout=True)
    for ax, xscale in zip(axes, ("linear", "log")):
        plot_curves(ax, result, metric, labels, xscale, names, linestyles=linestyles)
        if lower_bound and metric in ("regret", "pseudo_regret"):
            draw_lower_bound(ax, result, xscale)
    handles, legend_labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, legend_labels, loc="outside right center", fontsize="small", frameon=False)
    testbed = result.config.get("testbed", {})
    default = (f"{METRIC_LABELS[metric]}: {result.n_tasks} tasks, K = {literal(testbed.get('n_arms', '?'))} "
               f"({literal(testbed.get('env', '?'))}), 95% bands")
    fig.suptitle(title or default)
    return fig


def regret_figure(result: TestbedResult, labels=None, names=None, title=None, linestyles=None):
    """Cumulative regret (optimal mean minus received reward) against plays, linear and log x."""
    return metric_figure(result, "regret", labels, names, title, linestyles)


def regret_over_log_figure(result: TestbedResult, labels=None, metric: str = "pseudo_regret", title=None):
    """Regret / ln t against plays (log x), with Lai & Robbins' level C where the means are fixed:
    a policy matching the bound flattens onto it (only asymptotically)."""
    _style()
    fig, ax = plt.subplots(figsize=(8, 5), constrained_layout=True)
    idx = _plays(result.horizon, "log")
    idx = idx[idx >= 1]  # (ln 1 = 0)
    x = idx + 1
    for label in list(result.labels if labels is None else labels):
        ax.plot(x, result.curve(label, metric)[idx] / np.log(x), label=literal(label), linewidth=1.4)
    draw_lower_bound(ax, result, "log", per_log=True)
    ax.set_xscale("log")
    ax.set_xlabel("plays (log scale)")
    ax.set_ylabel(f"{METRIC_LABELS[metric]} / ln t")
    ax.legend(fontsize="small")
    fig.suptitle(title or f"{METRIC_LABELS[metric]} / ln t: {result.n_tasks} tasks")
    return fig


def optimal_action_figure(result: TestbedResult, labels=None, names=None, title=None, linestyles=None):
    """% optimal action against plays, linear and log x."""
    return metric_figure(result, "optimal_pct", labels, names, title, linestyles)


def grid_figure(result: TestbedResult, panels: Sequence[tuple[str, Sequence[str], dict[str, str]]],
                metrics: Sequence[str] = ("regret", "optimal_pct"), xscale: str = "log", title: str | None = None):
    """A grid: one row per metric, one column per panel (panel title, labels, legend names)."""
    _style()
    fig, axes = plt.subplots(len(metrics), len(panels), figsize=(6.5 * len(panels), 4.5 * len(metrics)),
                             constrained_layout=True, squeeze=False)
    for col, (panel_title, labels, names) in enumerate(panels):
        for row, metric in enumerate(metrics):
            ax = axes[row][col]
            plot_curves(ax, result, metric, labels, xscale, names)
            if row == 0:
                ax.set_title(literal(panel_title))
            ax.legend(fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


def save_png(fig, path: "str | os.PathLike", dpi: int = 150) -> None:
    """Save ``fig`` as a PNG at ``dpi``, stored with a 256-colour palette.

    Line plots and heatmaps hold far fewer than 256 distinct colours apart from anti-aliasing, so
    the palette image looks the same and is about a third of the size of the RGBA one (a
    full-size Figure 2 goes from 300 KB to about 90 KB), small enough to keep in a repository.
    """
    import io

    from PIL import Image

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    buffer.seek(0)
    with Image.open(buffer) as image:
        image.convert("RGB").quantize(colors=256, method=Image.Quantize.MAXCOVERAGE).save(os.fspath(path), format="PNG", optimize=True)


def save_figure(fig, folder: "str | os.PathLike", stem: str, formats: Sequence[str] = ("png", "pdf")) -> list[str]:
    """Save ``fig`` as folder/stem.png (:func:`save_png`) and .pdf, each written atomically with the
    usual file mode (testbeds.folders.atomic_file: a failure leaves the earlier file, or none, and no
    partial one); returns the paths written."""
    from testbeds.folders import atomic_file

    paths = []
    for fmt in formats:
        path = os.path.join(os.fspath(folder), f"{stem}.{fmt}")
        with atomic_file(path) as tmp:
            if fmt == "png":
                save_png(fig, tmp)
            else:
                fig.savefig(tmp, format=fmt)
        paths.append(path)
    return paths


# -- re-plotting saved results (banditree plot) ------------------------------------------------------

_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
            "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5")


def _slot(name: str) -> int:
    import hashlib

    return int(hashlib.sha256(name.encode()).hexdigest(), 16) % len(_PALETTE)


def color_for(name: str) -> str:
    """A colour fixed by a policy's name (a hash into a 20-colour palette): the same policy has the
    same colour in every figure, whatever else is drawn with it (:func:`colors_for` keeps a
    figure's curves apart when two names hash to one colour)."""
    return _PALETTE[_slot(name)]


def colors_for(names: Sequence[str]) -> dict[str, str]:
    """name -> colour for the curves of one figure: each name's :func:`color_for`, except that a
    name whose colour an earlier name of the figure already has takes the next free palette colour
    (so two curves never share a colour while there are at most 20 of them; the same names in the
    same order get the same colours in every figure)."""
    out: dict[str, str] = {}
    taken: set[int] = set()
    for name in names:
        if name in out:
            continue
        k = _slot(name)
        for step in range(len(_PALETTE)):
            if (k + step) % len(_PALETTE) not in taken:
                k = (k + step) % len(_PALETTE)
                break
        taken.add(k)
        out[name] = _PALETTE[k]
    return out


def merge_results(results: Sequence[TestbedResult], prefixes: Sequence[str] | None = None) -> TestbedResult:
    """One result holding the policies of several (same horizon, same testbed: :func:`testbed_of`,
    else a ValueError naming the differing keys); a label met twice is prefixed with its folder name
    (``prefixes``, which also name the results in errors)."""
    import dataclasses

    from testbeds.results import METRICS

    if not results:
        raise ValueError("give at least one results folder")
    horizons = {r.horizon for r in results}
    if len(horizons) > 1:
        raise ValueError(f"results with different horizons cannot share a figure: {sorted(horizons)}")
    names = list(prefixes) if prefixes is not None else [f"result {k + 1}" for k in range(len(results))]
    first = testbed_of(results[0])
    for k, r in enumerate(results[1:], 1):
        other = testbed_of(r)
        if other != first:
            keys = sorted(key for key in set(first) | set(other) if first.get(key) != other.get(key))
            shown = "; ".join(f"{key}: {_brief(first.get(key))} in {names[0]}, {_brief(other.get(key))} in {names[k]}"
                              for key in keys[:3])
            raise ValueError(f"{names[0]} and {names[k]} come from different testbeds ({shown}), so their curves "
                             f"(and the Lai & Robbins bound) cannot share a figure; plot them separately")
    seen: dict[str, int] = {}
    for r in results:
        for label in r.labels:
            seen[label] = seen.get(label, 0) + 1
    labels, specs, rows, recs, diags = [], [], {m: [] for m in METRICS}, [], []
    for k, r in enumerate(results):
        for p, label in enumerate(r.labels):
            name = label if seen[label] == 1 or prefixes is None else f"{prefixes[k]}/{label}"
            labels.append(name)
            specs.append(r.specs[p])
            for m in METRICS:
                rows[m].append(r.curves[m][p])
            recs.append(r.recommendation[p] if p < len(r.recommendation) else {})
            diags.append(r.diagnostics[p] if p < len(r.diagnostics) else {})
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels repeat after merging: {sorted({x for x in labels if labels.count(x) > 1})}")
    first = results[0]
    return dataclasses.replace(first, labels=labels, specs=specs, curves={m: np.array(v) for m, v in rows.items()},
                               recommendation=recs, diagnostics=diags,
                               n_tasks=min(r.n_tasks for r in results), trace=None)


def testbed_of(result: TestbedResult) -> dict:
    """What must agree for two results to share a figure: the testbed's configuration except its
    seed and number of tasks (other tasks of the same testbed are comparable), and except the
    per-task list of given means where every task has the same ones (``arm_means``)."""
    testbed = dict((result.config or {}).get("testbed", {}) or {})
    testbed.pop("seed", None)
    testbed.pop("n_tasks", None)
    if "arm_means" in testbed:
        testbed.pop("means", None)
    return testbed


def _brief(value) -> str:
    text = "<absent>" if value is None else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def coinciding(result: TestbedResult, metric: str) -> dict[str, str]:
    """label -> the earlier label whose curve of ``metric`` it equals exactly (common random numbers
    make equal policies give equal curves)."""
    out: dict[str, str] = {}
    for j, label in enumerate(result.labels):
        for i in range(j):
            if result.labels[i] not in out and np.array_equal(result.curves[metric][i], result.curves[metric][j]):
                out[label] = result.labels[i]
                break
    return out


def replot_figure(result: TestbedResult, metric: str, names: dict[str, str] | None = None, smooth: int = 1,
                  loglog: bool = False, title: str | None = None):
    """``metric`` against plays for saved results: colours fixed by name, a curve equal to an earlier
    one drawn dashed and named "(= other)" in the legend, optional moving-average smoothing over
    ``smooth`` plays (for % optimal action), log-log axes, the Lai & Robbins bound on regret."""
    if metric not in METRIC_LABELS:
        raise ValueError(f"metric must be one of {', '.join(METRIC_LABELS)}; got {metric!r}")
    if isinstance(smooth, bool) or not isinstance(smooth, int) or smooth < 1:
        raise ValueError(f"smooth must be an integer >= 1, got {smooth!r}")
    _style()
    fig, ax = plt.subplots(figsize=(9, 5.5), constrained_layout=True)
    same = coinciding(result, metric)
    names = names or {}
    xscale = "log" if loglog else "linear"
    idx = _plays(result.horizon, xscale)
    x = idx + 1
    colors = colors_for([names.get(label, label) for label in result.labels])
    for label in result.labels:
        y = result.curve(label, metric)
        if smooth > 1:
            kernel = np.ones(smooth) / smooth
            y = np.convolve(np.concatenate([np.full(smooth - 1, y[0]), y]), kernel, mode="valid")
        shown = names.get(label, label)
        if label in same:
            shown += f" (= {names.get(same[label], same[label])})"
        color = colors[names.get(label, label)]
        ax.plot(x, y[idx], label=literal(shown), color=color, linewidth=1.4, linestyle="--" if label in same else "-")
        se = result.curve(label, metric + "_se")[idx]
        if smooth == 1 and np.isfinite(se).any():
            ax.fill_between(x, y[idx] - Z95 * se, y[idx] + Z95 * se, color=color, alpha=0.15, linewidth=0)
    if metric in ("regret", "pseudo_regret"):
        draw_lower_bound(ax, result, xscale)
    ax.set_xscale(xscale)
    if loglog:
        ax.set_yscale("log")
    ax.set_xlabel("plays" + (" (log scale)" if loglog else ""))
    ax.set_ylabel(METRIC_LABELS[metric] + (f" (moving average over {smooth} plays)" if smooth > 1 else ""))
    ax.legend(fontsize="small")
    fig.suptitle(title or f"{METRIC_LABELS[metric]}: {result.n_tasks} tasks, 95% bands")
    return fig
