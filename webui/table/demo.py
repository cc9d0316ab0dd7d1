"""The demo table that ``gintray serve --demo`` (``make run``) opens on the bundled footage."""

from __future__ import annotations

from pathlib import Path

from webui.store import Actor, Store

DEMO_NAME = "Demo table"
DEMO_PLAYERS = {"A": "Ann", "B": "Ben"}


def demo_footage() -> Path | None:
    """The first folder of images under ``vision/demo/`` (the reader's demo hand), if any."""
    try:
        import vision
    except ImportError:
        return None
    root = Path(vision.__file__).resolve().parent / "demo"
    if not root.is_dir():
        return None
    for folder in sorted([root, *sorted(p for p in root.rglob("*") if p.is_dir())]):
        if any(p.suffix.lower() in {".jpg", ".jpeg", ".png"} for p in folder.iterdir()):
            return folder
    return None


def demo_camera() -> str | None:
    """Camera source of the demo footage (looped), or None when it is not installed."""
    folder = demo_footage()
    return f"replay:{folder}?loop=1" if folder else None


def ensure_demo_table(store: Store, camera: str | None = None) -> int:
    """Create the demo table once (tournament rules, Ann v Ben, the demo footage)."""
    return ensure_table(store, DEMO_NAME, DEMO_PLAYERS, camera or demo_camera())


def ensure_table(store: Store, name: str, players: dict[str, str], camera: str | None) -> int:
    """The table called ``name``, created once (tournament rules); its camera set to ``camera``."""
    for table in store.tables():
        if table.name == name:
            state = store.state(table.id)
            if camera and state.camera != camera:
                from webui.store.commands import change_settings

                # a new camera keeps the table's calibration (restarting `gintray serve` with
                # another --camera wiped it)
                store.execute(table.id, change_settings(state.name, state.players, state.rules,
                                                        camera, state.layout), Actor("system"))
            return table.id
    return store.create_table(name, {"name": name, "players": players,
                                     "rules": "tournament", "camera": camera},
                              Actor("system"))
