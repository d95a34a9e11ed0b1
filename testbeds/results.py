"""Testbed results in memory and on disk: a folder with curves.npz, summary.csv and manifest.json.

    curves.npz     every play: ``labels`` (P,) str, ``specs`` (P,) str, ``step`` (H,) int64 = 1..H,
                   and for each metric m of METRICS two (P, H) float64 arrays ``m`` and ``m_se``
                   (mean over tasks, standard error).  Plain arrays: ``np.load(..., allow_pickle=False)``.
    summary.csv    one row per policy and checkpoint play (1, 2, 5, 10, 20, 50, ... and the last),
                   columns exactly SUMMARY_COLUMNS.
    manifest.json  the full configuration (testbed, horizon, seed, policies), number of tasks,
                   per-policy diagnostics, the best-arm-identification measures of each policy's
                   recommended arm at the horizon (simple regret, probability of a wrong arm),
                   package versions.

An existing results folder is never overwritten silently: writing into a folder that already holds
any of these files raises FileExistsError unless ``overwrite=True``.  The folder is written as a
whole (:mod:`testbeds.folders`): built under a temporary sibling name and swapped in by renames, so
a reader sees the old folder or the new one, never files of two runs side by side.
"""
from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import platform
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["METRICS", "SUMMARY_COLUMNS", "RESULT_FILES", "TestbedResult", "checkpoints",
           "write_results", "write_results_into", "check_new_results", "read_results"]

#: Per-play metrics; each has a standard error ``<name>_se``.
METRICS = ("regret", "regret_se", "pseudo_regret", "pseudo_regret_se", "optimal_pct", "optimal_pct_se",
           "avg_reward", "avg_reward_se")
SUMMARY_COLUMNS = ("policy", "step") + METRICS
RESULT_FILES = ("curves.npz", "summary.csv", "manifest.json")


@dataclasses.dataclass
class TestbedResult:
    """Curves of P policies over H plays, averaged over ``n_tasks`` tasks.

    labels, specs : P names and the (bound) spec strings of the policies
    curves        : metric name (METRICS) -> (P, H) float64
    diagnostics   : per policy, policy-specific counters summed over tasks
    config        : the run's configuration (testbed, horizon, seed, policies, chunk_tasks)
    trace         : optional {"arms", "rewards"} (P, n_tasks, H) from ``run_testbed(trace=True)``
    recommendation: per policy, the arm recommended at the horizon (best-arm identification):
                    simple_regret (mean gap of the recommended arm), p_error (share of tasks whose
                    recommended arm is suboptimal), and their standard errors
    """

    __test__ = False  # not a pytest test class

    labels: list[str]
    specs: list[str]
    n_tasks: int
    curves: dict[str, np.ndarray]
    diagnostics: list[dict[str, float]]
    config: dict[str, Any]
    manifest: dict[str, Any] = dataclasses.field(default_factory=dict)
    trace: dict[str, np.ndarray] | None = None
    recommendation: list[dict[str, float]] = dataclasses.field(default_factory=list)

    @property
    def horizon(self) -> int:
        return int(self.curves["regret"].shape[1])

    @property
    def steps(self) -> np.ndarray:
        """(H,) play numbers 1..H."""
        return np.arange(1, self.horizon + 1, dtype=np.int64)

    def index(self, label: str) -> int:
        """Row of the policy called ``label``."""
        if label not in self.labels:
            raise ValueError(f"no policy {label!r} in these results; have {', '.join(self.labels)}")
        return self.labels.index(label)

    def curve(self, label: str, metric: str) -> np.ndarray:
        """(H,) curve of one policy; metric from METRICS."""
        if metric not in self.curves:
            raise ValueError(f"metric must be one of {', '.join(METRICS)}; got {metric!r}")
        return self.curves[metric][self.index(label)]

    def summary_rows(self, steps: "list[int] | None" = None) -> list[dict[str, Any]]:
        """Rows of summary.csv: every policy at each checkpoint play (default :func:`checkpoints`)."""
        steps = checkpoints(self.horizon) if steps is None else steps
        rows = []
        for p, label in enumerate(self.labels):
            for step in steps:
                row: dict[str, Any] = {"policy": label, "step": int(step)}
                for name in METRICS:
                    row[name] = float(self.curves[name][p, step - 1])
                rows.append(row)
        return rows


def checkpoints(horizon: int) -> list[int]:
    """Plays 1, 2, 5, 10, 20, 50, ... below ``horizon``, and ``horizon`` itself."""
    out, decade = [], 1
    while decade <= horizon:
        out.extend(x for x in (decade, 2 * decade, 5 * decade) if x <= horizon)
        decade *= 10
    if not out or out[-1] != horizon:
        out.append(horizon)
    return sorted(set(out))


def _versions() -> dict[str, str]:
    import numba

    from testbeds import __version__

    return {"banditree": __version__, "numpy": np.__version__, "numba": numba.__version__,
            "python": platform.python_version()}


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.generic):
        return _json_safe(value.item())
    return value


def write_results(result: TestbedResult, out: "str | os.PathLike", overwrite: bool = False,
                  extra: dict[str, Any] | None = None) -> Path:
    """Write curves.npz, summary.csv and manifest.json as the folder ``out`` (created if needed).

    Raises FileExistsError when ``out`` already holds results and ``overwrite`` is False, and when
    it holds files that are not results (it is replaced as a whole: :mod:`testbeds.folders`).
    ``extra`` adds entries to the manifest (e.g. the command that made it).  Returns the folder.
    """
    from testbeds.folders import replace_folder

    folder = Path(out)
    check_new_results(folder, overwrite)
    with replace_folder(folder) as tmp:
        write_results_into(result, tmp, extra)
    return folder


def check_new_results(folder: "str | os.PathLike", overwrite: bool, flag: str = "--out") -> None:
    """FileExistsError when ``folder`` cannot take a new results folder: it is not a folder, holds
    files that are not results, or holds results and ``overwrite`` is False."""
    from testbeds.folders import OWN_FILES, check_replaceable

    folder = Path(folder)
    check_replaceable(folder, flag)
    existing = sorted(p.name for p in folder.iterdir() if p.name in OWN_FILES) if folder.is_dir() else []
    if existing and not overwrite:
        raise FileExistsError(f"{folder} already holds results ({', '.join(existing)}); choose another "
                              f"output folder ({flag}) or pass --overwrite (overwrite=True) to replace them")


def write_results_into(result: TestbedResult, folder: "str | os.PathLike",
                       extra: dict[str, Any] | None = None) -> None:
    """Write the three results files into the existing folder ``folder`` (a temporary folder of
    :func:`testbeds.folders.replace_folder`; no checks, no renames)."""
    folder = Path(folder)
    arrays = {"labels": np.array(result.labels, dtype=str), "specs": np.array(result.specs, dtype=str),
              "step": result.steps}
    arrays.update({name: np.ascontiguousarray(result.curves[name], dtype=np.float64) for name in METRICS})
    with open(folder / "curves.npz", "wb") as f:
        np.savez(f, **arrays)

    with open(folder / "summary.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in result.summary_rows():
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})

    manifest = {
        "kind": "banditree testbed results",
        "config": result.config,
        "n_tasks": result.n_tasks,
        "horizon": result.horizon,
        "labels": result.labels,
        "specs": result.specs,
        "diagnostics": {label: diag for label, diag in zip(result.labels, result.diagnostics)},
        "recommendation": {label: rec for label, rec in zip(result.labels, result.recommendation)},
        "versions": _versions(),
        "files": list(RESULT_FILES),
    }
    manifest.update(extra or {})
    with open(folder / "manifest.json", "w", encoding="utf-8") as f:
        json.dump(_json_safe(manifest), f, indent=2, allow_nan=False)


def read_results(folder: "str | os.PathLike") -> TestbedResult:
    """Load a results folder written by :func:`write_results` (no pickle anywhere)."""
    folder = Path(folder)
    if not folder.exists():
        from testbeds.folders import leftovers

        left = leftovers(folder)
        hint = f" (a replacement was interrupted; the results are in {', '.join(map(str, left))})" if left else ""
        raise FileNotFoundError(f"{folder} is not a results folder: it does not exist{hint}")
    missing = [name for name in ("curves.npz", "manifest.json") if not (folder / name).exists()]
    if missing:
        raise FileNotFoundError(f"{folder} is not a results folder: missing {', '.join(missing)}")
    with np.load(folder / "curves.npz", allow_pickle=False) as data:
        labels = [str(x) for x in data["labels"]]
        specs = [str(x) for x in data["specs"]]
        curves = {name: np.array(data[name]) for name in METRICS}
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    diagnostics = [dict(manifest.get("diagnostics", {}).get(label, {})) for label in labels]
    saved = manifest.get("recommendation", {})
    recommendation = [{k: (math.nan if v is None else v) for k, v in saved.get(label, {}).items()} for label in labels]
    return TestbedResult(labels=labels, specs=specs, n_tasks=int(manifest["n_tasks"]), curves=curves,
                         diagnostics=diagnostics, config=manifest.get("config", {}), manifest=manifest,
                         recommendation=recommendation)
