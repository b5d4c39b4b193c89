"""The rules engine: positions, turns, gods, notation, state hash. Pure: no I/O.

Everything a game needs is a fold of ``apply_action`` from ``new_game``; the other layers
(wire, net, replay, ai, ui) use only the names exported here.
"""

from __future__ import annotations

from santorini_p2p.engine.effects import (
    Effect,
    EffectKind,
    describe_effect,
    side_letter,
    standing_effects,
    turn_effects,
)
from santorini_p2p.engine.gods import (
    ADVANCED,
    ALL_GOD_NAMES,
    GOD_NAMES,
    GODS,
    SIMPLE,
    God,
    find_god,
)
from santorini_p2p.engine.gods.hermes import hermes_form, plain_form
from santorini_p2p.engine.hashing import state_bytes, state_hash
from santorini_p2p.engine.notation import (
    format_action,
    format_position,
    format_turn,
    parse_action,
    parse_position,
    parse_square,
    parse_turn,
)
from santorini_p2p.engine.perft import divide, perft
from santorini_p2p.engine.position import (
    DOME,
    FORCE,
    NO_WINNER,
    UNDECIDED,
    Action,
    ChooseGods,
    NameStart,
    Outcome,
    Phase,
    PickGod,
    Place,
    Position,
    Selection,
    Turn,
)
from santorini_p2p.engine.power import Power
from santorini_p2p.engine.rules import (
    apply,
    apply_unchecked,
    can_win_now,
    count_turns,
    end_by_agreement,
    find_turn,
    generate_turns,
    has_legal_turn,
    is_legal,
    legal_turns,
    limits,
    lose_on_time,
    next_seat,
    outcome,
    resign,
)
from santorini_p2p.engine.setup import (
    GodMode,
    apply_action,
    is_legal_action,
    legal_actions,
    legal_form,
    new_game,
    placement_due,
    placement_error,
)
from santorini_p2p.engine.squares import SQUARE_NAMES, Square, square_name

OPENING: str = "00000/00B00A0/00000/00A00B0/00000 1 -,- -"
"""The opening position of RULES.md section 7 (workers placed, no gods)."""

__all__ = [
    "ADVANCED",
    "ALL_GOD_NAMES",
    "DOME",
    "FORCE",
    "GODS",
    "GOD_NAMES",
    "NO_WINNER",
    "OPENING",
    "SIMPLE",
    "SQUARE_NAMES",
    "UNDECIDED",
    "Action",
    "ChooseGods",
    "Effect",
    "EffectKind",
    "God",
    "GodMode",
    "NameStart",
    "Outcome",
    "Phase",
    "PickGod",
    "Place",
    "Position",
    "Power",
    "Selection",
    "Square",
    "Turn",
    "apply",
    "apply_action",
    "apply_unchecked",
    "can_win_now",
    "count_turns",
    "describe_effect",
    "divide",
    "end_by_agreement",
    "find_god",
    "find_turn",
    "format_action",
    "format_position",
    "format_turn",
    "generate_turns",
    "has_legal_turn",
    "hermes_form",
    "is_legal",
    "is_legal_action",
    "legal_actions",
    "legal_form",
    "legal_turns",
    "limits",
    "lose_on_time",
    "new_game",
    "next_seat",
    "outcome",
    "parse_action",
    "parse_position",
    "parse_square",
    "parse_turn",
    "perft",
    "placement_due",
    "placement_error",
    "plain_form",
    "resign",
    "side_letter",
    "square_name",
    "standing_effects",
    "state_bytes",
    "state_hash",
    "turn_effects",
]
