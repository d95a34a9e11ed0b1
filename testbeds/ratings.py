"""Match statistics: score rate, its Wilson 95% interval, and the Elo difference with its interval.

A match of n games between A and B ends with w wins, d draws and l losses for A (w + d + l = n).

    score rate      p = (w + d / 2) / n                       (a draw counts half, as in chess;
                    :func:`treepolicies.match.score_rate`)
    Wilson interval the score interval of Wilson (1927) for p, computed by
                    :func:`treepolicies.wilson_interval` (one implementation in the package)
    Elo difference  elo(p) = -400 log10(1 / p - 1)            (logistic Elo model: p = 1 / (1 + 10^(-D/400)))
    Elo interval    (elo(low), elo(high)): elo is increasing in p, so the Wilson bounds map to bounds
                    on D; elo(0) = -inf and elo(1) = +inf.  The Wilson interval always holds p
                    (its upper end is exactly 1 at a full score and its lower end 0 at a null
                    one: treepolicies.match), so every printed estimate lies in its printed
                    interval: 60 wins in 60 games is ``Elo +inf [+477, +inf]``.

9x9 NoGo has no draws and Go with komi 7.5 none either, so there p is the plain win rate.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from treepolicies import wilson_interval
from treepolicies.match import score_rate

__all__ = ["Rating", "elo", "elo_interval", "rate", "score_rate", "format_rating", "format_elo"]


def elo(p: float) -> float:
    """Elo difference for a score rate p in [0, 1]: ``-400 log10(1/p - 1)``; -inf at 0, +inf at 1."""
    if not 0.0 <= p <= 1.0 or math.isnan(p):
        raise ValueError(f"p must be in [0, 1], got {p}")
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_interval(low: float, high: float) -> tuple[float, float]:
    """Elo interval from an interval on the score rate (elo is increasing, so bounds map to bounds)."""
    if low > high:
        raise ValueError(f"low must be <= high, got {low} > {high}")
    return elo(low), elo(high)


@dataclass(frozen=True)
class Rating:
    """A's result over a match: counts, score rate with Wilson interval, Elo difference with interval."""

    wins: int
    draws: int
    losses: int
    rate: float
    low: float
    high: float
    elo: float
    elo_low: float
    elo_high: float

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def as_dict(self) -> dict:
        d = asdict(self)
        d["games"] = self.games
        return d


def rate(wins: int, draws: int, losses: int, z: float = 1.96) -> Rating:
    """Summarise A's wins/draws/losses; with no games every figure is NaN."""
    for name, v in (("wins", wins), ("draws", draws), ("losses", losses)):
        if v < 0:
            raise ValueError(f"{name} must be >= 0, got {v}")
    n = wins + draws + losses
    if n == 0:
        nan = math.nan
        return Rating(0, 0, 0, nan, nan, nan, nan, nan, nan)
    p = score_rate(wins, draws, n)
    low, high = wilson_interval(wins + 0.5 * draws, n, z=z)
    e_low, e_high = elo_interval(low, high)
    return Rating(wins, draws, losses, p, low, high, elo(p), e_low, e_high)


def _fmt_elo(x: float) -> str:
    """Whole Elo points with a sign; +0 for an even score (not "-0": elo(0.5) is -0.0)."""
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{int(round(x)):+d}"


def format_elo(r: Rating) -> str:
    """``Elo +85 [+62, +108] (95%)``: the Elo difference and its interval, rounded to whole points."""
    return f"Elo {_fmt_elo(r.elo)} [{_fmt_elo(r.elo_low)}, {_fmt_elo(r.elo_high)}] (95%)"


def format_rating(r: Rating, name: str = "A") -> str:
    """One line: ``A scores 0.620 [0.589, 0.650] over 1000 games (W 620 D 0 L 380); Elo +85 [+62, +108] (95%)``."""
    if r.games == 0:
        return f"{name}: no games played"
    return (f"{name} scores {r.rate:.3f} [{r.low:.3f}, {r.high:.3f}] over {r.games} games "
            f"(W {r.wins} D {r.draws} L {r.losses}); {format_elo(r)}")
