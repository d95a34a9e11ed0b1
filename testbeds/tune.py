"""Self-play tuning of any player-spec parameter: a grid of candidates, successive halving.

A *template* is a player spec with placeholders, ``ucb1:c={c}`` or ``ucb1:c={c},rave=true,rave_k={k}``;
a *grid* gives each placeholder its values (``{"c": ["0.3", "0.5", "1"]}``).  The candidates are the
template with every combination of the values substituted (the cartesian product, the first key
varying slowest), in grid order.  Each candidate plays the *reference* player (or, in a round
robin, the other candidates still in), colours alternating.

The schedule (successive halving, Karnin, Koren & Somekh 2013) for n candidates and a budget of
B games::

    rounds          R = max(1, ceil(log2 n))
    round r         n_r = ceil(n / 2**r) candidates are still in (n_0 = n)
    against the reference: every candidate in plays  g_r = 2 * floor(B / (2 R n_r))  games
    round robin:    every pair of candidates in plays  g_r = 2 * floor(B / (2 R P_r)) games,
                    P_r = n_r (n_r - 1) / 2 pairs
    after round r   the ceil(n_r / 2) candidates with the best score so far (all their games of
                    rounds 0..r, a draw half a point) stay in; ties go to the candidate listed first

so every round spends about B / R games, on fewer and fewer candidates: the close ones get the
most games.  After the last round (n_{R-1} is 2, or 1 for a single candidate) one candidate is
left, the *best*; the table ranks the others by the round they were dropped after (later first),
then by score.  Game counts are even (colours alternate); a budget too
small for 2 games per candidate (or pair) in every round is refused: the minimum is
``2 R n`` (``2 R n (n - 1) / 2`` in a round robin).

Each (candidate, round) pairing is one match configuration of the results database
(:mod:`testbeds.store`): ``a`` the candidate, ``b`` the reference (or the other candidate),
``seed = game_seed(run seed, r)``, so rounds play different games and a rerun of the same command
plays only the missing games and reaches the same schedule and the same results (with a playout
budget).  The statistics are those of :mod:`testbeds.ratings` (score, Wilson 95% interval, Elo
against the reference, or against the field in a round robin).
"""
from __future__ import annotations

import csv
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from testbeds.ratings import Rating, format_elo, rate
from testbeds.store import ResultStore
from testbeds.tables import csv_number  # one CSV number format for tables and tune
from testbeds.tournament import MatchConfig, progress_bar, check_execution, plan_tasks, run_tasks

__all__ = ["TuneSpec", "Candidate", "Standing", "expand_grid", "parse_grid", "schedule", "min_budget",
           "run_tune", "write_outputs", "score_figure", "CSV_COLUMNS", "MAX_CANDIDATES"]

#: At most this many candidates (the cartesian product of the grid).
MAX_CANDIDATES = 1000

CSV_COLUMNS = ("rank", "candidate", "spec", "round_out", "games", "wins", "draws", "losses", "score", "low",
               "high", "elo", "elo_low", "elo_high")

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def parse_grid(items) -> dict:
    """``["c=0.3,0.5", "k=10,100"]`` -> ``{"c": ("0.3", "0.5"), "k": ("10", "100")}``; ValueError
    naming --grid for a bad item (no ``=``, no value, a repeated key or value)."""
    grid: dict = {}
    for item in items:
        key, eq, values = str(item).partition("=")
        key = key.strip()
        vals = tuple(v.strip() for v in values.split(",") if v.strip())
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) or not vals:
            raise ValueError(f"--grid must be KEY=V1,V2,... (e.g. c=0.3,0.5,1), got {item!r}")
        if key in grid:
            raise ValueError(f"--grid gives {key!r} twice")
        if len(set(vals)) != len(vals):
            raise ValueError(f"--grid {key}: values must not repeat, got {values.strip()!r}")
        if any(ch in v for v in vals for ch in "{}:,"):
            raise ValueError(f"--grid {key}: values must not hold braces, colons or commas, got {values.strip()!r}")
        grid[key] = vals
    return grid


@dataclass(frozen=True)
class Candidate:
    """One point of the grid: its index (grid order), its values and its player spec."""

    index: int
    values: tuple  # ((key, value text), ...), in grid order
    spec: str

    @property
    def label(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.values)


def expand_grid(template: str, grid: dict) -> list[Candidate]:
    """Every candidate of ``template`` over ``grid`` (module docstring); ValueError naming --player
    or --grid when the placeholders and the grid's keys differ or there are too many candidates."""
    if not grid:
        raise ValueError("--grid: give at least one KEY=V1,V2,...")
    used = set(_PLACEHOLDER.findall(template))
    missing = [k for k in grid if k not in used]
    if missing:
        raise ValueError(f"--player {template!r} has no placeholder {{{missing[0]}}} for --grid {missing[0]}")
    extra = sorted(used - set(grid))
    if extra:
        raise ValueError(f"--player {template!r}: placeholder {{{extra[0]}}} has no --grid {extra[0]}=...")
    n = math.prod(len(v) for v in grid.values())
    if n > MAX_CANDIDATES:
        raise ValueError(f"--grid makes {n} candidates; at most {MAX_CANDIDATES}")
    keys = list(grid)
    out = []
    for i, combo in enumerate(itertools.product(*(grid[k] for k in keys))):
        values = tuple(zip(keys, combo))
        spec = _PLACEHOLDER.sub(lambda m: dict(values)[m.group(1)], template)
        out.append(Candidate(i, values, spec))
    return out


def schedule(n: int, budget: int, round_robin: bool = False) -> list[tuple[int, int]]:
    """``[(n_r, g_r), ...]`` per round: candidates in and games per candidate (per pair in a round
    robin) of round r (module docstring).  ValueError naming --budget when it is below
    :func:`min_budget`."""
    if n < 1 or (round_robin and n < 2):
        raise ValueError(f"{'a round robin needs at least 2' if round_robin else 'need at least 1'} candidates, got {n}")
    need = min_budget(n, round_robin)
    if budget < need:
        raise ValueError(f"--budget must be at least {need} for {n} candidates"
                         f"{' in a round robin' if round_robin else ''} (2 games per "
                         f"{'pair' if round_robin else 'candidate'} in each of {rounds(n)} rounds), got {budget}")
    R = rounds(n)
    out = []
    for r in range(R):
        n_r = -(-n // 2 ** r)
        units = n_r * (n_r - 1) // 2 if round_robin else n_r
        out.append((n_r, 2 * (budget // (2 * R * units))))
    return out


def rounds(n: int) -> int:
    """R = max(1, ceil(log2 n))."""
    return max(1, math.ceil(math.log2(n))) if n > 1 else 1


def min_budget(n: int, round_robin: bool = False) -> int:
    """The smallest budget with 2 games per candidate (pair) in every round: 2 R n (2 R n(n-1)/2)."""
    return 2 * rounds(n) * (n * (n - 1) // 2 if round_robin else n)


@dataclass(frozen=True)
class TuneSpec:
    """A tuning: game and options, the template and grid, the reference (None: round robin),
    the budget per move, the total games budget and the run seed."""

    game: str
    template: str
    grid: dict
    reference: str | None = None
    playouts: int | None = None
    seconds: float | None = None
    budget: int = 1000
    seed: int = 0
    game_options: dict = field(default_factory=dict)

    def __post_init__(self):
        self.candidates()  # the grid and template agree
        schedule(len(self.candidates()), self.budget, self.reference is None)
        MatchConfig(game=self.game, a="random", b="random", playouts=self.playouts, seconds=self.seconds,
                    seed=self.seed, game_options=dict(self.game_options))

    def candidates(self) -> list[Candidate]:
        return expand_grid(self.template, self.grid)

    def schedule(self) -> list[tuple[int, int]]:
        return schedule(len(self.candidates()), self.budget, self.reference is None)

    def round_seed(self, r: int) -> int:
        import treepolicies

        return int(treepolicies.game_seed(self.seed, r))

    def config(self, a: str, b: str, r: int) -> MatchConfig:
        return MatchConfig(game=self.game, a=a, b=b, playouts=self.playouts, seconds=self.seconds,
                           seed=self.round_seed(r), game_options=dict(self.game_options))

    def check_players(self) -> None:
        """Make every candidate and the reference once; ValueError naming --player/--against."""
        from treepolicies import make_player
        from treepolicies.games import make_game

        make_game(self.game, **self.game_options)
        specs = [("--player", c.spec) for c in self.candidates()]
        if self.reference is not None:
            specs.append(("--against", self.reference))
        for flag, spec in specs:
            try:
                make_player(spec, playouts=self.playouts, seconds=self.seconds).close()
            except ValueError as exc:
                raise ValueError(f"{flag} {spec!r}: {exc}") from None

    def as_dict(self) -> dict:
        return {"game": self.game, "game_options": dict(sorted(self.game_options.items())),
                "template": self.template, "grid": {k: list(v) for k, v in self.grid.items()},
                "reference": self.reference, "round_robin": self.reference is None,
                "playouts": self.playouts, "seconds": self.seconds, "budget": self.budget, "seed": self.seed}


@dataclass
class Standing:
    """A candidate's result: its games over every round it played, and the round it was dropped
    after (``None`` for the best, which stays in to the end)."""

    candidate: Candidate
    wins: int = 0
    draws: int = 0
    losses: int = 0
    dropped_after: int | None = None
    rank: int = 0

    @property
    def rating(self) -> Rating:
        return rate(self.wins, self.draws, self.losses)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan


def tune_header(spec: TuneSpec) -> dict:
    """What a tuning database fixes: the game, its options and the budget per move (the grid,
    the reference and the budget may change; every pairing is its own run)."""
    return {"study": "tune", "game": spec.game, "game_options": dict(sorted(spec.game_options.items())),
            "playouts": spec.playouts, "seconds": spec.seconds}


def _pairings(spec: TuneSpec, alive: list[Candidate], r: int):
    """(a, b, MatchConfig) of round r: each candidate against the reference, or every pair."""
    if spec.reference is not None:
        return [(c, None, spec.config(c.spec, spec.reference, r)) for c in alive]
    return [(x, y, spec.config(x.spec, y.spec, r)) for x, y in itertools.combinations(alive, 2)]


def run_tune(spec: TuneSpec, db=None, *, workers: int = 1, scheduler: str | None = None, progress: bool = True,
             on_game=None) -> dict:
    """Play (or resume) the tuning ``spec``; returns ``{"standings": [...], "rounds": [...], "played": N}``.

    ``db``: results database path (resumes what is there); None keeps the games in memory.
    ``on_game(run_id, row)``: called after each stored game (tests interrupt a run with it).
    The standings are ranked: the best first (module docstring).
    """
    check_execution(workers, scheduler)
    sched = spec.schedule()
    cands = spec.candidates()
    standing = {c.index: Standing(c) for c in cands}
    total = sum(g * (n if spec.reference is not None else n * (n - 1) // 2) for n, g in sched)
    path = ":memory:" if db is None else db
    played = 0
    log = []
    with ResultStore(path, tune_header(spec), lock=db is not None) as store:
        bar = progress_bar(total, 0, progress, f"{spec.game} tune")
        try:
            alive = list(cands)
            for r, (n_r, g_r) in enumerate(sched):
                assert len(alive) == n_r
                runs = []
                for a, b, cfg in _pairings(spec, alive, r):
                    tags = {"tune": spec.template, "round": r, "candidate": a.spec,
                            "opponent": spec.reference if b is None else b.spec}
                    runs.append((store.run_id(cfg.as_dict(), tags), cfg.as_dict(), a, b))
                tasks = plan_tasks(store, [(rid, cfg) for rid, cfg, _, _ in runs], g_r)
                if bar is not None:
                    bar.update(g_r * len(runs) - len(tasks))

                def on_result(rid, row):
                    if bar is not None:
                        bar.update(1)
                    if on_game is not None:
                        on_game(rid, row)

                played += run_tasks(store, tasks, workers=workers, scheduler=scheduler, on_result=on_result)
                for rid, _, a, b in runs:
                    w, d, l = store.counts(rid, g_r)
                    _add(standing[a.index], w, d, l)
                    if b is not None:
                        _add(standing[b.index], l, d, w)
                keep = -(-n_r // 2) if r < len(sched) - 1 else 1
                order = sorted(alive, key=lambda c: (-standing[c.index].score, c.index))
                for c in order[keep:]:
                    standing[c.index].dropped_after = r
                log.append({"round": r, "candidates": [c.spec for c in alive], "games_each": g_r,
                            "kept": [c.spec for c in order[:keep]]})
                alive = sorted(order[:keep], key=lambda c: c.index)
        finally:
            if bar is not None:
                bar.close()
    last = len(sched)
    ranked = sorted(standing.values(), key=lambda s: (-(last if s.dropped_after is None else s.dropped_after),
                                                      -s.score, s.candidate.index))
    for i, s in enumerate(ranked):
        s.rank = i + 1
    return {"standings": ranked, "rounds": log, "played": played}


def _add(s: Standing, w: int, d: int, l: int) -> None:
    s.wins += w
    s.draws += d
    s.losses += l


# -- presenting ----------------------------------------------------------------------------------
def _round_out(s: Standing) -> str:
    return "best" if s.dropped_after is None else str(s.dropped_after)


def write_csv(standings, path) -> Path:
    """One row per candidate, best first; one column per grid key after ``candidate``."""
    keys = [k for k, _ in standings[0].candidate.values]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(list(CSV_COLUMNS[:2]) + keys + list(CSV_COLUMNS[2:]))
        for s in standings:
            r = s.rating
            w.writerow([s.rank, s.candidate.label] + [v for _, v in s.candidate.values]
                       + [s.candidate.spec, _round_out(s), r.games, r.wins, r.draws, r.losses]
                       + [csv_number(x) for x in (r.rate, r.low, r.high, r.elo, r.elo_low, r.elo_high)])
    return Path(path)


def markdown(spec: TuneSpec, result: dict, title: str = "") -> str:
    against = f"against `{spec.reference}`" if spec.reference else "in a round robin"
    lines = [f"# {title}\n"] if title else []
    lines.append(f"Candidates `{spec.template}` {against} on {spec.game}, successive halving, budget "
                 f"{spec.budget} games, seed {spec.seed}. Score: wins + draws / 2 over all the candidate's "
                 f"games, Wilson 95% interval; Elo {'against the reference' if spec.reference else 'against the field'}.\n")
    lines.append("| rank | candidate | out after round | games | W-D-L | score [95%] | Elo [95%] |")
    lines.append("|---|---|---|---|---|---|---|")
    for s in result["standings"]:
        r = s.rating
        score = f"{r.rate:.3f} [{r.low:.3f}, {r.high:.3f}]" if r.games else "-"
        elo = format_elo(r).removeprefix("Elo ").removesuffix(" (95%)") if r.games else "-"
        lines.append(f"| {s.rank} | `{s.candidate.spec}` | {_round_out(s)} | {r.games} | "
                     f"{r.wins}-{r.draws}-{r.losses} | {score} | {elo} |")
    lines.append("\nRounds:\n")
    for entry in result["rounds"]:
        lines.append(f"- round {entry['round']}: {len(entry['candidates'])} candidates, {entry['games_each']} games "
                     f"{'each' if spec.reference else 'per pair'}; kept " + ", ".join(f"`{k}`" for k in entry["kept"]))
    return "\n".join(lines) + "\n"


def _numeric(values) -> list | None:
    try:
        out = [float(v) for v in values]
    except ValueError:
        return None
    return out if all(math.isfinite(x) for x in out) else None


def score_figure(spec: TuneSpec, standings, title: str = ""):
    """Score against the first grid key, one line per combination of the other keys, 95% error
    bars, the best candidate ringed (a matplotlib Figure, no pyplot)."""
    from matplotlib.figure import Figure

    keys = list(spec.grid)
    first = keys[0]
    xs_text = list(spec.grid[first])
    xs_num = _numeric(xs_text)
    pos = {v: (xs_num[i] if xs_num is not None else i) for i, v in enumerate(xs_text)}
    fig = Figure(figsize=(6.0, 4.0), layout="constrained")
    ax = fig.subplots()
    groups: dict = {}
    for s in standings:
        vals = dict(s.candidate.values)
        rest = ",".join(f"{k}={vals[k]}" for k in keys[1:])
        groups.setdefault(rest, []).append(s)
    for rest, group in groups.items():
        group = sorted((s for s in group if s.games), key=lambda s: pos[dict(s.candidate.values)[first]])
        if not group:
            continue
        x = [pos[dict(s.candidate.values)[first]] for s in group]
        y = [s.rating.rate for s in group]
        err = [[s.rating.rate - s.rating.low for s in group], [s.rating.high - s.rating.rate for s in group]]
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=rest or None)
    best = standings[0]
    if best.games:
        ax.plot([pos[dict(best.candidate.values)[first]]], [best.rating.rate], "o", ms=14, mfc="none", mec="red",
                label=f"best: {best.candidate.label}")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    if xs_num is None:
        ax.set_xticks(range(len(xs_text)), xs_text)
    elif min(xs_num) > 0 and max(xs_num) / min(xs_num) >= 20:
        ax.set_xscale("log")
    ax.set_xlabel(first)
    ax.set_ylabel("score " + (f"against {spec.reference}" if spec.reference else "in the round robin"))
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    ax.set_title(title or spec.template, fontsize=9)
    return fig


def write_outputs(spec: TuneSpec, result: dict, out_dir, title: str = "") -> list[Path]:
    """Write table.csv, table.md, score.png, score.pdf and tune.json (the settings, the rounds and
    the standings) as the folder ``out_dir``, replaced as a whole (:mod:`testbeds.folders`)."""
    from testbeds.folders import replace_folder

    out = Path(out_dir)
    names = ["table.csv", "table.md", "score.png", "score.pdf", "tune.json"]
    with replace_folder(out) as tmp:
        write_csv(result["standings"], tmp / "table.csv")
        (tmp / "table.md").write_text(markdown(spec, result, title))
        fig = score_figure(spec, result["standings"], title)
        from testbeds.plots import save_figure

        save_figure(fig, tmp, "score")
        doc = {"tune": spec.as_dict(), "rounds": result["rounds"],
               "standings": [{"rank": s.rank, "spec": s.candidate.spec, "values": dict(s.candidate.values),
                              "dropped_after": s.dropped_after, **{k: (None if isinstance(v, float) and not
                                                                      math.isfinite(v) else v)
                                                                  for k, v in s.rating.as_dict().items()}}
                             for s in result["standings"]]}
        (tmp / "tune.json").write_text(json.dumps(doc, indent=1) + "\n")
    return [out / n for n in names]


def stored_settings(out_dir) -> "dict | None":
    """The settings of the tuning in ``out_dir``/tune.json, or None without one."""
    path = Path(out_dir) / "tune.json"
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text()).get("tune")
    except (ValueError, OSError, AttributeError):
        return {"?": "not a tuning of ours"}
