"""Suite-wide settings and fixtures: keep ultralytics offline and quiet (no network on this
machine); the Hypothesis profiles; ``app`` (a table app on a temp data dir, one table Ann v Ben)
and ``tablet`` (a joined tablet pair, see ``webui_helpers.Tablet``).

Hypothesis profiles: ``full`` (the default, `make test`: Hypothesis's 100 examples a test, and
each fuzz test's own larger count) and ``quick`` (`make test-fast`: a tenth of every count).
Choose one with ``GINTRAY_HYPOTHESIS=quick`` or ``--hypothesis-profile=quick``. Neither has a
deadline: no test may fail because the machine is slow or loaded.
"""

import os

import pytest
from hypothesis import settings

os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_VERBOSE", "False")

FULL_EXAMPLES = 100  # Hypothesis's own default
settings.register_profile("full", max_examples=FULL_EXAMPLES, deadline=None)
settings.register_profile("quick", max_examples=FULL_EXAMPLES // 10, deadline=None)
settings.load_profile(os.environ.get("GINTRAY_HYPOTHESIS", "full"))


@pytest.fixture
def app(tmp_path):
    from webui_helpers import make_app

    return make_app(tmp_path)


@pytest.fixture
def tablet(app):
    from webui_helpers import Tablet

    return Tablet(app)
