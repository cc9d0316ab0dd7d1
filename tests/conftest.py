"""Suite-wide settings: keep ultralytics offline and quiet (no network on this machine)."""

import os

os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_VERBOSE", "False")
