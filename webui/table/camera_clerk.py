"""The camera's clerk: the table reader's typed events become the table's records.

Each event is recorded as the ``camera`` actor: the knock card when a hand is dealt, a proposed
result (a ``Proposal``, with a snapshot of the picture) when both spreads are read. They are
proposals only: players confirm them on the tablet, and a result entered by hand is never
overwritten by the camera. ``TableCamera`` (``webui.table.camera_feed``) hands over each event.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from vision.table.events import Event, HandDealt, TableRead
from webui.common.durable import write_atomically
from webui.common.refusal import Refusal
from webui.common.words import card_count_question
from webui.store import Actor, Store, commands, engine
from webui.store.proposal import Kind, Missing, Proposal

log = logging.getLogger(__name__)
CAMERA = Actor("camera")


class CameraClerk:
    """Records one table's reader events (``hand_dealt``, ``table_read``) in the store."""

    def __init__(self, store: Store, table_id: int, data_dir: Path,
                 latest_jpeg: Callable[[], bytes | None]) -> None:
        self.store, self.table_id, self.data_dir = store, table_id, data_dir
        self.latest_jpeg = latest_jpeg  # the picture kept as the proposal's snapshot
        self.later_deal = False  # a deal seen while players are still on an earlier hand

    def on_event(self, ev: Event) -> None:
        """Record one reader event; other kinds are not the clerk's."""
        match ev:
            case HandDealt(up_card=up_card, alternative=alternative):
                self.dealt(up_card, alternative)
            case TableRead() if not self.later_deal:
                self.propose(ev)

    def dealt(self, up_card: engine.Card, alternative: engine.Card | None = None) -> None:
        """A fresh deal: it is this hand's knock card, unless the players are still on an
        earlier hand (then its readings wait: they must not overwrite that hand).
        ``alternative``: the detector's runner-up reading, kept for a one-tap swap."""
        hand = self.store.state(self.table_id).current_hand()
        if hand is None or (hand.up_card is not None and not hand.dealt_as(up_card)):
            self.later_deal = True
            log.info("table %s: deal of %s ignored until the current hand is confirmed",
                     self.table_id, up_card)
            return
        self.later_deal = False
        self.command(lambda st: commands.set_knock_card(
            _cur(st)[0], _cur(st)[1], up_card, source="camera", alternative=alternative)(st))

    def propose(self, read: TableRead) -> None:
        """A reading of both spreads as a ``Proposal`` (built here, the camera's one door into
        the records). Its cards are the engine's ``Card``s the reader looked up once where the
        spread was read (``vision.table.spreads.spread_read``): taken as they are."""
        spreads = read.spreads
        if set(spreads) != set(engine.PLAYERS):
            return
        knocker = read.knocker
        if knocker is None:  # a read without a knock cannot be a proposal
            log.warning("table %s: a spread read without a knocker was ignored", self.table_id)
            return
        hands = read.hands()
        layout = {p: groups for p, groups in read.layout().items() if groups}
        laid_off = {p: list(s.layoffs) for p, s in spreads.items() if s.layoffs}
        up_card = read.up_card
        problems = tuple(read.problems)
        proposal = Proposal(  # the layout only chooses among spreads that score the same
            Kind.SCORE, knocker=knocker, cards=hands, layout=layout or None,
            laid_off=laid_off or None,
            problems=problems, confidence=round(read.confidence, 3),
            arranged_by_engine=any(s.arranged_by_engine for s in spreads.values()),
            snapshot=self.save_snapshot())

        def run(st: Any) -> list[Any]:
            hand = st.current_hand()
            if hand is None or (hand.proposal and not hand.proposal.from_camera):
                return []  # a result entered by hand wins over the camera
            # a camera read never becomes penalty points: ask the players
            question = card_count_question(problems, st.players)
            # the camera's own reading of the knock card, even one the players corrected, is
            # this hand's deal; the hand's knock card (their fix) is what it is scored with
            if up_card and hand.up_card and not hand.dealt_as(up_card):
                log.info("table %s: reading of a later deal (%s) ignored until hand %s is "
                         "confirmed", self.table_id, up_card, hand.number)
                return []
            knock_card = hand.up_card or up_card
            found = replace(proposal, missing=missing_cards(hands, knocker, knock_card))
            return commands.propose(hand.game, hand.number, found, source="camera",
                                    strict=False, question=question)(st)

        self.command(run)

    def save_snapshot(self) -> str | None:
        """Keep the latest picture in ``<data dir>/snapshots/<table>/``; its file name."""
        jpeg = self.latest_jpeg()
        if jpeg is None:
            return None
        name = f"read-{int(time.time() * 1000)}.jpg"
        # on the disk before the proposal that shows it is recorded
        write_atomically(self.data_dir / "snapshots" / str(self.table_id) / name, jpeg)
        return name

    def command(self, run: Any) -> None:
        """Run a command as the camera; a refusal or failure is logged, never raised."""
        try:
            self.store.execute(self.table_id, run, CAMERA)
        except Refusal as exc:
            log.info("camera reading not recorded: %s", exc.message)
        except Exception:
            log.exception("camera reading not recorded")


def missing_cards(hands: dict[str, list[engine.Card]], knocker: str,
                  up_card: engine.Card | None) -> tuple[Missing, ...]:
    """For each player short of cards, the few cards that would meld with those seen (the
    engine's ``melding_cards``; never a card on the table or the knock card): one-tap answers
    to the card-count question."""
    taken = [c for cards in hands.values() for c in cards] + ([up_card] if up_card else [])
    out = []
    for player, cards in sorted(hands.items()):
        if not cards or len(cards) >= min(engine.spread_sizes(player == knocker)):
            continue
        try:
            found = engine.melding_cards(cards, taken)
        except engine.ScorerError:  # a card read twice: the question stands alone
            continue
        out += [Missing(player, card) for card in found]
    return tuple(out)


def _cur(state: Any) -> tuple[int, int]:
    hand = state.current_hand()
    if hand is None:
        raise Refusal("no hand is being played", code="game_over", status=409)
    return hand.game, hand.number
