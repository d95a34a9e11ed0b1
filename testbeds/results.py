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
           "write_results", "write_results_into", "check_new_results", "read_results", "horizon_table", "Z95"]

#: Per-play metrics; each has a standard error ``<name>_se``.
METRICS = ("regret", "regret_se", "pseudo_regret", "pseudo_regret_se", "optimal_pct", "optimal_pct_se",
           "avg_reward", "avg_reward_se")
SUMMARY_COLUMNS = ("policy", "step") + METRICS
RESULT_FILES = ("curves.npz", "summary.csv", "manifest.json")
Z95 = 1.959963984540054  # two-sided 95% normal quantile: a 95% interval is mean +- Z95 standard errors


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


def horizon_table(result: TestbedResult) -> str:
    """The table ``banditree testbed`` prints at the end: per policy, the regret and the % optimal
    action at the last play, each as ``mean +- half-width`` of its 95% interval (Z95 standard
    errors; ``n/a`` with a single task)."""
    def cell(mean: float, se: float, digits: int) -> str:
        half = f"{Z95 * se:.{digits}f}" if math.isfinite(se) else "n/a"
        return f"{mean:.{digits}f} +- {half}"

    h = result.horizon
    rows = [(label, cell(result.curves["regret"][p, -1], result.curves["regret_se"][p, -1], 3),
             cell(result.curves["optimal_pct"][p, -1], result.curves["optimal_pct_se"][p, -1], 2))
            for p, label in enumerate(result.labels)]
    head = ("policy", f"regret at play {h}", f"% optimal at play {h}")
    widths = [max(len(r[k]) for r in rows + [head]) for k in range(3)]
    lines = [f"{result.n_tasks} task{'s' if result.n_tasks != 1 else ''}, 95% intervals (mean +- 1.96 standard errors):"]
    for row in [head] + rows:
        lines.append(f"  {row[0]:<{widths[0]}}  {row[1]:>{widths[1]}}  {row[2]:>{widths[2]}}")
    return "\n".join(lines)


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
    with replace_folder(folder, overwrite=overwrite) as tmp:  # (checks, at the start and at the swap)
        write_results_into(result, tmp, extra)
    return folder


def check_new_results(folder: "str | os.PathLike", overwrite: bool, flag: str = "--out") -> None:
    """FileExistsError when ``folder`` cannot take a new results folder: it is not a folder, holds
    files that are not results, or holds results and ``overwrite`` is False
    (:func:`testbeds.folders.check_replaceable`)."""
    from testbeds.folders import check_replaceable

    check_replaceable(folder, flag, overwrite)


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
    """Load a results folder written by :func:`write_results` (no pickle anywhere).

    Everything is checked before it is used, so a damaged or hand-made folder is refused in one line
    (``FileNotFoundError`` for a missing folder or file, ``ValueError`` naming the folder, the file
    and what is wrong otherwise), never half-read: curves.npz must hold ``labels`` (P distinct
    strings) and ``specs`` (P strings), ``step`` = 1..H and every metric of METRICS as a (P, H)
    float64 array whose bytes are all there (a truncated array is refused before it is read), the
    means finite and the standard errors >= 0 or NaN (a single task); manifest.json
    must be a JSON object whose ``n_tasks`` is an integer >= 1, whose ``horizon`` and ``labels``
    (where given) agree with the curves, whose ``diagnostics`` and ``recommendation`` map labels to
    numbers, and whose testbed configuration is an object whose fixed means (if any) give a
    Lai & Robbins constant (:func:`testbeds.lower_bound.constant_for`).
    """
    folder = Path(folder)
    if not folder.exists():
        from testbeds.folders import leftovers

        left = leftovers(folder)
        hint = f" (a replacement was interrupted; the results are in {', '.join(map(str, left))})" if left else ""
        raise FileNotFoundError(f"{folder} is not a results folder: it does not exist{hint}")
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a results folder: it is not a folder")
    missing = [name for name in ("curves.npz", "manifest.json") if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{folder} is not a results folder: missing {', '.join(missing)}")

    def damaged(what: str) -> ValueError:
        return ValueError(f"{folder} is not a readable results folder: {what}")

    labels, specs, curves = _read_curves(folder / "curves.npz", damaged)
    horizon = curves["regret"].shape[1]
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise damaged(f"manifest.json is not JSON ({type(exc).__name__}: {str(exc)[:80]})") from None
    if not isinstance(manifest, dict):
        raise damaged(f"manifest.json holds a JSON {type(manifest).__name__}, not an object")
    n_tasks = manifest.get("n_tasks")
    if isinstance(n_tasks, bool) or not isinstance(n_tasks, int) or n_tasks < 1:
        raise damaged(f"manifest.json's n_tasks must be an integer >= 1, got {_short(n_tasks)}")
    if "horizon" in manifest and manifest["horizon"] != horizon:
        raise damaged(f"manifest.json says horizon {_short(manifest['horizon'])} but curves.npz holds {horizon} plays")
    if "labels" in manifest and manifest["labels"] != labels:
        raise damaged(f"manifest.json names the policies {_short(manifest['labels'])}, curves.npz {_short(labels)}")
    config = manifest.get("config", {})
    if not isinstance(config, dict) or not isinstance(config.get("testbed", {}), dict):
        raise damaged("manifest.json's config (and its testbed) must be JSON objects")
    from testbeds.lower_bound import constant_for

    try:
        constant_for(config)
    except (ValueError, TypeError, KeyError) as exc:
        raise damaged(f"manifest.json's testbed means cannot be used ({exc})") from None
    diagnostics = _per_label(manifest, "diagnostics", labels, damaged)
    recommendation = [{k: (math.nan if v is None else v) for k, v in row.items()}
                      for row in _per_label(manifest, "recommendation", labels, damaged)]
    return TestbedResult(labels=labels, specs=specs, n_tasks=n_tasks, curves=curves, diagnostics=diagnostics,
                         config=config, manifest=manifest, recommendation=recommendation)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _per_label(manifest: dict, key: str, labels: list[str], damaged) -> list[dict]:
    """manifest[key][label] for every label: an object of numbers (or null), {} where absent."""
    table = manifest.get(key, {})
    if not isinstance(table, dict):
        raise damaged(f"manifest.json's {key} must be a JSON object, got a {type(table).__name__}")
    out = []
    for label in labels:
        row = table.get(label, {})
        if not isinstance(row, dict) or not all(
                v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in row.values()):
            raise damaged(f"manifest.json's {key} of {label!r} must be an object of numbers")
        out.append(dict(row))
    return out


def _read_curves(path: Path, damaged) -> "tuple[list[str], list[str], dict[str, np.ndarray]]":
    """labels, specs and curves of curves.npz, each array's header checked before its data is read."""
    import zipfile

    with open(path, "rb") as f:
        head = f.read(4)
    # (np.load takes a file that does not begin as a zip archive for a pickle, and refuses it as one)
    if head not in (b"PK\x03\x04", b"PK\x05\x06") or not zipfile.is_zipfile(path):
        raise damaged("curves.npz is not an .npz archive of arrays (a file cut off, or another kind of file)")
    try:
        data = np.load(path, allow_pickle=False)
    except Exception as exc:  # a damaged archive: whatever it holds, one line
        raise damaged(f"curves.npz cannot be read ({type(exc).__name__}: {str(exc)[:80]})") from None
    with data:
        wanted = ("labels", "specs", "step") + METRICS
        absent = [name for name in wanted if name not in data.files]
        if absent:
            raise damaged(f"curves.npz has no {', '.join(absent)} array{'s' if len(absent) > 1 else ''}")
        headers = {}
        for name in wanted:
            try:
                headers[name] = _npy_header(data.zip, name)
            except (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile) as exc:
                raise damaged(f"curves.npz's {name} array cannot be read ({str(exc)[:80]})") from None
        p_shape, h_shape = headers["labels"][0], headers["step"][0]
        if len(p_shape) != 1 or p_shape[0] < 1 or len(h_shape) != 1 or h_shape[0] < 1:
            raise damaged(f"curves.npz's labels and step must be non-empty lists, got shapes {p_shape} and {h_shape}")
        n_pol, horizon = p_shape[0], h_shape[0]
        for name, (shape, dtype) in headers.items():
            want = (n_pol,) if name in ("labels", "specs") else (horizon,) if name == "step" else (n_pol, horizon)
            kind = {"labels": "U", "specs": "U", "step": "i"}.get(name, "f")
            if shape != want:
                dims = ("policies", "plays") if len(want) == 2 else ("policies",) if name in ("labels", "specs") \
                    else ("plays",)
                k = next((k for k in range(len(want)) if len(shape) != len(want) or shape[k] != want[k]), 0)
                why = (f"{len(shape)} dimension{'s' if len(shape) != 1 else ''} where {len(want)} "
                       f"{'are' if len(want) != 1 else 'is'} needed" if len(shape) != len(want) else
                       f"{shape[k]} {dims[k]} where the folder has {want[k]}")
                raise damaged(f"curves.npz's {name} has shape {shape}, not {want}: {why} (labels names {n_pol} "
                              f"policies, step counts {horizon} plays)")
            if dtype.kind != kind or (kind == "f" and dtype.itemsize != 8):
                raise damaged(f"curves.npz's {name} has dtype {dtype}, not {_KINDS[kind]}")
        try:
            arrays = {name: np.array(data[name]) for name in wanted}
        except Exception as exc:  # a corrupted member (CRC, zlib, a cut-off file)
            raise damaged(f"curves.npz cannot be read ({type(exc).__name__}: {str(exc)[:80]})") from None
    if not np.array_equal(arrays["step"], np.arange(1, horizon + 1)):
        raise damaged(f"curves.npz's step is not the plays 1..{horizon}")
    labels = [str(x) for x in arrays["labels"]]
    if len(set(labels)) != len(labels):
        raise damaged(f"curves.npz names a policy twice ({sorted({x for x in labels if labels.count(x) > 1})[0]!r})")
    for name in METRICS:  # a mean over tasks is finite; its standard error >= 0, or NaN for a single task
        values = arrays[name]
        se = name.endswith("_se")
        bad = ~(np.isnan(values) | (np.isfinite(values) & (values >= 0))) if se else ~np.isfinite(values)
        if bad.any():
            p, t = (int(i) for i in np.argwhere(bad)[0])
            rule = "a standard error is >= 0 (or NaN: one task)" if se else "a mean over tasks is finite"
            raise damaged(f"curves.npz's {name} holds {float(values[p, t])} at play {t + 1} of {labels[p]!r}, but {rule}")
    return labels, [str(x) for x in arrays["specs"]], {name: arrays[name] for name in METRICS}


_KINDS = {"U": "str (text)", "i": "an integer type", "f": "float64"}


def _npy_header(archive, name: str) -> "tuple[tuple, np.dtype]":
    """(shape, dtype) of the member ``name`` of an .npz, ValueError if its data is not all there."""
    from numpy.lib import format as npy

    info = archive.getinfo(name + ".npy")
    with archive.open(info) as f:
        version = npy.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = npy.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = npy.read_array_header_2_0(f)
        else:
            raise ValueError(f"unknown .npy version {version}")
        offset = f.tell()
    if dtype.hasobject:
        raise ValueError("it holds Python objects")
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if offset + size != info.file_size:
        raise ValueError(f"it holds {info.file_size - offset} bytes of data where its shape {tuple(shape)} needs {size}")
    return tuple(int(n) for n in shape), dtype
