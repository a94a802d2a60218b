"""The engine's error types: every rule violation is one of these, never a bare exception."""


class EngineError(Exception):
    """Base of every error the engine raises."""


class OptionError(EngineError):
    """An unknown game, an unknown option, or an option value out of range."""


class InvalidActionError(EngineError):
    """Not an action of the kind asked for (a bid that is not an integer, a card that is not a card)."""


class IllegalActionError(EngineError):
    """A well-formed action that the rules do not allow now (e.g. not following suit)."""


class ReplayError(EngineError):
    """A game record that does not replay: an illegal action, or a stored value the rules contradict."""
