"""Pure-Python exhaustive minimax on the rules oracle, to check the engine.

No pruning and no bitboards: every line is played to the end of the game (for
exact scores) or to a depth (for depth-limited values with a given leaf
evaluation), exactly as the definitions say.
"""

from __future__ import annotations

from collections.abc import Callable

import oracle

WIN = 1_000_000  # the core's SCORE_WIN


def final_margin(cells: list[int], me: int) -> int:
    """Disc difference for `me` at the end, empty squares to the winner."""
    mine = cells.count(me)
    theirs = cells.count(3 - me)
    empties = 64 - mine - theirs
    diff = mine - theirs
    return diff + empties if diff > 0 else diff - empties if diff < 0 else 0


def exact(cells: list[int], me: int) -> int:
    """The exact final disc difference for the side to move, perfect play."""
    moves = oracle.legal_squares(cells, me)
    if not moves:
        if not oracle.legal_squares(cells, 3 - me):
            return final_margin(cells, me)
        return -exact(cells, 3 - me)
    return max(-exact(oracle.play(cells, me, sq), 3 - me) for sq in moves)


def move_values(cells: list[int], me: int) -> dict[int, int]:
    """Every legal square's exact value for the side to move."""
    return {
        sq: -exact(oracle.play(cells, me, sq), 3 - me) for sq in oracle.legal_squares(cells, me)
    }


def negamax(
    cells: list[int],
    me: int,
    depth: int,
    leaf: Callable[[list[int], int], int],
    reversi: bool = False,
) -> int:
    """Depth-limited negamax; a pass does not use up depth (as in the core).
    With ``reversi`` the game ends as soon as the side to move cannot move.
    At depth 0 the game ends the core sees at no cost are scored as ends (a
    full board, a side without discs, a Reversi mover without a move); any
    other position is a leaf, even one where neither side can move."""
    if depth == 0:
        over = 0 not in cells or me not in cells or (3 - me) not in cells
        if not (over or (reversi and not oracle.legal_squares(cells, me))):
            return leaf(cells, me)
        d = final_margin(cells, me)
        return WIN + d if d > 0 else -WIN + d if d < 0 else 0
    moves = oracle.legal_squares(cells, me)
    if not moves:
        if reversi or not oracle.legal_squares(cells, 3 - me):
            d = final_margin(cells, me)
            return WIN + d if d > 0 else -WIN + d if d < 0 else 0
        return -negamax(cells, 3 - me, depth, leaf)
    return max(
        -negamax(oracle.play(cells, me, sq), 3 - me, depth - 1, leaf, reversi) for sq in moves
    )


def alphabeta_bits(player: int, opponent: int, alpha: int = -65, beta: int = 65) -> int:
    """Exact value by plain alpha-beta in Python over the core's move generator
    (no table, no ordering): fast enough for 10-12 empties."""
    from outflank import _core

    moves = _core.moves(player, opponent)
    if not moves:
        if not _core.moves(opponent, player):
            p, o = player.bit_count(), opponent.bit_count()
            e, d = 64 - p - o, p - o
            return d + e if d > 0 else d - e if d < 0 else 0
        return -alphabeta_bits(opponent, player, -beta, -alpha)
    best = -65
    while moves:
        bit = moves & -moves
        moves ^= bit
        f = _core.flips(player, opponent, bit.bit_length() - 1)
        v = -alphabeta_bits(opponent & ~f, player | f | bit, -beta, -max(alpha, best))
        if v > best:
            best = v
            if best >= beta:
                break
    return best
