"""Settings of the desktop game: an INI file as in seed 000, plus command-line
overrides.

The file is ``outflank.ini`` in the current folder, else
``$XDG_CONFIG_HOME/outflank/outflank.ini`` (``~/.config/...`` when the
variable is unset); the first one found is read. Example::

    [BASIC]
    WINDOWWIDTH = 1024
    WINDOWHEIGHT = 720
    SQUARESIZE = 0        ; 0: squares as large as the window allows
    FPS = 60
    ANIMATION = True
    FLIPTIME = 0.45       ; seconds one disc takes to turn over

    [GAME]
    AI = 6                ; a level 1-20, greedy, minimax4, heuristic, regions, weights, none
    COLOUR = black        ; the human's colour
    RULES = othello       ; or reversi (the game ends when the mover cannot move)
    HINTTIME = 1.0        ; seconds the hint (H) may think
    THREADS = 0           ; threads per search: 0 every core, else 1-64

Keys are case-insensitive and may be written with underscores
(``window_width``). A bad value does not stop the game: it is reported in a
message naming the file, section and key, and the default is used instead.
Values given on the command line override the file and must be valid.
"""

from __future__ import annotations

import ast
import configparser
import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from outflank.board import Color, Rules
from outflank.errors import OutflankError
from outflank.gui.ai import AISpec
from outflank.levels import DEFAULT_LEVEL
from outflank.threads import MAX_THREADS

__all__ = [
    "CONFIG_NAME",
    "Settings",
    "config_candidates",
    "find_config",
    "load_settings",
    "read_ini",
]

CONFIG_NAME = "outflank.ini"


def _int_in(low: int, high: int, *, zero: bool = False) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise ValueError("not a whole number") from None
        if zero and value == 0:
            return 0
        if not low <= value <= high:
            extra = "0 or " if zero else ""
            raise ValueError(f"{value} is out of range ({extra}{low}..{high})")
        return value

    return parse


def _float_in(low: float, high: float) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise ValueError("not a number") from None
        if not low <= value <= high:
            raise ValueError(f"{value:g} is out of range ({low:g}..{high:g})")
        return value

    return parse


def _bool(text: str) -> bool:
    key = text.strip().lower()
    if key in ("1", "yes", "true", "on"):
        return True
    if key in ("0", "no", "false", "off"):
        return False
    raise ValueError("not a yes/no value (use true or false)")


def _colour(text: str) -> Color:
    try:
        return Color.parse(text)
    except OutflankError:
        raise ValueError("unknown colour (use black or white)") from None


def _rules(text: str) -> Rules:
    try:
        return Rules(text.strip().lower())
    except ValueError:
        raise ValueError("unknown rules (use othello or reversi)") from None


def _ai(text: str) -> AISpec:
    try:
        return AISpec.parse(text)
    except OutflankError as exc:
        raise ValueError(str(exc)) from None


_DEFAULT_AI = AISpec("level", level=DEFAULT_LEVEL)


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the window needs to know before it opens."""

    width: int = 1024
    height: int = 720
    square_size: int = 0  # 0: fit the window
    fps: int = 60
    animation: bool = True
    flip_time: float = 0.45
    ai: AISpec = _DEFAULT_AI
    colour: Color = Color.BLACK  # the human's colour
    rules: Rules = Rules.OTHELLO
    hint_time: float = 1.0
    threads: int = 0  # threads per search; 0: every core the process may use

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed; values given as text are parsed and
        checked (command-line overrides), bad ones raise :class:`OutflankError`."""
        parsed: dict[str, Any] = {}
        for name, value in changes.items():
            if value is None:
                continue
            field = _FIELDS_BY_NAME.get(name)
            if field is None:
                raise OutflankError(f"unknown setting {name!r}")
            if isinstance(value, str):
                try:
                    value = field.parse(value)
                except ValueError as exc:
                    raise OutflankError(f"bad {field.option} {value!r}: {exc}") from None
            elif isinstance(value, int | float) and not isinstance(value, bool):
                try:
                    value = field.parse(str(value))
                except ValueError as exc:
                    raise OutflankError(f"bad {field.option} {value!r}: {exc}") from None
            parsed[name] = value
        return dataclasses.replace(self, **parsed)


@dataclass(frozen=True, slots=True)
class _Field:
    name: str  # Settings attribute
    section: str
    keys: tuple[str, ...]  # accepted INI keys, normalised (lower case, no "_")
    parse: Callable[[str], Any]
    option: str  # command-line option, for messages


_FIELDS = [
    _Field("width", "BASIC", ("windowwidth", "width"), _int_in(320, 7680), "--width"),
    _Field("height", "BASIC", ("windowheight", "height"), _int_in(240, 4320), "--height"),
    _Field(
        "square_size",
        "BASIC",
        ("squaresize",),
        _int_in(16, 400, zero=True),
        "--square-size",
    ),
    _Field("fps", "BASIC", ("fps",), _int_in(1, 240), "--fps"),
    _Field("animation", "BASIC", ("animation",), _bool, "--animation"),
    _Field("flip_time", "BASIC", ("fliptime",), _float_in(0.05, 5.0), "--flip-time"),
    _Field("ai", "GAME", ("ai",), _ai, "--ai"),
    _Field("colour", "GAME", ("colour", "color"), _colour, "--colour"),
    _Field("rules", "GAME", ("rules",), _rules, "--rules"),
    _Field("hint_time", "GAME", ("hinttime",), _float_in(0.05, 60.0), "--hint-time"),
    _Field("threads", "GAME", ("threads",), _int_in(1, MAX_THREADS, zero=True), "--threads"),
]
_FIELDS_BY_NAME = {f.name: f for f in _FIELDS}


def config_candidates(cwd: Path | None = None, env: Mapping[str, str] | None = None) -> list[Path]:
    """Where the INI file is looked for, in order."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return [cwd / CONFIG_NAME, Path(base) / "outflank" / CONFIG_NAME]


def find_config(cwd: Path | None = None, env: Mapping[str, str] | None = None) -> Path | None:
    """The first existing file of :func:`config_candidates`, or ``None``."""
    for path in config_candidates(cwd, env):
        if path.is_file():
            return path
    return None


def _normal(key: str) -> str:
    return key.strip().lower().replace("_", "").replace("-", "")


def read_ini(text: str, source: str = CONFIG_NAME) -> tuple[Settings, list[str]]:
    """Settings from INI text, and one warning per bad value, unknown key or
    section (each naming ``source``, the section and the key)."""
    warnings: list[str] = []
    parser = configparser.ConfigParser(
        interpolation=None,
        inline_comment_prefixes=(";", "#"),
        strict=False,
        allow_no_value=True,
        default_section="\0",  # a [DEFAULT] in the file is just an unknown section
    )
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):  # settings before the first [SECTION]
        if parser.SECTCRE.match(line.strip()):
            break
        if line.strip() and not line.strip().startswith((";", "#")):
            warnings.append(f"{source}: line {number} {line.strip()!r} is in no [SECTION]; ignored")
            lines[number - 1] = ""  # blanked: the other lines keep their numbers
    try:
        parser.read_string("\n".join(lines), source=source)
    except configparser.ParsingError as exc:
        for number, shown in exc.errors:  # the other lines were read: keep them
            line = ast.literal_eval(shown).strip()  # configparser gives each line's repr
            warnings.append(f"{source}: line {number} {line!r} is not KEY = value; ignored")
    values: dict[str, Any] = {}
    defaults = Settings()
    for section in parser.sections():
        wanted = section.strip().upper()
        fields = {key: f for f in _FIELDS if f.section == wanted for key in f.keys}
        if not fields:
            warnings.append(f"{source}: unknown section [{section}] ignored")
            continue
        for key, raw in parser.items(section):
            if not key.strip():  # "= 30": reported above as not KEY = value
                continue
            field = fields.get(_normal(key))
            where = f"{source} [{section}] {key.upper()}"
            if field is None:
                home = next((f.section for f in _FIELDS if _normal(key) in f.keys), None)
                why = f"belongs in [{home}]" if home else "unknown key"
                warnings.append(f"{where}: {why}, ignored")
                continue
            if raw is None:
                warnings.append(f"{where}: no value (write {key.upper()} = ...); using the default")
                continue
            try:
                values[field.name] = field.parse(raw)
            except ValueError as exc:
                default = getattr(defaults, field.name)
                shown = str(default) if not isinstance(default, Color | Rules) else default.name
                warnings.append(f"{where} = {raw!r}: {exc}; using the default {shown.lower()}")
    return dataclasses.replace(defaults, **values), warnings


def load_settings(
    path: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[Settings, list[str], Path | None]:
    """Read the settings file (``path``, else the first of
    :func:`config_candidates`), then apply command-line ``overrides``.

    Returns the settings, the warnings about the file, and the file read
    (``None`` if there was none). A ``path`` that does not exist, or a bad
    override, raises :class:`OutflankError`.
    """
    if path is not None and path.is_dir():
        raise OutflankError(f"settings file is a folder: {path}")
    if path is not None and not path.is_file():
        raise OutflankError(f"settings file not found: {path}")
    found = path if path is not None else find_config(cwd, env)
    settings, warnings = Settings(), []
    if found is not None:
        try:
            data = found.read_bytes()
        except OSError as exc:
            warnings.append(f"{found}: cannot be read ({exc}); using defaults")
        else:
            try:
                text, note = data.decode("utf-8-sig"), []  # Notepad writes a BOM
            except UnicodeDecodeError:  # an "ANSI" file: every byte is a Latin-1 character
                text = data.decode("latin-1")
                note = [f"{found}: not UTF-8; read as Latin-1"]
            settings, warnings = read_ini(text, str(found))
            warnings = note + warnings
    if overrides:
        settings = settings.replace(**overrides)
    return settings, warnings, found
