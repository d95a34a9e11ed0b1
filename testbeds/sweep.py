"""Parameter sweeps: a policy parameter and/or the horizon over a grid, regret at the horizon per cell.

    run_sweep("ucb1", testbed, horizons=[1000, 10000], param="c", values=[0.1, 0.2, 0.5, 1, 2], out="results/sweep")

Each cell (value, horizon) is one ``run_testbed`` of the policy ``policy:param=value`` for
``horizon`` plays on the same testbed (common random numbers across cells), summarised at the last
play: regret, pseudo-regret and % optimal action with standard errors, and the recommendation's
simple regret and error probability.  A cell is appended to ``out/cells.jsonl`` (one JSON object a
line, flushed and synced) as soon as it is done, and a rerun with the same configuration skips the
cells already there: a killed sweep resumes to identical numbers (each cell is a pure function of
the testbed, the seed and its spec).  ``out/sweep.json`` records the configuration; another
configuration in the same folder is an error.  Cells may run on a Dask cluster
(``executor=distributed.Client(address).get_executor()``), like tournaments.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from bandits import make_policy

__all__ = ["cell_spec", "run_sweep", "read_cells", "sweep_figure"]

CELLS, CONFIG = "cells.jsonl", "sweep.json"


def cell_spec(policy: str, param: str | None, value) -> str:
    """The spec of one cell: ``policy`` with ``param=value`` added (or the policy itself)."""
    if param is None:
        return policy
    return f"{policy}{',' if ':' in policy else ':'}{param}={value}"


def read_cells(out: "str | os.PathLike") -> list[dict]:
    """The cells stored in ``out/cells.jsonl`` (a last line cut by a kill is ignored)."""
    path = Path(out) / CELLS
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def _config(policy, param, values, horizons, testbed, seed) -> dict:
    return {"policy": policy, "param": param, "values": [str(v) for v in values] if param else None,
            "horizons": list(horizons), "testbed": testbed.config(), "seed": seed}


def run_sweep(policy: str, testbed, horizons: Sequence[int], param: str | None = None, values: Sequence = (),
              seed: int = 0, workers: int = 1, out: "str | os.PathLike | None" = None, progress: bool = False,
              executor=None) -> list[dict]:
    """Run every cell not stored yet in ``out`` (module docstring); returns all cells, in grid order."""
    from testbeds.runner import run_testbed

    horizons = [int(h) for h in horizons]
    if not horizons or any(h < 1 for h in horizons):
        raise ValueError(f"horizons must be integers >= 1, got {horizons!r}")
    if param is not None and not values:
        raise ValueError(f"give the values of {param!r} to sweep, e.g. c=0.1,0.5,1")
    grid = [(v, h) for v in (values if param is not None else [None]) for h in horizons]
    specs = {v: cell_spec(policy, param, v) for v, _ in grid}
    for spec in specs.values():  # every spec is valid before anything runs
        make_policy(spec)
    config = _config(policy, param, values, horizons, testbed, seed)
    done: dict[tuple, dict] = {}
    if out is not None:
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        saved = folder / CONFIG
        if saved.exists():
            old = json.loads(saved.read_text(encoding="utf-8"))
            if old != json.loads(json.dumps(config)):
                raise ValueError(f"{folder} holds a sweep with another configuration; choose another --out")
        else:
            saved.write_text(json.dumps(config, indent=2), encoding="utf-8")
        done = {(row["spec"], row["horizon"]): row for row in read_cells(folder)}
    rows = []
    for value, horizon in grid:
        spec = specs[value]
        row = done.get((spec, horizon))
        if row is None:
            result = run_testbed([spec], testbed, horizon, seed=seed, workers=workers, progress=progress,
                                 executor=executor)
            row = {"spec": spec, "value": None if value is None else str(value), "horizon": horizon}
            for name in ("regret", "pseudo_regret", "optimal_pct"):
                row[name] = float(result.curves[name][0, -1])
                row[name + "_se"] = float(result.curves[name + "_se"][0, -1])
            row.update({k: float(v) for k, v in result.recommendation[0].items()})
            if out is not None:
                with open(Path(out) / CELLS, "a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
        rows.append(row)
    return rows


def sweep_figure(rows: Sequence[dict], metric: str = "regret", title: str | None = None):
    """``metric`` at the horizon against the swept value (one line per horizon; log x when every value
    is a positive number), or against the horizon when no parameter was swept; 95% bands."""
    import matplotlib.pyplot as plt

    from testbeds.plots import METRIC_LABELS, Z95

    fig, ax = plt.subplots(figsize=(8, 5), constrained_layout=True)
    swept = any(row["value"] is not None for row in rows)
    groups: dict = {}
    for row in rows:
        groups.setdefault(row["horizon"] if swept else "horizon", []).append(row)
    for key, cells in groups.items():
        x = [float(c["value"]) if swept else c["horizon"] for c in cells]
        y = np.array([c[metric] for c in cells])
        se = np.array([c[metric + "_se"] for c in cells])
        (line,) = ax.plot(x, y, marker="o", label=f"horizon {key}" if swept else cells[0]["spec"])
        ax.fill_between(x, y - Z95 * se, y + Z95 * se, color=line.get_color(), alpha=0.2, linewidth=0)
    values = [float(r["value"]) if swept else r["horizon"] for r in rows]
    if all(v > 0 for v in values):
        ax.set_xscale("log")
    ax.set_xlabel(rows[0]["spec"].rsplit("=", 1)[0].rsplit(",", 1)[-1].split(":")[-1] if swept else "horizon")
    ax.set_ylabel(f"{METRIC_LABELS.get(metric, metric)} at the horizon")
    ax.legend(fontsize="small")
    fig.suptitle(title or f"sweep of {rows[0]['spec'].split(':')[0]}, 95% bands")
    return fig
