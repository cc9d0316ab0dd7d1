"""Suite-wide settings and fixtures: keep ultralytics offline and quiet (no network on this
machine); the Hypothesis profiles; ``app`` (a table app on a temp data dir, one table Ann v Ben)
and ``tablet`` (a joined tablet pair, see ``webui_helpers.Tablet``).

Every Flask app a test makes shares one in-memory cache of compiled templates (Jinja's bytecode
cache, keyed by template file and checked against its source): compiling the same templates
again for each of the suite's hundreds of apps took about a quarter of the web tests' time.

Passwords are hashed at a test's cost: werkzeug's scrypt with N = 2**10 instead of its default
2**15 (0.007 s a hash instead of 0.11-0.14 s here; the suite hashes hundreds). The code path and
the stored format are the same; the cost is a deployment setting, not behaviour under test.

At the end of a run every table camera a test left going is stopped, and its thread and its
detector self-check's thread are waited for: a detector run still going when Python exits
aborts the process ("terminate called without an active exception", exit 134) after every
test has passed.

Hypothesis profiles: ``full`` (the default, `make test`: Hypothesis's 100 examples a test, and
each fuzz test's own larger count) and ``quick`` (`make test-fast`: a tenth of every count).
Choose one with ``GINTRAY_HYPOTHESIS=quick`` or ``--hypothesis-profile=quick``. Neither has a
deadline: no test may fail because the machine is slow or loaded.
"""

import gc
import os
import sys
import threading

import flask
import jinja2
import pytest
import werkzeug.security
from hypothesis import settings

os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_VERBOSE", "False")

FULL_EXAMPLES = 100  # Hypothesis's own default
settings.register_profile("full", max_examples=FULL_EXAMPLES, deadline=None)
settings.register_profile("quick", max_examples=FULL_EXAMPLES // 10, deadline=None)
settings.load_profile(os.environ.get("GINTRAY_HYPOTHESIS", "full"))

TEST_HASH = "scrypt:1024:8:1"  # method:N:r:p
_hash_password = werkzeug.security.generate_password_hash


def hash_at_test_cost(password: str, method: str = TEST_HASH, salt_length: int = 16) -> str:
    return _hash_password(password, method, salt_length)


# before any module of the project imports it by name
werkzeug.security.generate_password_hash = hash_at_test_cost


class SharedTemplateCode(jinja2.BytecodeCache):
    """Compiled templates kept in memory for the whole run, for every app's environment. The
    compiled code depends on the environment's filters and tests (which exist, and what each is
    passed), so code is shared only between environments that have the same ones."""

    def __init__(self) -> None:
        self.code: dict[tuple[str, tuple], bytes] = {}

    @staticmethod
    def _slot(bucket: jinja2.bccache.Bucket) -> tuple[str, tuple]:
        env = bucket.environment

        def kinds(named: dict) -> tuple:
            return tuple(sorted((k, str(getattr(f, "jinja_pass_arg", ""))) for k, f in
                                named.items()))

        return bucket.key, (kinds(env.filters), kinds(env.tests), env.is_async,
                            tuple(sorted(env.extensions)))

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self.code.get(self._slot(bucket))
        if code is not None:  # the bucket drops code compiled from another source
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.code[self._slot(bucket)] = bucket.bytecode_to_string()


flask.Flask.jinja_options = {**flask.Flask.jinja_options, "bytecode_cache": SharedTemplateCode()}


@pytest.fixture
def app(tmp_path):
    from webui_helpers import make_app

    return make_app(tmp_path)


@pytest.fixture
def tablet(app):
    from webui_helpers import Tablet

    return Tablet(app)


CAMERA_THREADS = ("camera-", "self-check-")  # webui.table.camera_feed.TableCamera's thread names
THREAD_GUARD = 300.0  # seconds for each thread: against a hang only


def pytest_sessionfinish(session: pytest.Session) -> None:
    camera_feed = sys.modules.get("webui.table.camera_feed")
    if camera_feed is None:
        return
    for feed in [o for o in gc.get_objects() if isinstance(o, camera_feed.TableCamera)]:
        feed.stop()
    for thread in threading.enumerate():
        if thread.name.startswith(CAMERA_THREADS):
            thread.join(THREAD_GUARD)
