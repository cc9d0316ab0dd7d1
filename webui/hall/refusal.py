"""What the hall refuses to do, in one type: ``HallRefusal``.

The hall's actions raise it (each module names its own kind: ``MergeError``,
``PairingRefused``, ``DrawError``...) with a sentence the director reads; one handler
(``webui.hall.views.base.answer_refusal``) turns it into the answer: to a JSON client
``{"error": {"code", "message"}}`` with ``status``, to a person the message flashed as an
error on the page the action came from (``back``, which the view fills in).
"""

from __future__ import annotations


class HallRefusal(ValueError):
    """A refused director action: ``message`` in words, ``status`` and ``code`` for JSON
    clients, ``back`` the page (URL) a person is sent back to (None: the director's page)."""

    def __init__(self, message: str, status: int = 400, code: str = "refused",
                 back: str | None = None) -> None:
        super().__init__(message)
        self.message, self.status, self.code, self.back = message, status, code, back
