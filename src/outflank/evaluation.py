"""Named, parameterised evaluators computed in the native core.

An :class:`Evaluator` is a small immutable description (a name and its
parameters) that :class:`outflank.engine.Engine` hands to the C search.
Every evaluator scores a position from the side to move's view. The seeds'
evaluators are antisymmetric (what is good for one side is as bad for the
other); ``default`` is not quite: its fitted weights include the side to
move's parity and a per-phase constant, as an exact score depends on who
moves.

=============  ==================================================  ===========
name           what it scores (parameters)                         unit
=============  ==================================================  ===========
``default``    the strongest: edge and corner patterns, mobility,  1/100 disc
               potential mobility, stable discs, parity; fitted
               to self-play games (docs/evaluation.md)
``weights``    seed 002's positional table (``weights``: 64 ints    table points
               or 8 rows of 8)
``fish``       seed 000: corners, squares touching a corner,       points
               edges, others (``corner``, ``adjacent``, ``edge``,
               ``other``)
``heuristic``  seed 003: coin parity, mobility, corners,           points
               stability, each -100..100, weighted (``parity``,
               ``mobility``, ``corners``, ``stability``)
``regions``    seed 004: disc difference plus a bias per disc on   discs
               a corner, an edge, a square touching a corner
               (``corner``, ``edge``, ``x_square``: -50..50)
``discs``      the disc difference                                 discs
=============  ==================================================  ===========
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from outflank import _core
from outflank.errors import OutflankError

__all__ = [
    "EVALUATORS",
    "SEED_002_WEIGHTS",
    "Evaluator",
    "EvaluatorSpec",
    "make_evaluator",
]

#: Seed 002's positional weights, a1..h1, a2..h2, ... a8..h8.
SEED_002_WEIGHTS: Final[tuple[int, ...]] = (
    99, -8, 8, 6, 6, 8, -8, 99,
    -8, -24, -4, -3, -3, -4, -24, -8,
    8, -4, 7, 4, 4, 7, -4, 8,
    6, -3, 4, 0, 0, 4, -3, 6,
    6, -3, 4, 0, 0, 4, -3, 6,
    8, -4, 7, 4, 4, 7, -4, 8,
    -8, -24, -4, -3, -3, -4, -24, -8,
    99, -8, 8, 6, 6, 8, -8, 99,
)  # fmt: skip


@dataclass(frozen=True)
class EvaluatorSpec:
    """A named evaluator: its core kind, parameters (in order) and limits."""

    name: str
    kind: int
    defaults: Mapping[str, int]
    low: int
    high: int
    scale: float
    unit: str
    doc: str


def _spec(name: str, kind: int, defaults: dict[str, int], low: int, high: int, scale: float,
          unit: str, doc: str) -> EvaluatorSpec:  # fmt: skip
    return EvaluatorSpec(name, kind, MappingProxyType(defaults), low, high, scale, unit, doc)


EVALUATORS: Final[Mapping[str, EvaluatorSpec]] = MappingProxyType(
    {
        "default": _spec("default", _core.EVAL_DEFAULT, {}, 0, 0, 100.0, "discs",
                         "the strongest evaluator (see docs/evaluation.md)"),
        "weights": _spec("weights", _core.EVAL_WEIGHTS, {}, -10000, 10000, 1.0, "points",
                         "seed 002: sum of the mover's square weights minus the opponent's"),
        "fish": _spec("fish", _core.EVAL_FISH,
                      {"corner": 25, "adjacent": 5, "edge": 3, "other": 1}, -1000, 1000, 1.0,
                      "points",
                      "seed 000: corner 25; a square touching a corner +edge if its owner holds "
                      "the corner, else -adjacent; edges 3; others 1"),
        "heuristic": _spec("heuristic", _core.EVAL_HEURISTIC,
                           {"parity": 25, "mobility": 25, "corners": 30, "stability": 20},
                           0, 1000, 1.0, "points",
                           "seed 003: weighted coin parity, mobility, corners and stability, "
                           "each scaled to -100..100"),
        "regions": _spec("regions", _core.EVAL_REGIONS,
                         {"corner": 30, "edge": 5, "x_square": -20}, -50, 50, 1.0, "discs",
                         "seed 004: disc difference plus biases for corners, edges and the "
                         "squares touching a corner (each -50..50)"),
        "discs": _spec("discs", _core.EVAL_DISCS, {}, 0, 0, 1.0, "discs",
                       "the disc difference"),
    }
)  # fmt: skip


@dataclass(frozen=True)
class Evaluator:
    """An evaluator with its parameters, ready for the core.

    Build one with :func:`make_evaluator`; ``with_params`` returns a changed
    copy. ``scale`` converts core scores to the reported unit (``default``
    scores are in 1/100 disc, reported in discs).
    """

    name: str
    params: Mapping[str, int] = field(default_factory=dict)
    weights: tuple[int, ...] = SEED_002_WEIGHTS

    @property
    def spec(self) -> EvaluatorSpec:
        return EVALUATORS[self.name]

    @property
    def kind(self) -> int:
        return self.spec.kind

    @property
    def scale(self) -> float:
        return self.spec.scale

    def core_params(self) -> list[int]:
        """The 8 ints the core reads, in the spec's order."""
        values = [self.params[key] for key in self.spec.defaults]
        return values + [0] * (8 - len(values))

    def with_params(self, **params: Any) -> Evaluator:
        """A copy with some parameters changed (validated)."""
        merged: dict[str, Any] = dict(self.params)
        if self.name == "weights":
            merged["weights"] = self.weights
        merged.update(params)
        return make_evaluator(self.name, **merged)

    def configure(self, searcher: Any, reversi: bool = False) -> None:
        """Hand this evaluator to a core ``Searcher``."""
        searcher.set_evaluator(self.kind, list(self.weights), self.core_params(), reversi=reversi)

    def describe(self) -> str:
        """``name(key=value, ...)`` for logs and tables."""
        args = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.name}({args})" if args else self.name


def _weights_table(value: Any) -> tuple[int, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise OutflankError("weights must be 64 ints or 8 rows of 8 ints")
    flat: list[Any] = []
    if len(value) == 8 and all(isinstance(r, Sequence) and not isinstance(r, str) for r in value):
        for row in value:
            if len(row) != 8:
                raise OutflankError("weights must be 64 ints or 8 rows of 8 ints")
            flat.extend(row)
    else:
        flat = list(value)
    if len(flat) != 64:
        raise OutflankError(f"weights must hold 64 ints, not {len(flat)}")
    spec = EVALUATORS["weights"]
    for w in flat:
        if isinstance(w, bool) or not isinstance(w, int):
            raise OutflankError(f"weights must be ints, not {w!r}")
        if not spec.low <= w <= spec.high:
            raise OutflankError(f"weights must be in {spec.low}..{spec.high}, not {w}")
    return tuple(flat)


def make_evaluator(name: str = "default", **params: Any) -> Evaluator:
    """Build and validate a named evaluator, e.g. ``make_evaluator("regions", corner=40)``.

    Raises :class:`~outflank.errors.OutflankError` for an unknown name, an
    unknown parameter or a value out of range.
    """
    if isinstance(name, Evaluator):  # checked as if built by name (its missing parameters default)
        return name.with_params(**params)
    spec = EVALUATORS.get(str(name).lower())
    if spec is None:
        raise OutflankError(f"unknown evaluator {name!r} (choose from {', '.join(EVALUATORS)})")
    weights = SEED_002_WEIGHTS
    if spec.name == "weights" and "weights" in params:
        weights = _weights_table(params.pop("weights"))
    unknown = set(params) - set(spec.defaults)
    if unknown:
        known = ", ".join(spec.defaults) or "none"
        raise OutflankError(
            f"evaluator {spec.name!r} has no parameter {', '.join(sorted(unknown))}"
            f" (parameters: {known})"
        )
    values: dict[str, int] = dict(spec.defaults)
    for key, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise OutflankError(f"{spec.name} parameter {key} must be an int, not {value!r}")
        if not spec.low <= value <= spec.high:
            raise OutflankError(
                f"{spec.name} parameter {key} must be in {spec.low}..{spec.high}, not {value}"
            )
        values[key] = value
    return Evaluator(spec.name, MappingProxyType(values), weights)
