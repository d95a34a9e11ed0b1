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
any of these files raises FileExistsError unless ``overwrite=True``.
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
           "write_results", "read_results"]

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
    """Write curves.npz, summary.csv and manifest.json into the folder ``out`` (created if needed).

    Raises FileExistsError when ``out`` already holds one of these files and ``overwrite`` is False.
    ``extra`` adds entries to the manifest (e.g. the command that made it).  Returns the folder.
    """
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise FileExistsError(f"{folder} exists and is not a folder")
    existing = [name for name in RESULT_FILES if (folder / name).exists()]
    if existing and not overwrite:
        raise FileExistsError(f"{folder} already holds results ({', '.join(existing)}); choose another "
                              f"output folder or pass --overwrite (overwrite=True) to replace them")
    folder.mkdir(parents=True, exist_ok=True)

    arrays = {"labels": np.array(result.labels, dtype=str), "specs": np.array(result.specs, dtype=str),
              "step": result.steps}
    arrays.update({name: np.ascontiguousarray(result.curves[name], dtype=np.float64) for name in METRICS})
    _atomic(folder / "curves.npz", lambda f: np.savez(f, **arrays), binary=True)

    def write_csv(f):
        writer = csv.DictWriter(f, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in result.summary_rows():
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})

    _atomic(folder / "summary.csv", write_csv)

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
    _atomic(folder / "manifest.json", lambda f: json.dump(_json_safe(manifest), f, indent=2, allow_nan=False))
    return folder


def _atomic(path: Path, write, binary: bool = False) -> None:
    """Write through a temporary file in the same folder, then rename (no half-written results)."""
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""})) as f:
        write(f)
    os.replace(tmp, path)


def read_results(folder: "str | os.PathLike") -> TestbedResult:
    """Load a results folder written by :func:`write_results` (no pickle anywhere)."""
    folder = Path(folder)
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
