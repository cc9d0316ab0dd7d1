"""Issue 28: the shape the code keeps. The hall is its own app on the shared kit; modules and
classes stay small enough to read (vision/training, the training scripts, is exempt)."""

from __future__ import annotations

import ast
from pathlib import Path

from test_vision_rooms import imported_modules

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("scorer", "vision", "webui")
MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 150


def sources() -> list[Path]:
    return [path for package in PACKAGES for path in sorted((REPO / package).rglob("*.py"))
            if "training" not in path.relative_to(REPO).parts]


def test_the_hall_imports_only_the_shared_kit_and_the_store():
    allowed = ("webui.hall", "webui.common", "webui.store")
    for path in sorted((REPO / "webui" / "hall").rglob("*.py")):
        bad = [m for m in imported_modules(path)
               if (m == "webui" or m.startswith("webui.")) and not m.startswith(allowed)]
        assert bad == [], (str(path.relative_to(REPO)), bad)


def test_no_module_is_over_600_lines_and_no_class_over_150():
    long_modules = {str(p.relative_to(REPO)): n for p in sources()
                    if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert long_modules == {}
    long_classes = {}
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_CLASS_LINES:
                    long_classes[f"{path.relative_to(REPO)}:{node.name}"] = lines
    assert long_classes == {}
