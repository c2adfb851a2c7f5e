"""Game review: every move of a game judged against the best one.

::

    from outflank.review import review_game

    review = review_game("f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1")
    for m in review.moves:
        print(m.ply + 1, m.move, m.value, m.best_move, m.loss, m.label.value)
    print(review.summary(BLACK).accuracy, [m.ply for m in review.turning_points])

For each move played (passes are not judged) the review gives the value of
the move played and of the best move, both in discs from the mover's view
(the final disc difference they lead to with best play), the loss (best
minus played, never below 0), a :class:`Label` and, where the move lost
something, the better move with its principal variation.

Where the values come from, in the order the reviewer works:

1. **Book**: a position of the opening book is answered from it (every
   legal move's value, searched offline to depth 16 and backed up by
   negamax); a move that stays in the book is a *book move* (label
   ``book`` unless it loses an inaccuracy or more).
2. **Exact**: from the end of the game backwards, every position with at
   most ``exact`` empties (20 by default) is solved exactly, and the
   positions before them too while the solver answers within the
   ``exact_time`` budget (``ReviewSettings``). Such values are the exact
   final disc difference (``exact``/``best_exact`` true); the played
   move's value is the solved value of the position it leads to.
3. **Search**: every other position is searched to ``depth`` plies (with
   probable cut-offs); a move other than the one the search found best is
   scored by a search of the position it leads to, one ply shallower, so
   both values see equally far.

Labels, by the discs a move loses (:data:`THRESHOLDS`): best (less than
1), good (1 to 3), inaccuracy (3 to 6), mistake (6 to 12), blunder (12
or more). A move whose exact values show it changed the result (a win
thrown to a draw or a loss, a draw to a loss) is a mistake at least. A
move's accuracy is ``100 * 2 ** (-loss / 6)`` (every 6 discs lost halve
it); a player's accuracy is the mean over their moves that had a choice
(forced moves are left out), beside their mean loss. A turning point is a
move that changed the result the values foresee (a win no longer a win,
a draw now a loss; values within a disc of 0 count as even) and lost at
least 3 discs. See docs/review.md.
"""

from outflank.review.judging import (
    ACCURACY_HALF_LOSS,
    THRESHOLDS,
    TURNING_LOSS,
    Label,
    ReviewError,
    Source,
    Thresholds,
    move_accuracy,
)
from outflank.review.result import FORMAT, GameReview, MoveReview, PlayerSummary, ReviewSettings
from outflank.review.reviewer import OnMove, Reviewer, game_board, review_game

__all__ = [
    "ACCURACY_HALF_LOSS",
    "FORMAT",
    "THRESHOLDS",
    "TURNING_LOSS",
    "GameReview",
    "Label",
    "MoveReview",
    "OnMove",
    "PlayerSummary",
    "ReviewError",
    "ReviewSettings",
    "Reviewer",
    "Source",
    "Thresholds",
    "game_board",
    "move_accuracy",
    "review_game",
]
