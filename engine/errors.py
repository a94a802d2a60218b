"""The engine's error types: every rule violation is one of these, never a bare exception."""


class EngineError(Exception):
    """Base of every error the engine raises."""


class OptionError(EngineError):
    """An unknown game, an unknown option, or an option value out of range.

    ``option`` names the option at fault (None when the problem is not one option's) and
    ``problem`` says what is wrong with it, so a caller can name its own key for it.
    """

    def __init__(self, message: str, option: str | None = None, problem: str | None = None) -> None:
        super().__init__(message)
        self.option = option
        self.problem = problem if problem is not None else message


class InvalidActionError(EngineError):
    """Not an action of the kind asked for (a bid that is not an integer, a card that is not a card)."""


class IllegalActionError(EngineError):
    """A well-formed action that the rules do not allow now (e.g. not following suit)."""


class ReplayError(EngineError):
    """A game record that does not replay: an illegal action, or a stored value the rules contradict."""


class UnknownGameError(OptionError):
    """A game name that no game of the engine answers to; ``known`` lists the names that do."""

    def __init__(self, name: object, known: tuple[str, ...]) -> None:
        problem = f"unknown game {name!r} (games: {', '.join(known)})"
        super().__init__(problem, option=None, problem=problem)
        self.name = name
        self.known = known


class PresetError(EngineError):
    """Preset deals the rules could not have dealt: wrong hand sizes, a card twice, a missing
    or extra turned card, more deals than the game has, a dealer who is not a seat."""
