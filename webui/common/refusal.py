"""What gintray refuses to do, in one type for both apps and the store: ``Refusal``.

The store's commands, the table app's and the hall's actions raise it (a module may name its
own kind: ``MergeError``, ``DrawError``...) with a sentence a person reads; one handler
(``webui.common.errors``) answers it: to a JSON client ``{"error": {"code", "message"}}``
with ``status``, to a person the message flashed as an error on the page the action came from
(``back``) or, with nowhere to go back to, the app's error page with ``status``.
"""

from __future__ import annotations

from typing import Any


class Refusal(ValueError):
    """A refused request: ``message`` in words, ``code`` and ``status`` (HTTP) for JSON
    clients, ``back`` the page (URL) a person is sent back to (None: the app decides)."""

    def __init__(self, message: str, *, code: str = "refused", status: int = 400,
                 back: str | None = None) -> None:
        super().__init__(message)
        self.message, self.code, self.status, self.back = message, code, status, back

    def to_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}
