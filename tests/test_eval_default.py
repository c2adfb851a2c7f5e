"""The 'default' evaluator: sign-correct, symmetric, deterministic."""

from __future__ import annotations

import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_child
from outflank import _core
from outflank.board import Board, parse_square


def _map_bits(bits: int, f) -> int:
    out = 0
    while bits:
        low = bits & -bits
        sq = low.bit_length() - 1
        r, c = divmod(sq, 8)
        r2, c2 = f(r, c)
        out |= 1 << (r2 * 8 + c2)
        bits ^= low
    return out


SYMMETRIES = [
    lambda r, c: (r, c),
    lambda r, c: (r, 7 - c),
    lambda r, c: (7 - r, c),
    lambda r, c: (7 - r, 7 - c),
    lambda r, c: (c, r),
    lambda r, c: (7 - c, r),
    lambda r, c: (c, 7 - r),
    lambda r, c: (7 - c, 7 - r),
]


def _random_position(seed: int, plies: int) -> tuple[int, int]:
    rng = random.Random(seed)
    board = Board()
    for _ in range(plies):
        if board.is_game_over():
            break
        board.play(rng.choice(board.legal_moves))
    return board.player, board.opponent


def _bits(*names: str) -> int:
    return sum(1 << parse_square(name) for name in set(names))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 60))
def test_symmetric_under_the_eight_board_symmetries(seed: int, plies: int) -> None:
    p, o = _random_position(seed, plies)
    score = _core.eval_default(p, o)
    for f in SYMMETRIES:
        assert _core.eval_default(_map_bits(p, f), _map_bits(o, f)) == score


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 60))
def test_deterministic(seed: int, plies: int) -> None:
    p, o = _random_position(seed, plies)
    assert len({_core.eval_default(p, o) for _ in range(3)}) == 1


def test_start_position_is_roughly_balanced() -> None:
    board = Board()
    start = _core.eval_default(board.player, board.opponent)
    assert abs(start) <= 400  # within 4 discs
    # The four first moves are images of each other: the same score.
    scores = set()
    for move in board.legal_moves:
        board.push(move)
        scores.add(_core.eval_default(board.player, board.opponent))
        board.pop()
    assert len(scores) == 1


def test_owning_corners_is_good_for_the_mover() -> None:
    # Same middle; the mover also owns two corners (a1, h8) in one case.
    mid_p = _bits("d4", "e5", "c3", "f6")
    mid_o = _bits("d5", "e4", "c6", "f3")
    corners = _bits("a1", "h8")
    base = _core.eval_default(mid_p, mid_o)
    assert _core.eval_default(mid_p | corners, mid_o) > base
    assert _core.eval_default(mid_p | corners, mid_o) > 0
    assert _core.eval_default(mid_p, mid_o | corners) < 0


def test_mobility_advantage_is_positive() -> None:
    # The mover has discs around a wall of opponent discs: many moves; the
    # opponent's discs are boxed in: few moves.
    p = _bits("d4")
    o = _bits("c3", "d3", "e3", "c4", "e4", "c5", "d5", "e5")
    assert bb_count(_core.moves(p, o)) > bb_count(_core.moves(o, p))
    assert _core.eval_default(p | _bits("a1"), o) > 0


def test_x_square_next_to_empty_corner_is_bad() -> None:
    mid_p = _bits("d4", "e5")
    mid_o = _bits("d5", "e4")
    assert _core.eval_default(mid_p | _bits("b2"), mid_o) < _core.eval_default(
        mid_p | _bits("c3"), mid_o
    )


def test_stable_discs() -> None:
    p = _bits("a1", "b1", "c1", "a2", "d4")
    o = _bits("e4", "e5")
    assert _core.stable_discs(p, o) == _bits("a1", "b1", "c1", "a2")
    assert _core.stable_discs(p, o) & _bits("d4") == 0
    full = (1 << 64) - 1
    assert _core.stable_discs(full, 0) == full


def bb_count(bits: int) -> int:
    return bin(bits).count("1")


def _features(p: int, o: int) -> tuple[list[int], list[int]]:
    layout = _core.eval_layout()
    raw = _core.eval_features(p.to_bytes(8, sys.byteorder), o.to_bytes(8, sys.byteorder))
    values = list(memoryview(raw).cast("i"))
    return sorted(values[: layout["patterns"]]), values[layout["patterns"] :]


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 60))
def test_features_are_invariant_under_symmetries(seed: int, plies: int) -> None:
    # The fitted weights are symmetric only if the pattern look-ups are.
    p, o = _random_position(seed, plies)
    feats = _features(p, o)
    assert all(0 <= i < _core.eval_layout()["pattern_weights"] for i in feats[0])
    for f in SYMMETRIES:
        assert _features(_map_bits(p, f), _map_bits(o, f)) == feats


def _line_stable_discs(own: int, filled: int) -> list[tuple[int, int]]:
    """The evaluator's stable discs of ``own``, the slow way: a disc is
    stable when in each of the four line directions its line is full, it
    lies on the border across that direction, or a stable disc of its
    colour is its neighbour in that direction; repeated until nothing
    changes. (No edge analysis: that is the solver's stronger set.)"""

    def inside(r: int, c: int) -> bool:
        return 0 <= r < 8 and 0 <= c < 8

    def line_full(r: int, c: int, dr: int, dc: int) -> bool:
        for sign in (1, -1):
            rr, cc = r, c
            while inside(rr, cc):
                if not filled >> (rr * 8 + cc) & 1:
                    return False
                rr, cc = rr + sign * dr, cc + sign * dc
        return True

    directions = [(0, 1), (1, 0), (1, 1), (1, -1)]
    discs = [(r, c) for r in range(8) for c in range(8) if own >> (r * 8 + c) & 1]
    stable: set[tuple[int, int]] = set()
    changed = True
    while changed:
        changed = False
        for r, c in discs:
            if (r, c) in stable:
                continue
            ok = True
            for dr, dc in directions:
                on_border = not inside(r + dr, c + dc) or not inside(r - dr, c - dc)
                by_stable = (r + dr, c + dc) in stable or (r - dr, c - dc) in stable
                if not (on_border or by_stable or line_full(r, c, dr, dc)):
                    ok = False
                    break
            if ok:
                stable.add((r, c))
                changed = True
    return sorted(stable)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(20, 60))
def test_the_stable_discs_feature_counts_both_colours(seed: int, plies: int) -> None:
    # The evaluator runs both colours' fixed points in one loop.
    p, o = _random_position(seed, plies)
    numeric = _features(p, o)[1]  # mobility, potential mobility, stable discs, ...
    expected = len(_line_stable_discs(p, p | o)) - len(_line_stable_discs(o, p | o))
    assert numeric[2] == expected


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), holes=st.integers(0, 10))
def test_stable_discs_without_corners(seed: int, holes: int) -> None:
    # Without a corner only a disc whose row, column and diagonals are all
    # full can start a stable set; the evaluator rules the rest out early.
    # Boards nearly full but for the corners hold such discs.
    rng = random.Random(seed)
    corners = {0, 7, 56, 63}
    empty = corners | set(rng.sample(sorted(set(range(64)) - corners), holes))
    p = o = 0
    for sq in set(range(64)) - empty:
        if rng.random() < 0.5:
            p |= 1 << sq
        else:
            o |= 1 << sq
    numeric = _features(p, o)[1]
    expected = len(_line_stable_discs(p, p | o)) - len(_line_stable_discs(o, p | o))
    assert numeric[2] == expected


# The first fitted evaluator's pattern types (version-2 weight files): squares
# in the a1 corner's orientation (corner 3x3, edge + 2 X, corner 2x5, rows
# 2-4, diagonals of 8 to 4 squares).
LEGACY_TYPES = [
    "a1 b1 c1 a2 b2 c2 a3 b3 c3",
    "a1 b1 c1 d1 e1 f1 g1 h1 b2 g2",
    "a1 b1 c1 d1 e1 a2 b2 c2 d2 e2",
    "a2 b2 c2 d2 e2 f2 g2 h2",
    "a3 b3 c3 d3 e3 f3 g3 h3",
    "a4 b4 c4 d4 e4 f4 g4 h4",
    "a1 b2 c3 d4 e5 f6 g7 h8",
    "b1 c2 d3 e4 f5 g6 h7",
    "c1 d2 e3 f4 g5 h6",
    "d1 e2 f3 g4 h5",
    "e1 f2 g3 h4",
]
# Other shapes a model may have: a corner triangle, a corner block with the
# edge beyond it, an odd asymmetric set, a single square.
OTHER_TYPES = [
    "a1 b1 c1 d1 a2 b2 c2 a3 b3 a4",
    "a1 b1 c1 d1 e1 f1 g1 h1 a2 b2",
    "b1 d2 e5",
    "d4",
]


def _mask(spec: str) -> int:
    return _bits(*spec.split())


def _smallest_image(raw: int, n: int, own: list[tuple[int, ...]], position: dict[int, int]) -> int:
    """The smallest configuration a pattern's own symmetries map ``raw`` to."""
    digits = [raw // 3**i % 3 for i in range(n)]
    return min(sum(digits[position[img[i]]] * 3**i for i in range(n)) for img in own)


def _oracle_tables(
    masks: list[int],
) -> list[tuple[int, list[list[tuple[int, ...]]], dict[int, int]]]:
    """Per type: its offset, its instances (one square list per symmetry that
    reads it) and the canonical id of each configuration, built the slow way:
    a configuration's id is the rank of the smallest configuration it can be
    mapped to by a symmetry that keeps the type's squares."""
    tables, offset = [], 0
    for mask in masks:
        squares = [sq for sq in range(64) if mask >> sq & 1]
        images = []
        for f in SYMMETRIES:
            image = []
            for sq in squares:
                r, c = f(*divmod(sq, 8))
                image.append(r * 8 + c)
            images.append(tuple(image))
        own = [img for img in images if set(img) == set(squares)]
        position = {sq: i for i, sq in enumerate(squares)}
        n = len(squares)

        smallest = [_smallest_image(raw, n, own, position) for raw in range(3**n)]
        rank = {m: i for i, m in enumerate(sorted(set(smallest)))}
        canon = {raw: rank[smallest[raw]] for raw in range(3**n)}
        instances: dict[frozenset[int], list[tuple[int, ...]]] = {}
        for img in images:
            instances.setdefault(frozenset(img), []).append(img)
        tables.append((offset, [group for group in instances.values()], canon))
        offset += len(rank)
    return tables


def _oracle_features(tables, p: int, o: int) -> list[int]:
    expected = []
    for offset, instances, canon in tables:
        for group in instances:
            img = group[0]
            raw = sum(((p >> sq & 1) + 2 * (o >> sq & 1)) * 3**i for i, sq in enumerate(img))
            expected.append(offset + canon[raw])
    return sorted(expected)


def test_the_legacy_types_are_the_version_2_types() -> None:
    from outflank import evalmodel

    assert [_mask(spec) for spec in LEGACY_TYPES] == list(evalmodel.LEGACY_MASKS)


@pytest.mark.parametrize("which", ["packaged", "legacy", "other"])
def test_pattern_features_match_a_slow_reference(which: str) -> None:
    masks = {
        "packaged": _core.eval_layout()["types"],
        "legacy": [_mask(spec) for spec in LEGACY_TYPES],
        "other": [_mask(spec) for spec in OTHER_TYPES],
    }[which]
    tables = _oracle_tables(masks)
    layout = _core.eval_layout(masks=masks)
    assert layout["types"] == list(masks)
    assert sum(len(group) for _, group, _ in tables) == layout["patterns"]
    assert tables[-1][0] + len(set(tables[-1][2].values())) == layout["pattern_weights"]
    for seed in range(40):
        p, o = _random_position(seed, seed % 61)
        raw = _core.eval_features(
            p.to_bytes(8, sys.byteorder), o.to_bytes(8, sys.byteorder), masks=masks
        )
        feats = list(memoryview(raw).cast("i"))
        assert sorted(feats[: layout["patterns"]]) == _oracle_features(tables, p, o)
        if which == "packaged":
            assert (sorted(feats[: layout["patterns"]]), feats[layout["patterns"] :]) == _features(
                p, o
            )


def test_bad_pattern_masks_are_refused() -> None:
    for masks in ([], [0], [0x7FF], [1] * 33, ["a1"]):
        with pytest.raises((ValueError, TypeError)):
            _core.eval_layout(masks=masks)
    with pytest.raises(ValueError, match="overlap"):
        _core.eval_features(b"\1" + bytes(7), b"\1" + bytes(7), masks=[1])


def test_the_package_loads_its_fitted_weights() -> None:
    assert _core.eval_layout()["fitted"] == 1


def test_a_malformed_weight_file_is_refused_and_changes_nothing() -> None:
    import gzip
    from importlib import resources

    p, o = _random_position(3, 30)
    before = _core.eval_default(p, o)
    blob = gzip.decompress(resources.files("outflank").joinpath("data", "eval.bin.gz").read_bytes())
    for bad in (b"", b"OFEVAL2\0" + bytes(12), blob[:-2], blob + b"\0", b"X" + blob[1:]):
        with pytest.raises(ValueError, match="not a weight file"):
            _core.eval_load(bad)
    assert _core.eval_default(p, o) == before
    _core.eval_load(blob)  # reloading the same weights is harmless
    assert _core.eval_default(p, o) == before


def _random_weights(masks: list[int], anchors: tuple[int, ...], seed: int, tables: bool = False):
    import numpy as np

    from outflank import evalmodel

    rng = np.random.default_rng(seed)
    width = _core.eval_layout(masks=masks, tables=tables)["pattern_weights"]
    return evalmodel.WeightFile(
        tuple(masks),
        anchors,
        np.round(rng.normal(0, 2, (len(anchors), width)), 2),
        np.round(rng.normal(0, 2, (len(anchors), len(evalmodel.NUMERIC) + 1)), 2),
        tables,
    )


def _expected_score(wf, p: int, o: int) -> int:
    """The score a weight file gives, the slow way: its features times its
    weights, interpolated between the anchors in 1/100 disc (as the core)."""
    raw = _core.eval_features(
        p.to_bytes(8, sys.byteorder),
        o.to_bytes(8, sys.byteorder),
        masks=list(wf.masks),
        tables=wf.tables,
    )
    feats = list(memoryview(raw).cast("i"))
    n = len(feats) - 6  # pattern instances, then (with tables) the count tables' entries
    e = min(64 - (p | o).bit_count(), 60)
    anchors = wf.anchors
    a = max([i for i, x in enumerate(anchors) if x <= e], default=0)
    b = min(a + 1, len(anchors) - 1)
    span, t = anchors[b] - anchors[a], e - anchors[a]
    if span <= 0 or t < 0:
        span, t = 1, 0
    t = min(t, span)

    def interp(va: int, vb: int) -> int:
        return int((va * (span - t) + vb * t) / span)  # C division: toward zero

    pa, pb = wf.patterns[a], wf.patterns[b]  # only the weights read are rounded
    na = [round(v * 100) for v in wf.numeric[a]]
    nb = [round(v * 100) for v in wf.numeric[b]]
    score = interp(na[6], nb[6])
    score += sum(interp(round(pa[i] * 100), round(pb[i] * 100)) for i in feats[:n])
    score += sum(interp(na[i], nb[i]) * feats[n + i] for i in range(6))
    return score


def test_a_model_of_other_types_loads_into_a_slot_and_scores_as_its_weights_say() -> None:
    from outflank import evalmodel

    masks = [_mask(spec) for spec in OTHER_TYPES]
    wf = _random_weights(masks, (0, 7, 30, 52), seed=5)
    blob = wf.to_bytes()
    assert evalmodel.parse(blob).masks == tuple(masks)
    packaged = [
        (p, o, _core.eval_default(p, o)) for p, o in (_random_position(s, s) for s in range(60))
    ]
    _core.eval_load(blob, 2)
    try:
        assert _core.eval_layout(2)["types"] == masks and _core.eval_layout(2)["fitted"] == 1
        for p, o, score in packaged:
            assert _core.eval_default(p, o) == score  # the active model is still slot 0
            assert _core.eval_default(p, o, slot=2) == _expected_score(wf, p, o)
        ps = b"".join(p.to_bytes(8, sys.byteorder) for p, _, _ in packaged)
        os_ = b"".join(o.to_bytes(8, sys.byteorder) for _, o, _ in packaged)
        assert list(memoryview(_core.eval_scores(ps, os_, 2)).cast("i")) == [
            _expected_score(wf, p, o) for p, o, _ in packaged
        ]
        _core.eval_use(2)
        assert _core.eval_layout()["slot"] == 2
        for p, o, _ in packaged[:10]:
            assert _core.eval_default(p, o) == _expected_score(wf, p, o)
    finally:
        _core.eval_use(0)
    assert [_core.eval_default(p, o) for p, o, _ in packaged] == [s for _, _, s in packaged]


def _neighbours(bits: int) -> int:
    out = 0
    for sq in range(64):
        if bits >> sq & 1:
            r, c = divmod(sq, 8)
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if (dr or dc) and 0 <= r + dr < 8 and 0 <= c + dc < 8:
                        out |= 1 << ((r + dr) * 8 + c + dc)
    return out


def test_count_tables_read_each_sides_moves_and_potential_mobility() -> None:
    """A model with count tables adds four look-ups: the mover's legal moves,
    the opponent's, the mover's potential mobility (empty squares next to an
    opponent disc) and the opponent's, each capped at its table's last
    entry; the numeric features stay as they are."""
    masks = [_mask(spec) for spec in OTHER_TYPES]
    plain = _core.eval_layout(masks=masks)
    layout = _core.eval_layout(masks=masks, tables=True)
    assert (plain["tables"], layout["tables"]) == (0, 1)
    assert layout["patterns"] == plain["patterns"] + 4
    sizes = (32, 32, 48, 48)
    assert layout["pattern_weights"] == plain["pattern_weights"] + sum(sizes)
    seen = set()
    for seed in range(60):
        p, o = _random_position(seed, seed)
        empty = ~(p | o) & (2**64 - 1)
        counts = (
            _core.moves(p, o).bit_count(),
            _core.moves(o, p).bit_count(),
            (_neighbours(o) & empty).bit_count(),
            (_neighbours(p) & empty).bit_count(),
        )
        args = (p.to_bytes(8, sys.byteorder), o.to_bytes(8, sys.byteorder))
        with_tables = list(
            memoryview(_core.eval_features(*args, masks=masks, tables=True)).cast("i")
        )
        without = list(memoryview(_core.eval_features(*args, masks=masks)).cast("i"))
        n = plain["patterns"]
        assert with_tables[:n] == without[:n] and with_tables[n + 4 :] == without[n:]
        base = plain["pattern_weights"]
        for k, (count, size) in enumerate(zip(counts, sizes, strict=True)):
            assert with_tables[n + k] == base + sum(sizes[:k]) + min(count, size - 1)
        seen.add(counts)
    assert len(seen) > 30


def test_a_model_with_count_tables_round_trips_and_scores_as_its_weights_say() -> None:
    from outflank import evalmodel

    masks = [_mask(spec) for spec in OTHER_TYPES]
    wf = _random_weights(masks, (0, 9, 30, 60), seed=8, tables=True)
    blob = wf.to_bytes()
    assert blob.startswith(b"OFEVAL4\0")
    back = evalmodel.parse(blob)
    assert back.tables and back.masks == wf.masks and (back.patterns == wf.patterns).all()
    _core.eval_load(blob, 2)
    try:
        assert _core.eval_layout(2)["tables"] == 1
        for seed in range(60):
            p, o = _random_position(seed, seed)
            assert _core.eval_default(p, o, slot=2) == _expected_score(wf, p, o)
        # a version-4 file without tables is a version-3 model
        plain = _random_weights(masks, (0, 60), seed=9)
        v4 = bytearray(plain.to_bytes())
        v4[6:7] = b"4"
        at = 12 + 8 * len(masks)
        v4[at:at] = (0).to_bytes(4, "little")
        _core.eval_load(bytes(v4), 2)
        assert _core.eval_layout(2)["tables"] == 0
        p, o = _random_position(3, 30)
        assert _core.eval_default(p, o, slot=2) == _expected_score(plain, p, o)
    finally:
        _core.eval_use(0)


def test_a_bad_count_tables_flag_or_size_is_refused() -> None:
    from outflank import evalmodel
    from outflank.errors import OutflankError

    masks = [_mask(spec) for spec in OTHER_TYPES]
    blob = bytearray(_random_weights(masks, (0, 60), seed=4, tables=True).to_bytes())
    at = 12 + 8 * len(masks)
    bad_flag = bytes(blob[:at]) + (2).to_bytes(4, "little") + bytes(blob[at + 4 :])
    no_tables = bytes(blob[:at]) + (0).to_bytes(4, "little") + bytes(blob[at + 4 :])
    for bad in (bad_flag, no_tables):  # the flag, or the weight count, is wrong
        with pytest.raises(ValueError, match="not a weight file"):
            _core.eval_load(bad, 3)
    with pytest.raises(OutflankError, match="flag"):
        evalmodel.parse(bad_flag)


def test_the_packaged_weights_score_as_the_file_says() -> None:
    from importlib import resources

    from outflank import evalmodel

    wf = evalmodel.parse(
        __import__("gzip").decompress(
            resources.files("outflank").joinpath("data", "eval.bin.gz").read_bytes()
        )
    )
    assert list(wf.masks) == _core.eval_layout()["types"]
    for seed in range(30):
        p, o = _random_position(seed, 2 * seed)
        assert _core.eval_default(p, o) == _expected_score(wf, p, o)


def test_slots_refuse_bad_numbers() -> None:
    with pytest.raises(ValueError, match="slot"):
        _core.eval_use(3)  # nothing loaded there
    for slot in (-1, 4):
        with pytest.raises(ValueError, match="slot"):
            _core.eval_use(slot)
        with pytest.raises(ValueError, match="slot"):
            _core.eval_load(b"OFEVAL2\0", slot)
    with pytest.raises(ValueError, match="slot"):
        _core.eval_default(0, 0, slot=3)


@pytest.mark.parametrize("variable", ["OUTFLANK_NO_BMI2", "OUTFLANK_NO_VBMI"])
def test_every_pattern_reader_gives_the_same_scores(variable: str) -> None:
    # OUTFLANK_NO_BMI2 makes the evaluator gather squares without pext;
    # OUTFLANK_NO_VBMI turns off the AVX-512 pattern sum (where it runs).
    positions = [_random_position(seed, seed % 61) for seed in range(200)]
    script = (
        "import sys; from outflank import _core\n"
        "for line in sys.stdin:\n"
        "    p, o = map(int, line.split())\n"
        "    print(_core.eval_default(p, o))\n"
    )
    data = "".join(f"{p} {o}\n" for p, o in positions)
    outputs = [run_child(script, stdin=data, **{variable: flag}).split() for flag in ("0", "1")]
    assert outputs[0] == outputs[1]
    assert outputs[0] == [str(_core.eval_default(p, o)) for p, o in positions]


def test_evalmodel_scores_is_the_evaluation_of_each_position() -> None:
    """The batch evaluation of a slot (numpy arrays in, discs out) gives
    each position's own ``eval_default`` score, in discs."""
    np = pytest.importorskip("numpy")
    from conftest import random_position
    from outflank import evalmodel

    boards = [random_position(seed, 20 + seed % 30) for seed in range(40)]
    player = np.array([b.player for b in boards], dtype=np.uint64)
    opponent = np.array([b.opponent for b in boards], dtype=np.uint64)
    one_by_one = [_core.eval_default(b.player, b.opponent) / 100 for b in boards]
    assert evalmodel.scores(player, opponent).tolist() == one_by_one
