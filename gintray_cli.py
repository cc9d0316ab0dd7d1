"""The `gintray` command: one entry point that dispatches to each part's own CLI.

Subcommands are imported lazily so that `gintray melds ...` never imports the camera,
the detector or the web app (and none of them needs torch).
"""

from __future__ import annotations

import importlib
import sys

# subcommand -> (module, function, one-line help). Each function takes argv (list[str]) and
# returns an exit status.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "melds": ("scorer.cli", "melds_main", "best melds and deadwood of 10 or 11 cards (JSON)"),
    "score": ("scorer.cli", "score_main", "score one hand read from stdin (JSON)"),
    "sheet": ("scorer.cli", "sheet_main", "score sheet of a game read from stdin (JSON)"),
    "synth": ("vision.cli", "synth_main", "generate synthetic training scenes"),
    "train": ("vision.cli", "train_main", "train the card detector"),
    "detect": ("vision.cli", "detect_main", "detect cards in images"),
    "eval-detector": ("vision.cli", "eval_main", "score the detector on a YOLO-labelled folder"),
    "read": ("vision.cli", "read_main", "read a table photo (up card, spreads)"),
    "watch": ("vision.cli", "watch_main",
              "a camera through the live reader: a line each time the read changes, CPU a frame"),
    "deck": ("vision.deck_cli", "deck_main",
             "teach the detector a deck from photos of its cards (gintray deck learn DIR)"),
    "doctor": ("vision.cli", "doctor_main",
               "check that the card detector reads right on this CPU, and its speed"),
    "serve": ("webui.table.cli", "serve_main", "run the table web app"),
    "hall": ("webui.hall.cli", "hall_main", "run the tournament director's page (all tables)"),
    "sync": ("webui.hall.cli", "sync_main", "upload a table's hands to the event database"),
}


def _usage() -> str:
    lines = ["usage: gintray COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<14} {help_}" for name, (_, _, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the subcommand named in argv (defaults to sys.argv[1:])."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in {"-h", "--help", "help"}:
        print(_usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"gintray: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, func_name, _ = COMMANDS[name]
    func = getattr(importlib.import_module(module_name), func_name)
    return int(func(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
