"""Run the project's Python on other CPUs under qemu-user: x86 with AVX2 and no VNNI
(`qemu-x86_64-static -cpu Haswell`) and the Raspberry Pi 5's ARM64 core (`qemu-aarch64-static
-cpu cortex-a76`), with what `.ci/emulators` installs (Debian packages, an arm64 root, aarch64
wheels in .cache/emulation/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EMULATION = REPO / ".cache" / "emulation"
ARM64_ROOT = EMULATION / "arm64-root"
ARM64_SITE = EMULATION / "arm64-site"
READ_FRAMES = REPO / "tests" / "emulation" / "read_frames.py"
# Under qemu-user a program sees the host's /proc/cpuinfo (x86), which onnxruntime's cpuinfo
# library cannot parse as ARM and then crashes on import: an ARM64 program gets a Cortex-A76's
# /proc/cpuinfo, bind-mounted in a private mount namespace (nothing changes outside it).
A76_CPUINFO = REPO / "tests" / "emulation" / "cpuinfo-cortex-a76.txt"


@cache
def emulators_unavailable() -> str | None:
    """None when `.ci/emulators` made everything ready, else why not (a skip reason)."""
    done = subprocess.run(
        ["bash", str(REPO / ".ci" / "emulators")], capture_output=True, text=True, timeout=1800
    )
    if done.returncode != 0:
        return "emulation cannot start here: " + (done.stderr.strip() or done.stdout.strip())
    return None


def _namespace() -> list[str]:
    return ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "-r", "--mount"]


@cache
def arm64_unavailable() -> str | None:
    """None when ARM64 programs can run (emulators ready and a private mount namespace for the
    Cortex-A76 /proc/cpuinfo can be made), else why not."""
    reason = emulators_unavailable()
    if reason:
        return reason
    done = subprocess.run([*_namespace(), "true"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        return "no private mount namespace here (unshare): " + done.stderr.strip()
    return None


def haswell(args: list[str]) -> list[str]:
    """This interpreter on an x86 CPU with AVX2 and FMA, without AVX-512 or VNNI."""
    return ["qemu-x86_64-static", "-cpu", "Haswell", sys.executable, *args]


def arm64(args: list[str]) -> list[str]:
    """Debian's arm64 Python 3.11 on a Cortex-A76, with the aarch64 wheels."""
    inner = " ".join(
        [
            f"mount --bind {A76_CPUINFO} /proc/cpuinfo &&",
            f"QEMU_LD_PREFIX={ARM64_ROOT} PYTHONPATH={ARM64_SITE}",
            "exec qemu-aarch64-static -cpu cortex-a76",
            str(ARM64_ROOT / "usr" / "bin" / "python3.11"),
            *args,
        ]
    )
    return [*_namespace(), "bash", "-c", inner]


def read_under(command: list[str], timeout: float) -> dict:
    """Run `command` (a read_frames.py run) and return its JSON output."""
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, cwd=REPO,
        env={**os.environ, "GINTRAY_THREADS": "1"},
    )  # fmt: skip
    noise = "\n".join(
        line for line in done.stderr.splitlines() if "TCG doesn't support" not in line
    )
    assert done.returncode == 0, f"exit {done.returncode}: {noise[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])
