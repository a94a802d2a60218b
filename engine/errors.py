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
