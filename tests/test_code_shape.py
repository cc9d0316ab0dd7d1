"""Issue 28: the shape the code keeps. The hall is its own app on the shared kit; modules and
classes stay small enough to read (vision/training, the training scripts, is exempt)."""

from __future__ import annotations

import ast
import subprocess
import sys
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


HALL_IMPORT = """
import importlib
import pkgutil
import sys
import webui.hall
for module in pkgutil.walk_packages(webui.hall.__path__, "webui.hall."):
    importlib.import_module(module.name)
print(sorted(m for m in sys.modules
             if m.startswith(("webui.table", "vision.table.camera", "vision.inference", "cv2"))))
"""


def test_the_table_app_is_a_room_the_hall_does_not_load():
    """Issue 39 item 3: the hall (every module of ``webui.hall``, its views and command line
    included) loads neither the table app nor the camera nor OpenCV, while ``from webui import
    create_app`` still gives the table app's factory."""
    out = subprocess.run([sys.executable, "-c", HALL_IMPORT], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[]", out
    from webui import create_app
    from webui.table import create_app as table_factory

    assert create_app is table_factory
