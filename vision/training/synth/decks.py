"""Unpack the French-suited SVG card decks shipped by Debian and render their faces to PNG.

Build-time only: `ensure_decks()` runs `apt-get download` + `dpkg -x` once into a cache directory
(`data/decks/`, gitignored) and renders every card with `rsvg-convert --export-id`.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vision.inference.classes import ALL_CODES

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_DECK_DIR = REPO_ROOT / "data" / "decks"
PACKAGES = ("kdegames-card-data-kf5", "gnome-cards-data")
RENDER_WIDTH = 240  # cached face width in pixels; CardFaces resizes from it

# deck name -> SVG path inside the unpacked packages. French suits with English indices
# (A, K, Q, J) only: decks with R/D/V, Cyrillic or German indices, 4-colour suits or German
# suits are skipped because real tournament cards do not look like them.
DECK_FILES: dict[str, str] = {
    "kde-standard": "usr/share/carddecks/svg-standard/standard.svgz",
    "kde-oxygen": "usr/share/carddecks/svg-oxygen/oxygen.svgz",
    "kde-oxygen-white": "usr/share/carddecks/svg-oxygen-white/oxygen-white.svgz",
    "kde-oxygen-air": "usr/share/carddecks/svg-oxygen-air/oxygen-air.svgz",
    "kde-nicu-white": "usr/share/carddecks/svg-nicu-white/white.svgz",
    "kde-nicu-ornamental": "usr/share/carddecks/svg-nicu-ornamental/ornamental.svgz",
    "kde-tigullio": "usr/share/carddecks/svg-tigullio-international/tigullio-international.svgz",
    "kde-jolly-royal": "usr/share/carddecks/svg-jolly-royal/jolly-royal.svgz",
    "kde-future": "usr/share/carddecks/svg-future/future.svgz",
    "kde-penguins": "usr/share/carddecks/svg-penguins/penguins.svgz",
    "kde-dondorf": "usr/share/carddecks/svg-dondorf/dondorf.svgz",
    "gnome-anglo": "usr/share/aisleriot/cards/anglo.svgz",
    "gnome-anglo-modern": "usr/share/aisleriot/cards/anglo_modern.svgz",
    "gnome-anglo-poker": "usr/share/aisleriot/cards/anglo_poker.svgz",
    "gnome-gnomangelo": "usr/share/aisleriot/cards/gnomangelo.svgz",
    "gnome-neoclassical": "usr/share/aisleriot/cards/neoclassical.svgz",
    "gnome-ornamental": "usr/share/aisleriot/cards/ornamental.svgz",
    "gnome-plastic": "usr/share/aisleriot/cards/plastic.svgz",
    "gnome-tango": "usr/share/aisleriot/cards/tango.svgz",
    "gnome-tigullio": "usr/share/aisleriot/cards/tigullio.svgz",
    "gnome-dondorf": "usr/share/aisleriot/cards/dondorf.svgz",
}

# Decks the namer is never trained on, rendered only to measure teaching a deck:
# German index letters (B, D, K for jack, queen, king). GPL-3+ (aisleriot), like the others here.
UNSEEN_DECK_FILES: dict[str, str] = {
    "gnome-berlin": "usr/share/aisleriot/cards/berlin.svgz",
}

_RANK_WORD = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_SUIT_WORD = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}


def svg_element_id(svg_text: str, code: str) -> str | None:
    """The element id of card `code` in a deck's SVG (KDE "1_club" or GNOME "club_1" style)."""
    rank = _RANK_WORD.get(code[0], code[0])
    suit = _SUIT_WORD[code[1]]
    for candidate in (f"{rank}_{suit}", f"{suit}_{rank}"):
        if re.search(rf'id="{re.escape(candidate)}"', svg_text):
            return candidate
    return None


def _unpack_packages(deck_dir: Path) -> Path:
    root = deck_dir / "x"
    if all((root / rel).exists() for rel in DECK_FILES.values()):
        return root
    debs = deck_dir / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    if not list(debs.glob("*.deb")):
        subprocess.run(["apt-get", "download", *PACKAGES], cwd=debs, check=True)
    for deb in debs.glob("*.deb"):
        subprocess.run(["dpkg", "-x", str(deb), str(root)], check=True)
    return root


def _render(svg: Path, element: str, out: Path, width: int) -> bool:
    """Render one element of an SVG to PNG; False (and no file) when rsvg-convert fails."""
    tmp = out.with_suffix(".tmp.png")
    done = subprocess.run(
        ["rsvg-convert", f"--export-id={element}", "-w", str(width), "-o", str(tmp), str(svg)],
        capture_output=True,
    )
    if done.returncode != 0:
        tmp.unlink(missing_ok=True)
        return False
    tmp.replace(out)
    return True


def ensure_decks(deck_dir: Path | None = None, decks: list[str] | None = None) -> Path:
    """Unpack the Debian deck packages and render every card face; return the faces directory.

    Idempotent: already rendered faces are kept. Needs `apt-get`, `dpkg` and `rsvg-convert`
    (Debian package librsvg2-bin) the first time.
    """
    deck_dir = Path(deck_dir or DEFAULT_DECK_DIR)
    faces_root = deck_dir / "faces"
    wanted = decks or list(DECK_FILES)
    if all((faces_root / d / "KS.png").exists() for d in wanted):
        return faces_root
    if shutil.which("rsvg-convert") is None:
        raise RuntimeError("rsvg-convert not found: apt-get install librsvg2-bin")
    root = _unpack_packages(deck_dir)
    jobs = []
    for deck in wanted:
        svg = root / {**DECK_FILES, **UNSEEN_DECK_FILES}[deck]
        with gzip.open(svg, "rt", encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        out_dir = faces_root / deck
        out_dir.mkdir(parents=True, exist_ok=True)
        for code in ALL_CODES:
            element = svg_element_id(text, code)
            out = out_dir / f"{code}.png"
            if element and not out.exists():
                jobs.append((svg, element, out))
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda job: _render(*job, RENDER_WIDTH), jobs))
    return faces_root
