"""Glicko-2 ratings for puzzle solvers (Mark Glickman's system).

A solver's rating is a :class:`Rating`: the rating itself (1500 to start),
its deviation RD (how unsure it is: 350 to start) and its volatility (how
erratic the solver's results are: 0.06 to start). Each puzzle tried is one
game against the puzzle, won if solved, lost if not, and one rating period:
:func:`update` applies Glickman's steps to it. A puzzle's own rating is
fixed (its starting rating from its difficulty) with the deviation
:data:`PUZZLE_RD`. A solver's deviation never drops below :data:`MIN_RD`, so
that a long-standing rating still moves when the solver improves.

Reference: M. E. Glickman, "Example of the Glicko-2 system" (2013): the
steps below follow its numbering; its worked example is a test.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = ["MIN_RD", "PUZZLE_RD", "TAU", "Rating", "after_puzzle", "expected", "update"]

SCALE: Final = 173.7178  # Glicko-2's internal unit, in rating points
TAU: Final = 0.5  # the system constant: how fast the volatility may change
MIN_RD: Final = 45.0
MAX_RD: Final = 350.0
PUZZLE_RD: Final = 80.0
_EPSILON: Final = 1e-6


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating: ``rating``, its deviation ``rd``, ``volatility``."""

    rating: float = 1500.0
    rd: float = MAX_RD
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected(player: Rating, opponent: Rating) -> float:
    """The chance, by the ratings, that ``player`` beats ``opponent``
    (solves a puzzle of that rating)."""
    return _e(
        (player.rating - 1500.0) / SCALE, (opponent.rating - 1500.0) / SCALE, opponent.rd / SCALE
    )


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility (the Illinois algorithm on f(x) = 0)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > _EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(
    player: Rating,
    games: Iterable[tuple[Rating, float]],
    *,
    tau: float = TAU,
    min_rd: float = 0.0,
) -> Rating:
    """The player's rating after one rating period of ``games``:
    ``(opponent, score)`` pairs, score 1 for a win (a puzzle solved), 0 for
    a loss, 0.5 for a draw. No games: only the deviation grows. The new
    deviation is kept within ``min_rd`` .. 350."""
    mu = (player.rating - 1500.0) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    games = list(games)
    if not games:  # step 6 alone: the deviation grows
        phi_new = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, _clamp(phi_new * SCALE, min_rd), sigma)
    total_v = 0.0
    total_delta = 0.0
    for opponent, score in games:
        mu_j = (opponent.rating - 1500.0) / SCALE
        phi_j = opponent.rd / SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        total_v += g * g * e * (1.0 - e)
        total_delta += g * (score - e)
    v = 1.0 / total_v  # step 3
    delta = v * total_delta  # step 4
    sigma_new = _volatility(phi, sigma, delta, v, tau)  # step 5
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)  # step 6
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)  # step 7
    mu_new = mu + phi_new * phi_new * total_delta
    return Rating(  # step 8
        1500.0 + SCALE * mu_new, _clamp(SCALE * phi_new, min_rd), sigma_new
    )


def _clamp(rd: float, min_rd: float) -> float:
    return max(min_rd, min(MAX_RD, rd))


def after_puzzle(player: Rating, puzzle_rating: float, solved: bool) -> Rating:
    """A solver's rating after trying one puzzle of ``puzzle_rating``."""
    opponent = Rating(puzzle_rating, PUZZLE_RD)
    return update(player, [(opponent, 1.0 if solved else 0.0)], min_rd=MIN_RD)
