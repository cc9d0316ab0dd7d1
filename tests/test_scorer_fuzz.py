"""Fuzzing the rules engine's command line (issue 14): ``melds``, ``score`` and ``sheet``.

Over 10,000 generated inputs a run under the ``full`` Hypothesis profile (``FUZZ_EXAMPLES`` per
test, five tests; a tenth of that under ``quick``, `make test-fast`): malformed JSON,
invalid UTF-8, wrong types, huge numbers and strings, deep nesting, Unicode look-alikes of card
codes, duplicates, wrong card counts, and well-formed hands. Each must end in exit 0 with a
result that keeps every card given, or exit 2 with ``{"error": {"code", "message"}}`` and a
short message; never a traceback, never a silently changed input.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Callable

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scorer.cards import DECK
from scorer.cli import melds_main, score_main, sheet_main

FUZZ_EXAMPLES = 21 * settings.default.max_examples  # full profile: 2,100 x 5 tests = 10,500 inputs
FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,  # the same inputs on every run and every machine
)
MAX_MESSAGE = 400  # an error names the bad value, cut: never a 10 MB echo

CODES = [card.code for card in DECK]
LOOK_ALIKES = ["Aſ", "AＳ", "A\u0455", "１0H", "Ｋd", "7D\u200b", "Ꭺs", "1OH", "A S", "", " ",
               "10H", "td", "AS ", "JOKER", "0S", "1S", "11H", "AX", "\ud800", "7♦"]
card_code = st.one_of(st.sampled_from(CODES), st.sampled_from(LOOK_ALIKES), st.text(max_size=4))
cards = st.lists(card_code, min_size=0, max_size=14)
names = st.sampled_from(["A", "B", "Ann", "", "A\u0301", "x" * 300])
json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
    st.integers(min_value=10**300, max_value=10**400), st.text(max_size=20),
)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
rules = st.one_of(
    st.sampled_from(["tournament", "standard", "family", "oklahoma", "straight", "partnership",
                     "TOURNAMENT", "gin"]),
    st.fixed_dictionaries({}, optional={
        "preset": st.sampled_from(["standard", "tournament", "nope"]),
        "knock_limit": st.one_of(st.integers(-5, 120), st.just("up_card"), json_scalar),
        "shutout": st.one_of(st.booleans(), st.sampled_from(["none", "hand_points", "x"])),
        "gin_bonus": json_scalar,
        "hollywood": json_scalar,
    }),
    json_value,
)


def _deck_hands(draw: st.DrawFn) -> dict[str, list[str]]:
    """Two hands of real, distinct cards (10 each, sometimes 9 or 11)."""
    picked = draw(st.permutations(CODES))
    a = draw(st.sampled_from([10] * 8 + [9, 11]))
    b = draw(st.sampled_from([10] * 8 + [9, 11]))
    return {"A": picked[:a], "B": picked[a:a + b]}


@st.composite
def score_docs(draw: st.DrawFn) -> object:
    kind = draw(st.integers(-4, 3))
    if kind <= 0:  # well-formed deal; mostly rules under which any hand may knock
        doc: dict[str, object] = {"knocker": draw(st.sampled_from(["A", "B"])),
                                  "hands": _deck_hands(draw)}
        doc["rules"] = draw(st.sampled_from([
            {"preset": "standard", "knock_limit": 100},
            {"preset": "tournament", "knock_limit": 100, "shutout": "hand_points"},
            {"preset": "standard", "knock_limit": 100, "undercut_on_tie": False},
            "standard", "tournament", "family", "oklahoma"]))
        doc["up_card"] = draw(st.sampled_from(CODES))
        if draw(st.integers(0, 4)) == 0:
            doc["declared"] = draw(st.sampled_from(["gin", "knock", "GIN", 1]))
        if draw(st.integers(0, 4)) == 0:
            doc["accept_improper_knock"] = draw(st.sampled_from([True, False, "yes"]))
        return doc
    if kind == 1:  # card-level garbage in an otherwise plausible shape
        return {"rules": draw(rules), "up_card": draw(st.one_of(card_code, json_value)),
                "knocker": draw(st.one_of(names, json_value)),
                "hands": draw(st.one_of(st.dictionaries(names, cards, max_size=3), json_value)),
                "melds": draw(st.one_of(st.none(), st.dictionaries(
                    names, st.lists(cards, max_size=3), max_size=2), json_value))}
    if kind == 2:
        return draw(st.dictionaries(st.sampled_from(["rules", "knocker", "hands", "melds",
                                                     "up_card", "extra", "declared"]),
                                    json_value, max_size=6))
    return draw(json_value)


@st.composite
def sheet_docs(draw: st.DrawFn) -> object:
    hand = st.one_of(
        st.fixed_dictionaries({"winner": names, "points": st.one_of(st.integers(-10, 400),
                                                                   json_scalar)},
                              optional={"up_card": card_code, "dead": json_scalar,
                                        "dealer": names}),
        st.just({"dead": True}), st.just({}), st.just({"dead": False}), json_value,
    )
    valid_hand = st.one_of(
        st.fixed_dictionaries({"winner": st.sampled_from(["A", "B"]),
                               "points": st.integers(0, 300)},
                              optional={"up_card": st.sampled_from(CODES)}),
        st.just({"dead": True}))
    if draw(st.integers(0, 2)):
        doc = {"rules": draw(st.sampled_from(["tournament", "standard", "family", "partnership",
                                              {"preset": "standard", "hollywood": True},
                                              {"shutout": "hand_points"}])),
               "hands": draw(st.lists(valid_hand, max_size=12))}
        if draw(st.integers(0, 3)) == 0:
            doc["hands"].append(draw(hand))
        return doc
    doc = {"rules": draw(rules), "hands": draw(st.lists(hand, max_size=12))}
    if draw(st.booleans()):
        doc["players"] = draw(st.one_of(st.lists(names, max_size=3), json_value))
    if draw(st.integers(0, 4)) == 0:
        doc["teams"] = draw(st.one_of(
            st.just({"N": ["Ann", "Bob"], "S": ["Cy", "Di"]}), json_value))
        doc["hands"] = draw(st.lists(st.one_of(
            st.fixed_dictionaries({"boards": st.lists(st.one_of(
                st.fixed_dictionaries({"winner": st.sampled_from(["Ann", "Cy", "Zed"]),
                                       "points": st.one_of(st.integers(0, 99), json_scalar)}),
                st.just({"dead": True}), json_value), max_size=3)}),
            json_value), max_size=6))
    return doc if draw(st.integers(0, 5)) else draw(json_value)


raw_bytes = st.one_of(
    st.binary(max_size=60),
    st.sampled_from([b"\xff\xfe{}", b'{"hands": "\xc3\x28"}', b"[" * 100_000, b"{" * 50_000,
                     b"1" * 5000, b'"' + b"x" * 1_100_000 + b'"', b"", b"null", b"NaN",
                     b'{"hands": [' + b"[" * 3000 + b"]" * 3000 + b"]}"]),
)


def invoke(main: Callable[[list[str]], int], argv: list[str], stdin: bytes) -> tuple[int, str]:
    """Run a CLI entry point in-process with ``stdin`` as raw bytes; (status, stdout)."""
    out = io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out):
            status = main(argv)
    finally:
        sys.stdin = old_stdin
    return status, out.getvalue()


def check_answer(status: int, out: str) -> object:
    """Exit 0 with JSON, or exit 2 with a short error object; returns the parsed output."""
    assert status in (0, 2), status
    answer = json.loads(out)
    event(f"exit {status}" + (f" {answer['error']['code']}" if status == 2 else ""))
    if status == 2:
        assert set(answer) == {"error"} and set(answer["error"]) == {"code", "message"}
        assert isinstance(answer["error"]["code"], str) and answer["error"]["code"]
        assert 0 < len(answer["error"]["message"]) <= MAX_MESSAGE, answer["error"]["message"][:80]
    return answer


def encode(doc: object) -> bytes:
    return json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")


@st.composite
def melds_argv(draw: st.DrawFn) -> list[str]:
    """Mostly 10 or 11 real cards in any notation, sometimes mutated or garbage."""
    if draw(st.integers(0, 2)):
        picked = draw(st.permutations(CODES))[: draw(st.sampled_from([10, 11]))]
        styles = st.sampled_from([str.upper, str.lower, lambda c: c.replace("T", "10")])
        argv = [draw(styles)(c) for c in picked]
        if draw(st.integers(0, 3)) == 0:
            argv[draw(st.integers(0, len(argv) - 1))] = draw(card_code)
        return argv
    return draw(st.lists(st.one_of(card_code, st.text(max_size=6)), max_size=14))


@FUZZ
@given(melds_argv())
def test_fuzz_melds_arguments(argv):
    """Any card arguments: the cards analysed are exactly the cards given, or an error."""
    if any("\x00" in a for a in argv):
        argv = [a.replace("\x00", "") for a in argv]
    status, out = invoke(melds_main, argv, b"")
    answer = check_answer(status, out)
    if status == 0:
        given_codes = sorted(c.strip().upper().replace("10", "T") for a in argv
                             for c in a.replace(",", " ").split())
        shown = [c for meld in answer["melds"] for c in meld] + answer["deadwood_cards"]
        assert sorted(shown) == given_codes


@FUZZ
@given(score_docs())
def test_fuzz_score_documents(doc):
    """A scored hand keeps every card: melds, layoffs and deadwood cover the hands given."""
    status, out = invoke(score_main, [], encode(doc))
    answer = check_answer(status, out)
    if status == 0:
        for player, hand in doc["hands"].items():
            shown = [c for m in answer["melds"][player] for c in m]
            shown += answer["deadwood_cards"][player]
            shown += [lay["card"] for lay in answer["layoffs"] if player == answer["defender"]]
            assert sorted(shown) == sorted(c.strip().upper() for c in hand), player
        assert answer["points"] >= 0


@FUZZ
@given(sheet_docs())
def test_fuzz_sheet_documents(doc):
    """A scored sheet records every hand given, with the winner and points given."""
    status, out = invoke(sheet_main, [], encode(doc))
    answer = check_answer(status, out)
    if status == 0 and "teams" not in doc:
        assert len(answer["hands"]) == len(doc["hands"])
        for given_hand, recorded in zip(doc["hands"], answer["hands"], strict=True):
            if given_hand.get("dead") is True:
                assert recorded.get("dead") is True
            else:
                assert (recorded["winner"], recorded["points"]) == (
                    given_hand["winner"], given_hand["points"])
                assert type(recorded["points"]) is int


@FUZZ
@given(raw_bytes, st.sampled_from([score_main, sheet_main]))
def test_fuzz_raw_bytes_on_stdin(data, main):
    """Bytes that are not UTF-8, not JSON, too big or too deep: a clear error, never a crash."""
    status, out = invoke(main, [], data)
    check_answer(status, out)


@FUZZ
@given(st.lists(st.sampled_from(["--indent", "--text", "-", "--nope", "9" * 40, "-1", "3",
                                 "100000000", "--help"]), max_size=4), score_docs())
def test_fuzz_options(argv, doc):
    """Any mix of options: a result, help, or a clear error (never a MemoryError)."""
    status, out = invoke(score_main, argv, encode(doc))
    if "--help" in argv and status == 0:
        return
    if status == 0 and "--text" in argv:
        assert out.strip()
        return
    check_answer(status, out)
