"""Errors raised by the rules engine. Every one carries a short machine code and a message."""

from __future__ import annotations

from typing import Any

#: Longest error message: a bad value is named, never echoed whole (a 10 MB string stays out).
MAX_MESSAGE = 400


def shown(value: object, limit: int = 40) -> str:
    """``value`` as an error message names it: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ScorerError(ValueError):
    """Base of all rules-engine errors: ``code`` (short machine string) and ``message``."""

    default_code = "scorer_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 1] + "…"
        super().__init__(message)
        self.code: str = code or self.default_code
        self.message: str = message

    def to_json(self) -> dict[str, Any]:
        """The CLI's error object: ``{"error": {"code", "message"}}``."""
        return {"error": {"code": self.code, "message": self.message}}


class CardError(ScorerError):
    """A malformed card code, a duplicate card or a wrong number of cards."""

    default_code = "bad_card"


class RulesError(ScorerError):
    """An unknown preset, an unknown or mistyped rule override, a missing up card."""

    default_code = "bad_rules"


class InputError(ScorerError):
    """Malformed input document (bad JSON, missing or mistyped field, unknown player)."""

    default_code = "bad_input"


class ImproperKnockError(ScorerError):
    """The knocker's melds are invalid or the deadwood is over the knock limit.

    Per GRA tournament rule 9 an improper knock is not scored: the hand is played open.
    """

    default_code = "improper_knock"


class NewDealError(ScorerError):
    """The hand cannot be scored and must be redealt (GRA rule 8: both players miscounted)."""

    default_code = "new_deal"
