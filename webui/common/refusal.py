"""What gintray refuses to do, in one type for both apps and the store: ``Refusal``.

The store's commands, the table app's and the hall's actions raise it (a module may name its
own kind: ``MergeError``, ``DrawError``...) with a sentence a person reads; one handler
(``webui.common.errors``) answers it: to a JSON client ``{"error": {"code", "message"}}``
with ``status``, to a person the message flashed as an error on the page the action came from
(``back``) or, with nowhere to go back to (or a request the page cannot take at all:
``page``), the app's error page with ``status``.
"""

from __future__ import annotations

from typing import Any


class Refusal(ValueError):
    """A refused request: ``message`` in words, ``code`` and ``status`` (HTTP) for JSON
    clients, ``back`` the page (URL) a person is sent back to (None: the app decides);
    ``page``: answered with the error page and ``status`` even to a person, never sent back
    (a request no page of the app makes: an unknown table, a bad choice in a form)."""

    def __init__(self, message: str, *, code: str = "refused", status: int = 400,
                 back: str | None = None, page: bool = False) -> None:
        super().__init__(message)
        self.message, self.code, self.status, self.back = message, code, status, back
        self.page = page

    def to_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}
