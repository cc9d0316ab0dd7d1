"""Suite-wide settings and fixtures: keep ultralytics offline and quiet (no network on this
machine); ``app`` (a table app on a temp data dir, one table Ann v Ben) and ``tablet`` (a
joined tablet pair, see ``webui_helpers.Tablet``)."""

import os

import pytest

os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_VERBOSE", "False")


@pytest.fixture
def app(tmp_path):
    from webui_helpers import make_app

    return make_app(tmp_path)


@pytest.fixture
def tablet(app):
    from webui_helpers import Tablet

    return Tablet(app)
