"""The actions the API and the pages can take on a game: their fields, who may take them, and how
each becomes an engine call. `GameBook.record_action` stores whatever events the call adds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorekeeper import Banked, Game, GameState, IllegalRollOff, Kept
from web.dice_sources import Roller
from web.inputs import InputError, name_problem

ACTIONS: dict[str, frozenset[str]] = {
    "throw": frozenset({"dice"}),
    "keep": frozenset({"dice"}),
    "bank": frozenset({"dice"}),
    "piggyback": frozenset(),
    "correct": frozenset({"dice"}),
    "undo": frozenset(),
    "roll-off": frozenset({"face"}),
    "points": frozenset({"points"}),
    "farkle": frozenset(),
    "undo-turn": frozenset(),
    "redo": frozenset(),
    "rename": frozenset({"player", "name"}),
    "target": frozenset({"target"}),
    "add-player": frozenset({"name"}),
    "remove-player": frozenset({"player"}),
}
"""Each action and the body fields it takes (besides "version")."""

TABLE_ONLY = frozenset({"undo-turn", "redo", "rename", "target", "add-player", "remove-player"})
"""Actions that may reach beyond the turn of the player to act, so a seat's phone cannot take them."""


def roll_off_open(state: GameState) -> bool:
    """Whether the board offers the roll-off for the first turn: the rules say the highest roll
    starts, and neither the first turn nor a decided roll-off has happened. A throw instead keeps
    the seat order, as when the table settled who starts without the app."""
    if state.rules.starts != "highest-roll" or state.finished or state.turn_number != 1 or state.turn_mode:
        return False
    return state.roll_off is None or not state.roll_off.decided


def apply_action(game: Game, source: str, roller: Roller, action: str, payload: Mapping[str, object]) -> None:
    """Carry out one checked action on `game`; the engine raises and changes nothing when it is illegal."""
    if action == "throw" and game.state.phase == "roll-off":  # once begun, the roll-off is finished first
        _roll_for_start(game, source, roller, _one_face(_dice_field(payload)))
    elif action == "roll-off":
        _roll_for_start(game, source, roller, payload.get("face"))
    elif action == "throw":
        dice = _dice_field(payload)
        if dice is None:
            if source != "virtual":
                raise InputError(f'this game reads {source} dice: send the faces as {{"dice": [...]}}')
            dice = roller.roll(game.state.dice_left)
        elif source == "virtual":
            raise InputError("this game rolls virtual dice: send {} to throw")
        game.throw(dice)
    elif action == "keep":
        game.keep(_required(_dice_field(payload), action))
    elif action == "bank":
        game.bank(_dice_field(payload))
    elif action == "correct":
        game.correct(_required(_dice_field(payload), action))
    elif action == "piggyback":
        game.piggyback()
    elif action == "points":
        game.enter_points(_required_field(payload, "points", '{"points": 350}'))
    elif action == "farkle":
        game.declare_farkle()
    elif action == "undo":
        undo(game)
    elif action == "undo-turn":
        game.undo_turn()
    elif action == "redo":
        game.redo()
    elif action == "rename":
        game.rename(_seat(payload), _new_name(payload))
    elif action == "target":
        game.change_target(_required_field(payload, "target", '{"target": 5000}'))
    elif action == "add-player":
        game.add_player(_new_name(payload))
    elif action == "remove-player":
        game.remove_player(_seat(payload))
    else:
        raise InputError(f"unknown action {action!r}; known: {', '.join(ACTIONS)}")


def undo(game: Game) -> None:
    """Take back the last event; a bank that set dice aside first takes that keep back with it, so
    the throw is on the table again as it was before Bank was pressed."""
    in_effect = [entry.event for entry in game.log() if entry.status == "in-effect"][-2:]
    game.undo()
    if [type(event) for event in in_effect] == [Kept, Banked]:
        game.undo()


def _roll_for_start(game: Game, source: str, roller: Roller, face: object) -> None:
    state = game.state
    if state.rules.starts != "highest-roll":
        raise IllegalRollOff(f"the {state.rules.name} rules start in seat order: there is no roll-off")
    if face is None:
        if source != "virtual":
            raise InputError(f'this game reads {source} dice: send the roll as {{"face": N}}')
        face = roller.roll(1)[0]
    elif source == "virtual":
        raise InputError("this game rolls virtual dice: send {} to roll for the start")
    game.roll_for_start(face)


def _one_face(dice: object) -> object:
    if dice is None:
        return None
    if not isinstance(dice, list) or len(dice) != 1:
        raise IllegalRollOff("the roll-off for the first turn comes first: the player rolls one die")
    return dice[0]


def _dice_field(payload: Mapping[str, object]) -> object:
    dice = payload.get("dice")
    if dice is not None and not isinstance(dice, list):
        raise InputError(f'"dice" must be a list of faces, not {dice!r}')
    return dice


def _required(dice: object, action: str) -> Any:
    if dice is None:
        raise InputError(f'{action} needs the dice: {{"dice": [...]}}')
    return dice


def _required_field(payload: Mapping[str, object], name: str, example: str) -> object:
    if name not in payload:
        raise InputError(f"send the {name} as {example}")
    return payload[name]


def _seat(payload: Mapping[str, object]) -> int | str:
    """A seat by number (0 first) or by the player's current name."""
    player = _required_field(payload, "player", '{"player": 0} or {"player": "Ann"}')
    if isinstance(player, bool) or not isinstance(player, (int, str)):
        raise InputError(f'"player" must be a seat number or a name, not {player!r}')
    return player


def _new_name(payload: Mapping[str, object]) -> str:
    name = _required_field(payload, "name", '{"name": "Ann"}')
    if not isinstance(name, str):
        raise InputError(f'"name" must be text, not {name!r}')
    problem = name_problem(name)
    if problem:
        raise InputError(problem)
    if name.strip().startswith("*"):
        raise InputError("computer players (names starting with *) join when the game is created, not during it")
    return name
