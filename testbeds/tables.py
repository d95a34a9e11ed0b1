"""The grid of Tables 1-2 of Liu & Tsuruoka (2015): Mi-UCT against UCT on 9x9 Go and NoGo.

Rows: UCT's constant C; columns: playouts per move (both players); cells: Mi-UCT's score rate
with its Wilson 95% interval (docs/algorithms.md, "The game experiments").  Each ``--mi`` variant gives one table.  A cell is
exactly the match ``banditree match --game G --a MI --b ucb1:c=C --playouts P --seed S`` (same run
seed for every cell), stored as one run of the tables database with tags ``{mi, c, playouts}``.

Computing (:func:`run_tables`) and presenting (:func:`collect_cells`, :func:`write_csv`,
:func:`write_markdown`, :func:`heatmap_figure`, :func:`draw_vs_playouts`) are separate: the
presenting functions read only the database, so a notebook can show a run still in progress.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

from testbeds.ratings import Rating, rate
from testbeds.store import ResultStore
from testbeds.tournament import MatchConfig, progress_bar, check_execution, plan_tasks, run_tasks

__all__ = ["TablesSpec", "Cell", "group_cells", "uct_spec", "tables_header", "run_tables", "collect_cells",
           "write_csv", "write_markdown", "markdown_tables", "heatmap_figure", "draw_heatmap",
           "draw_vs_playouts", "write_outputs", "stored_grid", "grid_of", "CSV_COLUMNS", "cell_costs"]

#: The paper's columns and our documented default C grid (the paper does not state its C values).
DEFAULT_C = (0.1, 0.2, 0.3, 0.5, 0.7, 1.0)
DEFAULT_PLAYOUTS = (1000, 3000, 5000)
DEFAULT_MI = "miucb:episodic=true"

CSV_COLUMNS = ("mi", "uct", "c", "playouts", "games", "wins", "draws", "losses", "capped", "win_rate",
               "low", "high", "elo", "elo_low", "elo_high")


def uct_spec(template: str, c: float) -> str:
    """UCT's player spec for constant ``c``: ``template`` (``ucb1`` or ``ucb1:final=max``) plus ``c=``."""
    if not (c >= 0 and math.isfinite(c)):
        raise ValueError(f"c must be a finite number >= 0, got {c!r}")
    name, _, rest = template.strip().partition(":")
    keys = [item.partition("=")[0].strip() for item in rest.split(",") if item.strip()]
    if "c" in keys:
        raise ValueError(f"uct must not set c itself (the grid sets it), got {template!r}")
    return f"{template.strip()}{',' if rest.strip() else ':'}c={c:g}"


@dataclass(frozen=True)
class TablesSpec:
    """The grid: game, board options, Mi-UCT variants, UCT template, C values, playouts, games, seed."""

    game: str
    cs: tuple = DEFAULT_C
    playouts: tuple = DEFAULT_PLAYOUTS
    mis: tuple = (DEFAULT_MI,)
    uct: str = "ucb1"
    games: int = 100
    seed: int = 0
    game_options: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.cs:
            raise ValueError("c must list at least one value")
        if not self.playouts:
            raise ValueError("playouts must list at least one value")
        if not self.mis:
            raise ValueError("mi must list at least one spec")
        for p in self.playouts:
            if isinstance(p, bool) or int(p) != p or p < 1:
                raise ValueError(f"playouts must be integers >= 1, got {p!r}")
        if len(set(self.cs)) != len(self.cs) or len(set(self.playouts)) != len(self.playouts) \
                or len(set(self.mis)) != len(self.mis):
            raise ValueError("c, playouts and mi values must not repeat")
        if isinstance(self.games, bool) or int(self.games) != self.games or self.games < 1:
            raise ValueError(f"games must be an integer >= 1, got {self.games!r}")
        for c in self.cs:
            uct_spec(self.uct, c)  # validates c and the template
        list(self.cells())  # each cell's MatchConfig validates the seed and the budget
        self._check_players()

    def _check_players(self) -> None:
        """Make the game and every player of the grid once (ValueError naming the bad one), so
        that a bad spec or option is refused before a database is created or a game is played."""
        from treepolicies import make_player
        from treepolicies.games import make_game

        if not isinstance(self.game_options, dict):
            raise ValueError(f"game_options must be a dict, got {self.game_options!r}")
        make_game(self.game, **self.game_options)
        specs = [("mi", mi) for mi in self.mis] + [("uct", uct_spec(self.uct, c)) for c in self.cs]
        for what, spec in specs:
            for p in self.playouts:
                try:
                    player = make_player(spec, playouts=int(p))
                except ValueError as exc:
                    raise ValueError(f"{what} spec {spec!r}: {exc}") from None
                player.close()

    def cells(self):
        """``(mi, c, playouts, MatchConfig)`` for every cell, tables in order, rows, columns."""
        for mi in self.mis:
            for c in self.cs:
                for p in self.playouts:
                    yield mi, c, p, MatchConfig(game=self.game, a=mi, b=uct_spec(self.uct, c),
                                                playouts=int(p), seed=self.seed,
                                                game_options=dict(self.game_options))


def tables_header(spec: TablesSpec) -> dict:
    """What a tables database fixes: game, board options and run seed (the grid may grow)."""
    return {"study": "tables", "game": spec.game, "game_options": dict(sorted(spec.game_options.items())),
            "seed": int(spec.seed)}


@dataclass(frozen=True)
class Cell:
    """One cell: Mi-UCT variant, UCT spec, C, playouts, and Mi-UCT's rating."""

    mi: str
    uct: str
    c: float
    playouts: int
    rating: Rating
    capped: int = 0  # games ended by the game's move cap (Go), scored as they stood

    @property
    def uct_template(self) -> str:
        """UCT's spec without its constant (``ucb1:c=0.5`` -> ``ucb1``; ``ucb1:final=max,c=1`` -> ``ucb1:final=max``)."""
        name, _, rest = self.uct.partition(":")
        items = [item for item in rest.split(",") if item.strip() and item.partition("=")[0].strip() != "c"]
        return name + (":" + ",".join(items) if items else "")


def run_tables(spec: TablesSpec, db, *, workers: int = 1, scheduler: str | None = None,
               progress: bool = True) -> list[Cell]:
    """Play (or resume) every cell of ``spec`` into the database ``db``; returns the cells.

    All cells' games form one task list ordered by game index, so the grid fills evenly.  Bad
    ``workers`` or ``scheduler`` values are refused before the database is opened (``spec`` checks
    itself when it is made).
    """
    check_execution(workers, scheduler)
    with ResultStore(db, tables_header(spec), lock=True) as store:
        runs = []
        for mi, c, p, cfg in spec.cells():
            tags = {"mi": mi, "uct": cfg.b, "c": float(c), "playouts": int(p)}
            runs.append((store.run_id(cfg.as_dict(), tags), cfg.as_dict()))
        tasks = plan_tasks(store, runs, spec.games)
        total = spec.games * len(runs)
        bar = progress_bar(total, total - len(tasks), progress, f"{spec.game} tables")
        score = [0.0, 0]

        def on_result(_rid, row):
            score[0] += row.score_a
            score[1] += 1
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(f"Mi-UCT scores {score[0] / score[1]:.3f} this session")

        try:
            run_tasks(store, tasks, workers=workers, scheduler=scheduler, on_result=on_result)
        finally:
            if bar is not None:
                bar.close()
        wanted = {rid for rid, _ in runs}
        return [cell for rid, cell in _cells(store, spec.games) if rid in wanted]


def _cells(store: ResultStore, limit: int | None):
    for run in store.runs():
        t = run.tags
        if not {"mi", "c", "playouts"} <= set(t):
            continue
        games = store.games(run.run_id, limit)
        wdl = [sum(g.score_a == v for g in games) for v in (1.0, 0.5, 0.0)]
        yield run.run_id, Cell(t["mi"], t.get("uct", run.config["b"]), float(t["c"]), int(t["playouts"]),
                               rate(*wdl), sum(g.capped for g in games))


def collect_cells(db, games: int | None = None) -> list[Cell]:
    """Every cell stored in the tables database ``db`` (games with index below ``games`` if given)."""
    with ResultStore(db) as store:
        if store.header.get("study") != "tables":
            raise ValueError(f"{db} holds a {store.header.get('study')!r} study, not a tables grid")
        return [cell for _, cell in _cells(store, games)]


def cell_costs(db) -> list[dict]:
    """Per cell of the tables database ``db``: games stored and the mean seconds per game.

    A game's ``seconds`` is its wall time in the worker that played it; with one worker process per
    core (``--workers`` = cores, the default) that is its cost in core-seconds.  Rows: mi, uct, c,
    playouts, games, seconds_per_game, seconds (their sum).
    """
    rows = []
    with ResultStore(db) as store:
        if store.header.get("study") != "tables":
            raise ValueError(f"{db} holds a {store.header.get('study')!r} study, not a tables grid")
        for run in store.runs():
            t = run.tags
            if not {"mi", "c", "playouts"} <= set(t):
                continue
            games = store.games(run.run_id)
            total = float(sum(g.seconds for g in games))
            rows.append({"mi": t["mi"], "uct": t.get("uct", run.config["b"]), "c": float(t["c"]),
                         "playouts": int(t["playouts"]), "games": len(games),
                         "seconds_per_game": total / len(games) if games else math.nan, "seconds": total})
    return sorted(rows, key=lambda r: (r["mi"], r["uct"], r["c"], r["playouts"]))


# -- presenting ----------------------------------------------------------------------------------
def group_cells(cells: list[Cell]) -> dict[str, list[Cell]]:
    """Cells by table: one table per Mi-UCT variant (and per UCT template, if several are stored).

    Keys are labels: ``Mi-UCT miucb:episodic=true``, or ``... vs UCT ucb1:final=max`` when the cells
    hold more than one UCT template.
    """
    several = len({c.uct_template for c in cells}) > 1
    out: dict[str, list[Cell]] = {}
    for cell in cells:
        label = f"Mi-UCT {cell.mi}" + (f" vs UCT {cell.uct_template}" if several else "")
        out.setdefault(label, []).append(cell)
    return out


def _axes(cells: list[Cell]) -> tuple[list[float], list[int], dict]:
    cs = sorted({c.c for c in cells})
    ps = sorted({c.playouts for c in cells})
    return cs, ps, {(c.c, c.playouts): c for c in cells}


def write_csv(cells: list[Cell], path) -> Path:
    """One row per cell (tidy form; pivot on c and playouts for the grid).  Columns: CSV_COLUMNS."""
    path = Path(path)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for cell in sorted(cells, key=lambda x: (x.mi, x.c, x.playouts)):
            r = cell.rating
            w.writerow([cell.mi, cell.uct, f"{cell.c:g}", cell.playouts, r.games, r.wins, r.draws,
                        r.losses, cell.capped] + [csv_number(x) for x in (r.rate, r.low, r.high, r.elo, r.elo_low, r.elo_high)])
    return path


def csv_number(x: float) -> str:
    if math.isnan(x):
        return ""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.6g}"


def _md_cell(r: Rating) -> str:
    if r.games == 0:
        return "-"
    return f"{r.rate:.3f} [{r.low:.3f}, {r.high:.3f}]"


def markdown_tables(cells: list[Cell], title: str = "") -> str:
    """One Markdown table per Mi-UCT variant: rows C, columns playouts, cells rate [95% interval]."""
    parts = [f"# {title}\n"] if title else []
    for group in group_cells(cells).values():
        cs, ps, grid = _axes(group)
        counts = sorted({c.rating.games for c in group})
        n_text = f"{counts[0]} games per cell" if len(counts) == 1 else \
            f"{counts[0]}-{counts[-1]} games per cell (run incomplete)"
        template = group[0].uct_template
        uct = f"{template}{',' if ':' in template else ':'}c=C"
        parts.append(f"## Mi-UCT `{group[0].mi}` against UCT `{uct}`\n\n"
                     f"Mi-UCT's score rate with Wilson 95% interval, {n_text}.\n")
        parts.append("| C \\ playouts | " + " | ".join(str(p) for p in ps) + " |")
        parts.append("|---|" + "---|" * len(ps))
        for c in cs:
            row = [_md_cell(grid[(c, p)].rating) if (c, p) in grid else "" for p in ps]
            parts.append(f"| {c:g} | " + " | ".join(row) + " |")
        parts.append("")
    return "\n".join(parts)


def write_markdown(cells: list[Cell], path, title: str = "") -> Path:
    path = Path(path)
    with open(path, "w") as f:
        f.write(markdown_tables(cells, title))
    return path


def draw_heatmap(ax, cells: list[Cell], title: str = "") -> None:
    """Heatmap of one variant's score rates on ``ax`` (0.5 white; blue: Mi-UCT ahead), annotated."""
    import numpy as np

    cs, ps, grid = _axes(cells)
    z = np.full((len(cs), len(ps)), np.nan)
    for i, c in enumerate(cs):
        for j, p in enumerate(ps):
            if (c, p) in grid and grid[(c, p)].rating.games:
                z[i, j] = grid[(c, p)].rating.rate
    im = ax.imshow(z, cmap="RdBu", vmin=0.0, vmax=1.0, aspect="auto")
    for i, c in enumerate(cs):
        for j, p in enumerate(ps):
            r = grid[(c, p)].rating if (c, p) in grid else None
            if r is not None and r.games:
                ax.text(j, i, f"{r.rate:.2f}\n[{r.low:.2f}, {r.high:.2f}]", ha="center", va="center",
                        fontsize=8, color="black" if 0.2 < r.rate < 0.8 else "white")
    ax.set_xticks(range(len(ps)), [str(p) for p in ps])
    ax.set_yticks(range(len(cs)), [f"{c:g}" for c in cs])
    ax.set_xlabel("playouts per move")
    ax.set_ylabel("UCT's C")
    ax.set_title(title or f"Mi-UCT {cells[0].mi}", fontsize=9)
    return im


def heatmap_figure(cells: list[Cell], title: str = ""):
    """A matplotlib Figure with one heatmap per Mi-UCT variant (no pyplot, no global state)."""
    from matplotlib.figure import Figure

    groups = group_cells(cells)
    n = max(1, len(groups))
    fig = Figure(figsize=(4.2 * n + 1.0, 4.0), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False)[0]
    im = None
    for ax, (label, group) in zip(axes, groups.items()):
        im = draw_heatmap(ax, group, label)
    if im is not None:
        fig.colorbar(im, ax=list(axes), label="Mi-UCT score rate")
    if title:
        fig.suptitle(title)
    return fig


def draw_vs_playouts(ax, cells: list[Cell]) -> None:
    """Score rate against playouts per move, one line per (table, C), with 95% intervals."""
    groups = group_cells(cells)
    for label, group in groups.items():
        cs, ps, grid = _axes(group)
        for c in cs:
            pts = [(p, grid[(c, p)].rating) for p in ps if (c, p) in grid and grid[(c, p)].rating.games]
            if not pts:
                continue
            x = [p for p, _ in pts]
            y = [r.rate for _, r in pts]
            err = [[r.rate - r.low for _, r in pts], [r.high - r.rate for _, r in pts]]
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3,
                        label=f"C={c:g}" if len(groups) == 1 else f"{label}, C={c:g}")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("playouts per move")
    ax.set_ylabel("Mi-UCT score rate")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)


def write_outputs(cells: list[Cell], out_dir, title: str = "") -> list[Path]:
    """Write table.csv, table.md, heatmap.png and heatmap.pdf as the folder ``out_dir``; returns the
    paths.  The folder is replaced as a whole (:mod:`testbeds.folders`): a reader sees the earlier
    tables or the new ones, never a mixture; it must hold nothing but tables files."""
    from testbeds.folders import replace_folder

    out = Path(out_dir)
    names = ["table.csv", "table.md", "heatmap.png", "heatmap.pdf"]
    with replace_folder(out) as tmp:
        write_csv(cells, tmp / "table.csv")
        write_markdown(cells, tmp / "table.md", title)
        fig = heatmap_figure(cells, title)
        from testbeds.plots import save_figure

        save_figure(fig, tmp, "heatmap")
    return [out / name for name in names]


def stored_grid(out_dir) -> "set[tuple[str, str, float, int]] | None":
    """The cells ``(mi, uct, c, playouts)`` of the tables in ``out_dir``/table.csv, or None without one."""
    path = Path(out_dir) / "table.csv"
    if not path.is_file():
        return None
    try:
        with open(path, newline="") as f:
            return {(row["mi"], row["uct"], float(row["c"]), int(row["playouts"])) for row in csv.DictReader(f)}
    except (KeyError, ValueError, TypeError, OSError, UnicodeDecodeError):
        return {("?", "?", math.nan, -1)}  # not a table of ours: differs from every grid


def grid_of(spec: TablesSpec) -> set:
    """The cells ``(mi, uct, c, playouts)`` of ``spec``, as :func:`stored_grid` reads them back."""
    return {(mi, cfg.b, float(f"{c:g}"), int(p)) for mi, c, p, cfg in spec.cells()}
