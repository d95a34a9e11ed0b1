"""The paper's statements about its Figures 1-2 and Tables 1-2, measured on our results.

Liu & Tsuruoka (2015) describe their figures and tables in words (``../shared/seeds/003_*``); this
module turns each statement into numbers read from a ``banditree figures`` results folder or a
``banditree tables`` table.csv, with a rule that says whether the numbers support it.  The rules
are fixed here, before any result is read, and documented; nothing is tuned toward the paper.

Figures (curves of cumulative regret R(t) and % optimal action O(t), averaged over tasks, at the
checkpoints 1000, 2000, 5000 and 10 000 plays, clipped to the horizon):

F1  "I-UCB and I-UCB (episodic) produced the worst cumulative regret":
    holds at play t when min(R_I-UCB(t), R_I-UCB-ep(t)) > R_X(t) for every other curve X of the
    paper's seven.  For a reading of r: holds when both its curves stay below I-UCB's regret.
F2  "their optimal action percentages are increasing at a very rapid rate, and are likely to
    overtake the UCB algorithm": holds when I-UCB's gain in O between consecutive checkpoints is
    larger than UCB's in every interval, so the gap O_UCB - O_I-UCB shrinks at every checkpoint.
F3  "the slack in the curves of the algorithms that were run episodically [is where] a new episode
    begins": the per-play pseudo-regret over the 50 plays after the episode start at play 256
    (episodes end at 2, 4, 16, 256, 65 536) over that of the 50 plays before it; holds when this
    ratio is at least 1.5 (the regret curve visibly steepens).  The known-horizon twin's ratio is
    given beside it.
F4  "Modified I-UCB (no r) ... plateaued and stuck to suboptimal arms. Their cumulative regret also
    increased linearly": plateau when O moves by less than 1 point between the last two
    checkpoints while below UCB's; linear when the per-play regret over the last interval is at
    least half of that over the first.  (R = a log t gives a ratio of (log 2 / 5000) /
    (log 2 / 1000) = 0.2 for 5000-10 000 against 1000-2000; R = b t gives 1.)
F5  "by adding the factor r_i ... the optimal action percentage ... [is] rapidly catching up with
    [UCB's]; there is still a significant gap between their cumulative regret": catching up when
    O_UCB - O_MI at the last checkpoint is below 2 points or below the gap at the first checkpoint
    by a factor of 4 (or O_MI is above O_UCB: overtaken); a significant regret gap when
    R_MI - R_UCB > 2 sqrt(se_MI^2 + se_UCB^2) at every checkpoint (se: standard errors over tasks;
    the tasks are paired, so this is conservative).

Tables (Mi-UCT's score against UCT, one row per C, one column per playout budget):

T1  Go, "roughly on the same level": holds for a column when every cell's Wilson 95% interval
    contains 0.5 or the column's mean score is within 0.05 of 0.5.
T2  Go, "better performance when only 1000 playouts are given, but slightly deteriorates when more
    playouts are available": holds when the mean score over C at 1000 playouts is above 0.5 and
    above the mean at every larger budget.
T3  NoGo, "Mi-UCT dominates at 1000 playouts": holds when every cell at 1000 playouts has its
    interval above 0.5.
T4  NoGo, "deteriorates with more playouts": holds when the mean score over C decreases from each
    budget to the next larger one.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["CHECKPOINTS", "Claim", "figure_claims", "reading_claims", "table_claims", "read_table_csv",
           "write_claims_csv", "claims_markdown", "COST_COLUMNS", "write_cost_csv", "read_cost_csv", "cost_markdown", "SLACK_START", "SLACK_WINDOW", "SLACK_RATIO"]

CHECKPOINTS = (1000, 2000, 5000, 10_000)
#: F3: the episode start examined, the window either side, the ratio that counts as a visible slack.
SLACK_START, SLACK_WINDOW, SLACK_RATIO = 256, 50, 1.5
PLATEAU_POINTS, LINEAR_RATIO = 1.0, 0.5
CATCH_UP_POINTS, CATCH_UP_FACTOR = 2.0, 4.0
LEVEL_MARGIN = 0.05

UCB, IUCB, IUCB_EP = "UCB", "I-UCB", "I-UCB (episodic)"
NO_R, NO_R_EP = "Modified I-UCB (no r)", "Modified I-UCB (no r, episodic)"
MI, MI_EP = "Modified I-UCB", "Modified I-UCB (episodic)"
PAPER_SEVEN = (UCB, IUCB, IUCB_EP, NO_R, NO_R_EP, MI, MI_EP)


@dataclass(frozen=True)
class Claim:
    """One statement checked on one curve (or table): what was measured and whether it holds."""

    statement: str  # F1..F5, T1..T4
    subject: str  # the curve, reading or table column examined
    measure: str  # what the numbers are, in words
    values: str  # the numbers
    holds: bool

    def row(self) -> dict:
        return {"statement": self.statement, "subject": self.subject, "measure": self.measure,
                "values": self.values, "holds": "yes" if self.holds else "no"}


def _checkpoints(result) -> list[int]:
    """CHECKPOINTS within the horizon; at least two (H // 2 and H for a horizon under 2000)."""
    plays = [c for c in CHECKPOINTS if c <= result.horizon]
    if len(plays) < 2:
        if result.horizon < 4:
            raise ValueError(f"the claims need a horizon of at least 4 plays, got {result.horizon}")
        plays = [result.horizon // 2, result.horizon]
    return plays


def _at(result, label: str, metric: str, play: int) -> float:
    return float(result.curve(label, metric)[play - 1])


def _slope(result, label: str, start: int, end: int, metric: str = "regret") -> float:
    """Per-play growth of ``metric`` over plays start+1 .. end."""
    curve = result.curve(label, metric)
    return float((curve[end - 1] - curve[start - 1]) / (end - start))


def _fmt(x: float, digits: int = 1) -> str:
    return f"{x:.{digits}f}"


def worst_regret(result, labels, others, plays) -> Claim:
    """F1 for the curves ``labels`` (I-UCB's two) against ``others``."""
    parts, holds = [], True
    for t in plays:
        low = min(_at(result, lab, "regret", t) for lab in labels)
        top_name = max(others, key=lambda lab: _at(result, lab, "regret", t))
        top = _at(result, top_name, "regret", t)
        holds &= low > top
        parts.append(f"t={t}: {' / '.join(_fmt(_at(result, lab, 'regret', t)) for lab in labels)} vs {top_name} "
                     f"{_fmt(top)}")
    return Claim("F1", " and ".join(labels), "regret of the subject vs the highest regret of the others", "; ".join(parts),
                 holds)


def below_iucb(result, labels, plays) -> Claim:
    """F1 read for one reading of r: its curves stay below I-UCB's regret."""
    parts, holds = [], True
    for t in plays:
        floor = min(_at(result, IUCB, "regret", t), _at(result, IUCB_EP, "regret", t))
        values = [_at(result, lab, "regret", t) for lab in labels]
        holds &= max(values) < floor
        parts.append(f"t={t}: {' / '.join(_fmt(v) for v in values)} vs I-UCB {_fmt(floor)}")
    return Claim("F1", " and ".join(labels), "regret (known / episodic) vs the lower of I-UCB's two", "; ".join(parts),
                 holds)


def rises_to_ucb(result, label, plays) -> Claim:
    """F2: the gap O_UCB - O_label shrinks at every checkpoint."""
    gaps = [_at(result, UCB, "optimal_pct", t) - _at(result, label, "optimal_pct", t) for t in plays]
    holds = len(gaps) > 1 and all(b < a for a, b in zip(gaps, gaps[1:]))
    values = "; ".join(f"t={t}: {_fmt(_at(result, label, 'optimal_pct', t))}% vs UCB "
                       f"{_fmt(_at(result, UCB, 'optimal_pct', t))}%" for t in plays)
    return Claim("F2", label, "% optimal action vs UCB's (the gap must shrink at each checkpoint)", values, holds)


def slack(result, label, twin: "str | None") -> Claim:
    """F3: per-play pseudo-regret after / before the episode start at play 256."""
    s, w = SLACK_START, SLACK_WINDOW

    def ratio(lab):
        before = _slope(result, lab, s - w, s, "pseudo_regret")
        after = _slope(result, lab, s, s + w, "pseudo_regret")
        return before, after, (after / before if before > 0 else math.inf)

    before, after, r = ratio(label)
    values = f"per play {before:.3f} before, {after:.3f} after: x{r:.2f}"
    if twin is not None:
        values += f" (known-horizon twin x{ratio(twin)[2]:.2f})"
    return Claim("F3", label, f"pseudo-regret per play in the {w} plays after play {s} over the {w} before",
                 values, r >= SLACK_RATIO)


def plateau_linear(result, label, plays) -> Claim:
    """F4: O flat between the last two checkpoints and below UCB's; regret linear."""
    first, last = (plays[0], plays[1]), (plays[-2], plays[-1])
    o_move = _at(result, label, "optimal_pct", plays[-1]) - _at(result, label, "optimal_pct", plays[-2])
    below = _at(result, label, "optimal_pct", plays[-1]) < _at(result, UCB, "optimal_pct", plays[-1])
    early, late = _slope(result, label, *first), _slope(result, label, *last)
    ratio = late / early if early > 0 else math.inf
    holds = abs(o_move) < PLATEAU_POINTS and below and ratio >= LINEAR_RATIO
    values = (f"O {_fmt(_at(result, label, 'optimal_pct', plays[-2]))}% -> "
              f"{_fmt(_at(result, label, 'optimal_pct', plays[-1]))}% (UCB {_fmt(_at(result, UCB, 'optimal_pct', plays[-1]))}%); "
              f"regret per play {early:.3f} over {first[0]}-{first[1]}, {late:.3f} over {last[0]}-{last[1]}: "
              f"ratio {ratio:.2f}")
    return Claim("F4", label, "plateau of % optimal action below UCB's, and regret growing linearly", values, holds)


def catch_up_gap(result, label, plays) -> list[Claim]:
    """F5: O catches up with UCB's, while the regret gap stays significant."""
    gaps = [_at(result, UCB, "optimal_pct", t) - _at(result, label, "optimal_pct", t) for t in plays]
    catches = gaps[-1] < CATCH_UP_POINTS or gaps[-1] * CATCH_UP_FACTOR < gaps[0]
    o_values = "; ".join(f"t={t}: {_fmt(_at(result, label, 'optimal_pct', t))}% vs UCB "
                         f"{_fmt(_at(result, UCB, 'optimal_pct', t))}%" for t in plays)
    significant, parts = True, []
    for t in plays:
        diff = _at(result, label, "regret", t) - _at(result, UCB, "regret", t)
        se = math.hypot(_at(result, label, "regret_se", t), _at(result, UCB, "regret_se", t))
        significant &= diff > 2 * se
        parts.append(f"t={t}: {_fmt(_at(result, label, 'regret', t))} vs UCB {_fmt(_at(result, UCB, 'regret', t))} "
                     f"(gap {diff:+.1f}, 2 se {2 * se:.1f})")
    return [Claim("F5", label, "% optimal action catches up with (or overtakes) UCB's", o_values, catches),
            Claim("F5", label, "regret gap to UCB above 2 standard errors at every checkpoint", "; ".join(parts),
                  significant)]


def figure_claims(result) -> list[Claim]:
    """F1-F5 on the paper's seven curves of a ``banditree figures`` result."""
    plays = _checkpoints(result)
    claims = [worst_regret(result, (IUCB, IUCB_EP), [x for x in PAPER_SEVEN if x not in (IUCB, IUCB_EP)], plays),
              rises_to_ucb(result, IUCB, plays), rises_to_ucb(result, IUCB_EP, plays)]
    for episodic, twin in ((IUCB_EP, IUCB), (NO_R_EP, NO_R), (MI_EP, MI)):
        claims.append(slack(result, episodic, twin))
    claims += [plateau_linear(result, NO_R, plays), plateau_linear(result, NO_R_EP, plays)]
    claims += catch_up_gap(result, MI, plays) + catch_up_gap(result, MI_EP, plays)
    return claims


def reading_claims(result) -> list[Claim]:
    """The statements about Modified I-UCB checked for every reading of r (``--r-sweep`` results):
    F1 (below I-UCB's regret), F4 for r = none, F5 for the others, F3 for the episodic curves;
    then one summary row per reading (statement ``all``) that holds when all of its checks do."""
    from testbeds.figures import r_sweep_curves

    plays = _checkpoints(result)
    curves = r_sweep_curves()
    known = {reading: label for label, _, reading, episodic in curves if not episodic}
    episodic = {reading: label for label, _, reading, ep in curves if ep}
    claims, summary = [], []
    for reading in known:
        pair = (known[reading], episodic[reading])
        sub = [below_iucb(result, pair, plays)]
        for label in pair:
            if reading == "none":
                sub.append(plateau_linear(result, label, plays))
            else:
                sub += catch_up_gap(result, label, plays)
        sub.append(slack(result, episodic[reading], known[reading]))
        claims += [Claim(c.statement, f"r={reading}: {c.subject}", c.measure, c.values, c.holds) for c in sub]
        verdicts = "; ".join(f"{_short(c)}: {'yes' if c.holds else 'no'}" for c in sub)
        summary.append(Claim("all", f"r={reading}", "every statement above holds for this reading", verdicts,
                             all(c.holds for c in sub)))
    return claims + summary


def _short(claim: Claim) -> str:
    """F1, F3, F4 known, F5 catch-up episodic, ...: a check's name in a reading's summary row."""
    name = claim.statement
    if name == "F5":
        name += " catch-up" if "catches up" in claim.measure else " gap"
    if name.startswith(("F4", "F5")):
        name += " episodic" if "episodic" in claim.subject else " known"
    return name


# -- tables ------------------------------------------------------------------------------------------

def read_table_csv(path) -> list[dict]:
    """Rows of a ``banditree tables`` table.csv (numbers as floats, games/wins as ints)."""
    rows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            for key in ("c", "win_rate", "low", "high"):
                row[key] = float(row[key])
            for key in ("playouts", "games", "wins", "draws", "losses"):
                row[key] = int(row[key])
            rows.append(row)
    if not rows:
        raise ValueError(f"{path}: no cells")
    return rows


def _columns(rows) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for row in rows:
        out.setdefault(row["playouts"], []).append(row)
    return dict(sorted(out.items()))


def _mean(cells) -> float:
    return float(np.mean([c["win_rate"] for c in cells]))


def _column_values(cells) -> str:
    scores = ", ".join(f"C={c['c']:g}: {c['win_rate']:.3f} [{c['low']:.3f}, {c['high']:.3f}]"
                       for c in sorted(cells, key=lambda c: c["c"]))
    return (f"{scores}; mean {_mean(cells):.3f}; cells above 0.5: {sum(c['low'] > 0.5 for c in cells)}, level: "
            f"{sum(c['low'] <= 0.5 <= c['high'] for c in cells)}, below: {sum(c['high'] < 0.5 for c in cells)} "
            f"(of {len(cells)}); games per cell {min(c['games'] for c in cells)}")


def table_claims(rows, game: str, source: str = "") -> list[Claim]:
    """T1-T2 (``game="go"``) or T3-T4 (``"nogo"``) on the rows of each Mi-UCT variant's table;
    ``source`` (the tables folder's name, say) prefixes every subject."""
    if game not in ("go", "nogo"):
        raise ValueError(f"game must be 'go' or 'nogo', got {game!r}")
    def key(row):  # Mi-UCT's spec and UCT's spec without its constant (ucb1:final=max,c=0.5 -> ucb1:final=max)
        name, _, rest = row.get("uct", "").partition(":")
        items = [item for item in rest.split(",") if item.strip() and item.partition("=")[0].strip() != "c"]
        return row["mi"], name + (":" + ",".join(items) if items else "")

    groups = sorted({key(row) for row in rows})
    claims = []
    for mi_uct in groups:
        columns = _columns([row for row in rows if key(row) == mi_uct])
        mi = mi_uct[0] if len({m for m, _ in groups}) == len(groups) else f"{mi_uct[0]} vs {mi_uct[1]}"
        budgets = list(columns)
        means = [_mean(columns[p]) for p in budgets]
        trend = ", ".join(f"{p}: {m:.3f}" for p, m in zip(budgets, means))
        if game == "go":
            for p in budgets:
                cells = columns[p]
                level = all(c["low"] <= 0.5 <= c["high"] for c in cells) or abs(_mean(cells) - 0.5) <= LEVEL_MARGIN
                claims.append(Claim("T1", f"{mi}, {p} playouts", "Mi-UCT's score over C: roughly level with UCT",
                                    _column_values(cells), level))
            better = means[0] > 0.5 and all(means[0] > m for m in means[1:])
            claims.append(Claim("T2", mi, "mean score over C per budget: best at the smallest budget, above 0.5",
                                trend, better))
        else:
            cells = columns[budgets[0]]
            claims.append(Claim("T3", f"{mi}, {budgets[0]} playouts", "every cell's interval above 0.5",
                                _column_values(cells), all(c["low"] > 0.5 for c in cells)))
            if len(means) > 1:
                falling = all(b < a for a, b in zip(means, means[1:]))
                claims.append(Claim("T4", mi, "mean score over C falls from each budget to the next", trend, falling))
    if source:
        claims = [Claim(c.statement, f"{source}: {c.subject}", c.measure, c.values, c.holds) for c in claims]
    return claims


# -- output --------------------------------------------------------------------------------------------

COLUMNS = ("statement", "subject", "measure", "values", "holds")


def write_claims_csv(claims, path) -> Path:
    path = Path(path)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        for claim in claims:
            writer.writerow(claim.row())
    return path


def claims_markdown(claims, title: str = "") -> str:
    """A Markdown table of the claims (the same cells as :func:`write_claims_csv`)."""
    lines = [f"### {title}", ""] if title else []
    lines += ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for claim in claims:
        lines.append("| " + " | ".join(str(v).replace("|", "/") for v in claim.row().values()) + " |")
    return "\n".join(lines) + "\n"


# -- cost ------------------------------------------------------------------------------------------------

COST_COLUMNS = ("database", "mi", "uct", "c", "playouts", "games", "seconds_per_game", "seconds")
PAPER_GAMES = 1000  # the paper's games per cell


def write_cost_csv(rows, path) -> Path:
    """One row per tables cell (:func:`testbeds.tables.cell_costs` plus its database's name)."""
    path = Path(path)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COST_COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{row[k]:.6g}" if isinstance(row[k], float) else row[k]) for k in COST_COLUMNS})
    return path


def read_cost_csv(path) -> list[dict]:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["c"], row["seconds_per_game"], row["seconds"] = (float(row[k]) for k in ("c", "seconds_per_game", "seconds"))
        row["playouts"], row["games"] = int(row["playouts"]), int(row["games"])
    return rows


def cost_markdown(rows) -> str:
    """Per database and playout budget: cells, games, mean core-seconds per game (over its cells),
    core-hours spent; per database the total and what the paper's 1000 games per cell would cost
    (the sum over cells of 1000 x that cell's seconds per game)."""
    lines = ["| database | playouts | cells | games | core-s per game | core-hours | core-hours at 1000 games per cell |",
             "|---|---|---|---|---|---|---|"]
    for db in sorted({r["database"] for r in rows}):
        mine = [r for r in rows if r["database"] == db]
        for p in sorted({r["playouts"] for r in mine}):
            cells = [r for r in mine if r["playouts"] == p]
            per_game = float(np.mean([r["seconds_per_game"] for r in cells]))
            lines.append(f"| {db} | {p} | {len(cells)} | {sum(r['games'] for r in cells)} | {per_game:.2f} | "
                         f"{sum(r['seconds'] for r in cells) / 3600:.2f} | "
                         f"{sum(r['seconds_per_game'] for r in cells) * PAPER_GAMES / 3600:.1f} |")
        lines.append(f"| {db} | all | {len(mine)} | {sum(r['games'] for r in mine)} | | "
                     f"{sum(r['seconds'] for r in mine) / 3600:.2f} | "
                     f"{sum(r['seconds_per_game'] for r in mine) * PAPER_GAMES / 3600:.1f} |")
    return "\n".join(lines) + "\n"
