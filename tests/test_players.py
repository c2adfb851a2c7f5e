"""Players and the game runner: specs, the seed's greedy AI, forfeits."""

from __future__ import annotations

import random

import pytest

from outflank.board import BLACK, WHITE, Board, Move
from outflank.errors import OutflankError
from outflank.ggf import parse_ggf
from outflank.match import play_game
from outflank.players import (
    BasePlayer,
    GreedyPlayer,
    HumanPlayer,
    Player,
    RandomPlayer,
    make_player,
)


def test_specs_build_players() -> None:
    assert isinstance(make_player("human"), HumanPlayer)
    assert isinstance(make_player("random:5"), RandomPlayer)
    assert make_player("random:5").name == "random:5"
    assert isinstance(make_player(" Greedy "), GreedyPlayer)
    assert isinstance(make_player("greedy"), Player)


@pytest.mark.parametrize(
    "spec",
    ["", "nobody", "random:x", "level:abc", "classic:dfs:3", "nboard:", "engine:depth", "human:2"],
)
def test_bad_specs_are_clean_errors(spec: str) -> None:
    with pytest.raises(OutflankError):
        make_player(spec)


def test_missing_engine_program_is_a_clean_error() -> None:
    with pytest.raises(OutflankError, match="cannot start engine"):
        make_player("nboard:/nonexistent/engine-binary --nboard")


def test_random_is_reproducible() -> None:
    a = play_game(RandomPlayer(3), RandomPlayer(4))
    b = play_game(RandomPlayer(3), RandomPlayer(4))
    assert a.board.move_stack == b.board.move_stack
    assert a.board.is_game_over()


def test_greedy_plays_the_same_moves_as_the_engine_preset_and_classic() -> None:
    """One seed 000 greedy player everywhere: the terminal's, the desktop
    window's and web's (the engine preset) and the teaching one agree."""
    from outflank.classic import greedy
    from outflank.engine import Engine

    engine = Engine.preset("greedy")
    rng = random.Random(11)
    checked = 0
    while checked < 60:
        board = Board()
        while not board.is_game_over() and checked < 60:
            if board.legal_moves[0].is_pass:
                board.push(board.legal_moves[0])
                continue
            move = GreedyPlayer().choose_move(board)
            assert move == engine.choose_move(board)
            assert move == greedy(board).best_move
            checked += 1
            board.push(rng.choice(board.legal_moves))


def test_greedy_takes_a_corner() -> None:
    board = Board.from_ascii(
        "........\n.O......\n..O.....\n...XO...\n...OX...\n........\n........\n........",
    )
    assert Move.from_str("a1") in board.legal_moves
    assert str(GreedyPlayer().choose_move(board)) == "a1"


def test_greedy_beats_random_mostly() -> None:
    wins = 0
    for seed in range(6):
        black = play_game(GreedyPlayer(), RandomPlayer(seed))
        white = play_game(RandomPlayer(seed), GreedyPlayer())
        wins += (black.margin > 0) + (white.margin < 0)
    assert wins >= 8


class _Crasher(BasePlayer):
    def choose_move(self, board: Board) -> Move:
        raise RuntimeError("boom")


class _Cheater(BasePlayer):
    def choose_move(self, board: Board) -> Move:
        return Move.from_str("a1")


@pytest.mark.parametrize("bad", [_Crasher("crasher"), _Cheater("cheater")])
def test_failing_player_forfeits_and_is_recorded(bad: BasePlayer) -> None:
    result = play_game(RandomPlayer(1), bad)
    assert result.forfeit is WHITE
    assert result.margin == 64 and result.winner is BLACK
    assert bad.name in result.forfeit_reason
    rec = parse_ggf(result.record.to_ggf())
    assert rec.result == "+64.000:r"
    assert "forfeits" in rec.tags["C"]


def test_human_player_reads_until_legal() -> None:
    answers = iter(["zz", "a1", "f5"])
    told: list[str] = []
    human = HumanPlayer(ask=lambda prompt: next(answers), tell=told.append)
    assert str(human.choose_move(Board())) == "f5"
    assert len(told) == 2 and "legal" in told[1]


def test_record_holds_evals_and_times() -> None:
    result = play_game(GreedyPlayer(), RandomPlayer(2))
    rec = result.record
    assert rec.black == "greedy" and rec.white == "random:2"
    assert rec.board() == result.board
    assert rec.moves[0].eval is not None and rec.moves[0].time is not None
    assert rec.score == result.margin


def test_classic_alphabeta_player_plays_legal_games() -> None:
    player = make_player("classic:alphabeta:2")
    assert player.name == "classic:alphabeta:2"
    result = play_game(player, RandomPlayer(5))
    assert result.forfeit is None and result.board.is_game_over()
    assert make_player("classic:minimax:1").choose_move(Board()) in Board().legal_moves


@pytest.mark.parametrize(
    "spec",
    [
        "level:1",
        "level:6",
        "minimax4",
        "weights",
        "engine:evaluator=regions,corner=40,edge=10,x_square=-30,depth=2",
        "engine:depth=2,evaluator=heuristic",
    ],
)
def test_engine_players_finish_games(spec: str) -> None:
    player = make_player(spec)
    result = play_game(player, GreedyPlayer())
    assert result.forfeit is None, result.forfeit_reason
    assert result.board.is_game_over()
    player.close()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("level:0", "1..20"),
        ("engine:depth=0", "depth"),
        ("engine:evaluator=bogus", "unknown evaluator"),
        ("engine:time=-1", "time"),
        ("engine:depth=x", "depth must be an int, not 'x'"),
        ("level:x", "the level must be a whole number, not 'x'"),
        ("random:abc", "the random seed must be a whole number, not 'abc'"),
        ("classic:alphabeta:x", "the classic depth must be a whole number, not 'x'"),
    ],
)
def test_bad_engine_specs(spec: str, message: str) -> None:
    with pytest.raises(OutflankError, match=message):
        make_player(spec)


def test_deeper_engine_beats_greedy() -> None:
    wins = 0
    for opening in ("f5d6c3d3c4", "f5f6e6f4g5"):
        start = Board.from_transcript(opening)
        wins += play_game(make_player("level:10"), GreedyPlayer(), start=start).margin > 0
        wins += play_game(GreedyPlayer(), make_player("level:10"), start=start).margin < 0
    assert wins >= 3


def test_adjusting_a_level_changes_its_engine_limits_and_keeps_the_rest() -> None:
    """The search gets what `set` shows: a level's own limits change in its
    engine, so its depth stays beside a new time, and its exact endgame and
    random moves stay too."""
    player = make_player("level:3")
    engine = player.engine
    endgame, chance = engine.endgame, engine.random
    player.adjust(time=0.3)
    assert (engine.depth, engine.time) == (1, 0.3)
    assert player.describe_settings().endswith("depth=1, time=0.3")
    assert (engine.endgame, engine.random) == (endgame, chance)
    player.adjust(random=0.5)
    assert engine.random == 0.5
    explicit = make_player("engine:evaluator=regions,depth=3")
    explicit.adjust(lookahead=5)
    assert explicit.engine.depth == 5 and explicit.describe_settings().endswith("depth=5")


def test_an_engine_specs_exact_endgame_applies_below_its_depth() -> None:
    """`engine:depth=2,endgame=14` plays as Engine(depth=2, endgame=14): a
    2-ply search in the midgame, perfect play from 14 empties (the depth
    once went to each search call, which honours it and solved nothing)."""
    from outflank.engine import Engine

    rng = random.Random(46)
    late = Board()
    while late.empties > 12 or late.must_pass():
        late.push(rng.choice(late.legal_moves))
    solved = Engine().solve(late)
    best = {m.move for m in Engine().analyze(late) if m.score == solved.score}
    for spec in ("engine:depth=2,endgame=14", "engine:preset=default,depth=2,endgame=14"):
        player = make_player(spec)
        assert player.choose_move(late) in best
        assert player.last_eval == solved.score
    shallow = make_player("engine:depth=2")  # no endgame set: a 2-ply search
    shallow.choose_move(late)
    assert shallow.engine.endgame == 20 and shallow.engine.depth == 2


def test_the_regions_look_ahead_keeps_seed_004s_range_under_any_name() -> None:
    """`set depth=12` went around the 2-10 plies that `lookahead` keeps."""
    player = make_player("regions")
    for bad in ({"depth": 1}, {"depth": 12}, {"lookahead": 10, "depth": 3}):
        with pytest.raises(OutflankError):
            player.adjust(**bad)
    player.adjust(depth=7)
    assert player.describe_settings().endswith("depth=7")
    other = make_player("weights")
    other.adjust(depth=12)  # outside seed 004, a depth is any depth
    assert other.describe_settings().endswith("depth=12")
