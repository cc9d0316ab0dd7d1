"""Generated bodies and query strings against every JSON endpoint of the table app: never a 500.

One Hypothesis run sends each generated JSON body to every state-changing endpoint (as a joined
tablet or as the director) and one generated query string to a GET endpoint: 1,260 examples x
8 requests = 10,080 requests (issue 15) under the ``full`` Hypothesis profile, a tenth of that
under ``quick`` (`make test-fast`). The table's state moves on as valid requests land,
so later bodies meet later states (knock card set, proposals, confirmations, finished games).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webui_helpers import (
    KNOCK_B,
    KNOCK_MELDS_A,
    PNG_DATA_URL,
    Tablet,
    director_client,
    make_app,
)

from webui.common.validate import MAX_WHOLE

EXAMPLES = settings.default.max_examples * 126 // 10  # 1,260 under the full profile, 126 quick
POSTS = ("knock-card", "proposal", "confirm", "undo", "sign", "next-game", "reopen")
GETS = ("/api/t/1/state", "/api/t/1/events", "/api/t/1/camera.mjpg", "/api/t/1/camera.jpg",
        "/t/1/sheet", "/t/1/panel", "/t/1/history", "/t/1/join", "/t/1/games/1/export.csv",
        "/t/1/games/1/export.json", "/t/1/games/1/sign", "/api/t/99999999999999999999/state",
        "/t/0/sheet", "/t/1/games/-1/sign")
KEYS = ("game", "hand", "card", "kind", "knocker", "winner", "points", "note", "cards", "melds",
        "player", "revision", "target_seq", "png", "dealer", "reason", "director",
        "improper_accepted", "request_id", "next", "cards_A", "cards_B", "melds_A", "melds_B")

numbers = st.one_of(
    st.integers(-3, 12), st.integers(), st.sampled_from([MAX_WHOLE, MAX_WHOLE + 1, 2**63, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1.0, 1.5, 5.9, 12.7, 1e400]))
words = st.one_of(
    st.sampled_from(["A", "B", "both", "9H", "7D", "AS", "10C", "score", "manual", "dead",
                     "1", "²", "١", "1.0", "", " ", "0x1", "NaN", "Infinity", "/t/1",
                     "/\t/evil.example", "//evil", "<b>", PNG_DATA_URL,
                     "2C 3C 4C | 7H 7S 7D | 9D TD JD", "KS KH KC 4H 5H 6H QD QS 2D 8D",
                     "________-__________", "tap-1"]),
    st.text(max_size=30))
scalars = st.one_of(st.none(), st.booleans(), numbers, words)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["A", "B", "C", "x"]) | words,
                                                 inner, max_size=4)), max_leaves=8)


def _plausible(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a value the endpoint accepts, sometimes anything."""
    return st.one_of(good, good, good, values)


small = st.integers(0, 6)
player = st.sampled_from(["A", "B"])
# Bodies that often land (every endpoint reads its own keys): the table moves on through knock
# cards, proposals, confirmations, undos, signatures and new games.
near_valid = st.fixed_dictionaries({
    "game": _plausible(small), "hand": _plausible(small), "revision": _plausible(small),
    "card": _plausible(st.sampled_from(["9H", "7D", "AS", "TC", "KH"])),
    "kind": _plausible(st.sampled_from(["manual", "manual", "score", "dead"])),
    "winner": _plausible(player), "knocker": _plausible(player), "player": _plausible(player),
    "points": _plausible(st.integers(0, 120)), "dealer": _plausible(player),
    "cards": _plausible(st.just({"A": "5S", "B": " ".join(KNOCK_B)})),
    "melds": _plausible(st.just({"A": KNOCK_MELDS_A})),
    "target_seq": _plausible(st.integers(1, 400)), "png": _plausible(st.just(PNG_DATA_URL)),
    "reason": _plausible(st.text(min_size=1, max_size=20))},
    optional={"request_id": words, "next": words, "note": words, "director": values})
bodies = st.one_of(
    st.dictionaries(st.sampled_from(KEYS), values, max_size=8),
    values,  # not an object at all
    st.dictionaries(st.text(max_size=8), values, max_size=3))
raw_bodies = st.one_of(
    st.builds(lambda b: json.dumps(b, allow_nan=True), near_valid),
    st.builds(lambda b: json.dumps(b, allow_nan=True), near_valid),
    st.builds(lambda b: json.dumps(b, allow_nan=True), bodies),
    st.text(max_size=60),  # mostly not JSON
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n))
queries = st.lists(st.tuples(st.sampled_from(["max", "pin", "next", "x", "game"]) | st.text(
    max_size=5), st.one_of(words, numbers.map(str))), max_size=3)


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    app = make_app(tmp_path_factory.mktemp("fuzz"))
    tablet = Tablet(app)
    director = director_client(app)
    return {"tablet": (tablet.client, tablet.token),
            "director": (director, _token(director)), "store": app.extensions["gintray"].store}


def _aimed(raw: str, store: Any) -> str:
    """``raw`` with game, hand, revision and target_seq of the table as it is now (when it is
    a JSON object), so that more generated requests land."""
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    if not isinstance(body, dict):
        return raw
    state = store.state(1)
    hand = state.current_hand()
    if hand is not None:
        body.update(game=hand.game, hand=hand.number, revision=hand.revision)
    elif state.game is not None:
        body["game"] = state.game.number
    body["target_seq"] = state.last_seq
    return json.dumps(body, allow_nan=True)


def _token(client: Any) -> str:
    from webui_helpers import csrf_token

    return csrf_token(client, "/t/1")


def _check(response: Any, what: str) -> None:
    try:
        assert response.status_code < 500, (what, response.status_code,
                                            response.get_data(as_text=True)[:300])
        if response.mimetype == "application/json" and response.status_code >= 400:
            assert response.get_json()["error"]["message"], what
    finally:
        response.close()  # a live stream that was opened is not read


def test_generated_requests_never_get_a_server_error(clients: dict[str, Any]) -> None:
    sent: list[str] = []

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(raw=raw_bodies, aim=st.sampled_from([True, True, False]),
           who=st.sampled_from(["tablet", "tablet", "director"]), form=st.booleans(),
           get=st.sampled_from(GETS), query=queries)
    def one_example(raw: str, aim: bool, who: str, form: bool, get: str,
                    query: list[tuple[str, str]]) -> None:
        client, token = clients[who]
        for name in POSTS:
            if aim:
                raw = _aimed(raw, clients["store"])
            path = f"/api/t/1/{name}"
            if form:  # a plain form post: the same body's top-level keys as form fields
                response = client.post(path, data={**_form_fields(raw), "csrf_token": token})
            else:
                response = client.post(path, data=raw, content_type="application/json",
                                       headers={"X-CSRFToken": token})
            sent.append(path)
            _check(response, f"POST {path} {raw[:200]!r}")
        qs = "&".join(f"{quote(k)}={quote(v)}" for k, v in query)
        sent.append(get)
        _check(client.get(f"{get}?{qs}", buffered=False,
                          headers={"Accept": "application/json"}), f"GET {get}?{qs}")

    one_example()
    assert len(sent) >= EXAMPLES * (len(POSTS) + 1) * 99 // 100  # 10,000 under the full profile


def _form_fields(raw: str) -> dict[str, str]:
    """A generated body as form fields (structures as their JSON text)."""
    try:
        fields = json.loads(raw)
    except (ValueError, RecursionError):
        return {"x": raw}
    if not isinstance(fields, dict):
        return {"x": raw}
    return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in fields.items()}
