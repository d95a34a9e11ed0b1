"""Score rate, Wilson 95% interval and Elo difference against hand-computed values."""
import math
import re

import pytest

from testbeds.ratings import elo, elo_interval, format_rating, rate, score_rate


def test_score_rate_counts_draws_half():
    # 6 wins, 2 draws, 2 losses: (6 + 2/2) / 10 = 0.7
    assert score_rate(6, 2, 10) == pytest.approx(0.7)
    assert score_rate(0, 0, 5) == 0.0
    with pytest.raises(ValueError, match="n must be >= 1"):
        score_rate(0, 0, 0)
    with pytest.raises(ValueError, match="wins \\+ draws <= n"):
        score_rate(4, 2, 5)


def test_wilson_interval_7_of_10():
    # Wilson (1927), z = 1.96, z^2 = 3.8416, n = 10, p = 0.7:
    #   denominator  1 + z^2/n              = 1.38416
    #   centre       (p + z^2/(2n)) / den   = (0.7 + 0.19208) / 1.38416        = 0.644492...
    #   half width   z sqrt(p(1-p)/n + z^2/(4n^2)) / den
    #              = 1.96 sqrt(0.021 + 0.009604) / 1.38416 = 1.96 * 0.174940 / 1.38416 = 0.247719...
    #   interval     (0.396773, 0.892211)
    r = rate(7, 0, 3)
    assert r.rate == pytest.approx(0.7)
    assert r.low == pytest.approx(0.396773, abs=2e-6)
    assert r.high == pytest.approx(0.892211, abs=2e-6)


def test_wilson_interval_with_draws_and_extremes():
    # 4 wins, 2 draws, 4 losses: score 5 of 10, p = 0.5; centre = (0.5 + 0.19208)/1.38416 = 0.5 exactly,
    # half = 1.96 sqrt(0.025 + 0.009604)/1.38416 = 1.96 * 0.186022 / 1.38416 = 0.263411 -> (0.236590, 0.763410)
    r = rate(4, 2, 4)
    assert r.rate == 0.5 and r.elo == 0.0
    assert r.low == pytest.approx(0.236590, abs=2e-6)
    assert r.high == pytest.approx(0.763410, abs=2e-6)
    # 10 of 10: p = 1, centre = 1.19208/1.38416 = 0.861231, half = 1.96 sqrt(0.009604)/1.38416
    # = 1.96 * 0.098 / 1.38416 = 0.138770 -> (0.722460, 1.0)
    r = rate(10, 0, 0)
    assert r.low == pytest.approx(0.722460, abs=2e-6)
    assert r.high == pytest.approx(1.0)
    assert r.elo == math.inf and r.elo_high == math.inf


def test_elo_hand_values():
    # elo(p) = -400 log10(1/p - 1)
    assert elo(0.5) == 0.0
    # p = 0.75: 1/p - 1 = 1/3, -400 log10(1/3) = 400 * 0.47712125 = 190.848502
    assert elo(0.75) == pytest.approx(190.848502, abs=1e-5)
    # p = 0.25 is the mirror image
    assert elo(0.25) == pytest.approx(-190.848502, abs=1e-5)
    # p = 10/11: 1/p - 1 = 0.1, -400 log10(0.1) = 400
    assert elo(10 / 11) == pytest.approx(400.0)
    assert elo(0.0) == -math.inf and elo(1.0) == math.inf
    with pytest.raises(ValueError, match="p must be in"):
        elo(1.5)


def test_elo_interval_maps_the_wilson_bounds():
    # 7 of 10: Wilson (0.396773, 0.892211) -> elo: -400 log10(1/0.396773 - 1) = -400 log10(1.520335)
    #   = -400 * 0.181940 = -72.775; -400 log10(1/0.892211 - 1) = -400 log10(0.120811) = 367.157
    r = rate(7, 0, 3)
    assert r.elo_low == pytest.approx(-72.775, abs=0.01)
    assert r.elo_high == pytest.approx(367.157, abs=0.01)
    assert r.elo == pytest.approx(-400 * math.log10(3 / 7))  # 147.19...
    assert elo_interval(0.25, 0.75) == pytest.approx((-190.848502, 190.848502))
    with pytest.raises(ValueError, match="low must be <= high"):
        elo_interval(0.6, 0.4)


def test_empty_and_bad_counts():
    r = rate(0, 0, 0)
    assert r.games == 0 and math.isnan(r.rate)
    assert format_rating(r) == "A: no games played"
    with pytest.raises(ValueError, match="losses must be >= 0"):
        rate(1, 0, -1)


def test_format_rating_line():
    line = format_rating(rate(7, 0, 3), "Mi-UCT")
    assert line == ("Mi-UCT scores 0.700 [0.397, 0.892] over 10 games (W 7 D 0 L 3); "
                    "Elo +147 [-73, +367] (95%)")


# -- every printed estimate lies in its printed interval (issue 24, item 18) ------------------------
def test_a_full_and_a_null_score_print_their_estimate_inside_their_interval():
    # 60 of 60: Wilson at p = 1 is [1 / (1 + z^2/n), 1] = [1 / (1 + 3.8416/60), 1] = [0.939826, 1]
    # (the half width z sqrt(z^2 / (4 n^2)) / den equals the centre's excess z^2/(2n) / den);
    # elo(0.939826) = -400 log10(1/0.939826 - 1) = -400 log10(0.0640272) = +477.5; elo(1) = +inf.
    # It printed "+inf [+477, +6261]": the upper end was 1 - 1.1e-16 in floating point.
    assert format_rating(rate(60, 0, 0)) == ("A scores 1.000 [0.940, 1.000] over 60 games (W 60 D 0 L 0); "
                                             "Elo +inf [+477, +inf] (95%)")
    # 0 of 11: [0, 11 / (11 + 3.8416)] = [0, 0.258840]: elo(0.258840) = -400 log10(2.86339) = -182.7;
    # the lower end was 2.8e-17, so the interval read [-6640, -183] around -inf
    assert format_rating(rate(0, 0, 11)) == ("A scores 0.000 [0.000, 0.259] over 11 games (W 0 D 0 L 11); "
                                             "Elo -inf [-inf, -183] (95%)")
    assert format_rating(rate(30, 0, 30)).endswith("Elo +0 [-87, +87] (95%)")  # not "-0"


def _numbers(text):
    return [math.inf if t == "+inf" else -math.inf if t == "-inf" else float(t)
            for t in re.findall(r"[+-]inf|[+-]?\d+(?:\.\d+)?", text)]


def test_every_printer_prints_its_estimate_inside_its_interval():
    # every score of up to 120 games (draws: halves): the Rating holds low <= rate <= high and
    # elo_low <= elo <= elo_high, and the printers (format_rating, format_elo, the tournament's
    # progress line, the tables' Markdown cell) show the estimate inside the printed interval
    from testbeds.ratings import format_elo
    from testbeds.tables import _md_cell
    from testbeds.tournament import _postfix

    for n in range(1, 121):
        for wins in range(n + 1):
            for draws in sorted({0, n - wins}):
                r = rate(wins, draws, n - wins - draws)
                assert r.low <= r.rate <= r.high and r.elo_low <= r.elo <= r.elo_high, (wins, draws, n)
                assert (r.low == 0.0) == (r.rate == 0.0) and (r.high == 1.0) == (r.rate == 1.0)
                for shown in (format_elo(r), _postfix((wins, draws, n - wins - draws)), _md_cell(r),
                              format_rating(r).split(" over ")[0], format_rating(r).split("; ")[1]):
                    est, low, high = _numbers(shown.removesuffix(" (95%)"))[-3:]
                    assert low <= est <= high, (wins, draws, n, shown)
