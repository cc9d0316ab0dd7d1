"""The same cards on every CPU: the shipped models read under emulation of the target CPUs
must give what they give here (same cards, every box within IoU 0.9).

Targets: x86 laptops without VNNI (AVX2 path, `qemu-x86_64-static -cpu Haswell`) and the
Raspberry Pi 5 (ARM64 Cortex-A76, `qemu-aarch64-static` with Debian's arm64 Python and the
aarch64 wheels). `.ci/emulators` installs both; the tests skip, saying why, only where the
emulators cannot be set up.

Measured cost (2-core Xeon host): qemu's x86 emulation of AVX2 FMA code is slow (the float
finder takes 227 s for one 640x360 pass), so the AVX2 test reads the doctor's check frame at one
namer turn (the same kernels as four turns) and without enlarging it (`max_upscale=1`: the
scale policy's enlarged finer pass would add eight 640 px passes, over half an hour; it is
numpy and OpenCV resizing, which the ARM64 test covers): 335 s; the ARM64 test reads the check
frame and a real dev photo at the default four turns and scale policy: 42 s before the policy
enlarged small indices (both with other jobs on the machine). The ncnn backend's ARM64 test reads
the same two frames with the NCNN corner finder (float32; the ncnn aarch64 wheel): 202 s.
"""

from __future__ import annotations

import pytest
from detector_helpers import DEV
from emulation_helpers import (
    READ_FRAMES,
    arm64,
    arm64_unavailable,
    emulators_unavailable,
    haswell,
    read_under,
)

from vision.inference.detector import load_detector
from vision.inference.doctor import Reading, check_frame, compare_readings

pytestmark = [pytest.mark.slow, pytest.mark.emulation]
TIMEOUT = 1500  # seconds for one emulated run (6 and 3 minutes measured, see above)


def _frames() -> list:
    """The doctor's check frame and, with ../shared beside the checkout, one real dev photo."""
    frames = [check_frame()[0]]
    dev = sorted((DEV / "images").glob("*.jpg"))
    return frames + dev[1:2]


def _native(frames: list, **options) -> dict[str, list[Reading]]:
    import cv2

    detector = load_detector(**options)
    return {
        f.name: [Reading(d.card, d.box) for d in detector.detect(cv2.imread(str(f)))]
        for f in frames
    }


def _emulated(command: list[str]) -> tuple[str, dict[str, list[Reading]]]:
    """The machine the command ran as and its readings, frame by frame."""
    out = read_under(command, TIMEOUT)
    return out["machine"], {
        name: [Reading(d["card"], tuple(d["box"])) for d in found]
        for name, found in out["frames"].items()
    }


def _assert_same(emulated: dict, native: dict) -> None:
    assert emulated.keys() == native.keys()
    for name, reference in native.items():
        assert reference, f"{name}: nothing read natively, the comparison would be empty"
        assert compare_readings(emulated[name], reference) == [], name


def _needs(reason: str | None) -> None:
    if reason:
        pytest.skip(reason)


def test_avx2_only_x86_reads_the_same_cards_as_this_machine():
    _needs(emulators_unavailable())
    frames = [check_frame()[0]]
    machine, emulated = _emulated(haswell([str(READ_FRAMES), "--turns", "1", "--max-upscale", "1",
                                           str(frames[0])]))
    assert machine == "x86_64"
    _assert_same(emulated, _native(frames, turns=1, max_upscale=1.0))


def test_raspberry_pi_5_arm64_reads_the_same_cards_as_this_machine():
    _needs(arm64_unavailable())
    frames = _frames()
    machine, emulated = _emulated(arm64([str(READ_FRAMES), *map(str, frames)]))
    assert machine == "aarch64"
    _assert_same(emulated, _native(frames))


def test_raspberry_pi_5_arm64_reads_the_same_cards_with_the_ncnn_finder():
    """The ncnn backend (NCNN corner finder, onnxruntime namer) on the Pi's core reads what it
    reads here, with the ncnn aarch64 wheel that .ci/emulators installs."""
    pytest.importorskip("ncnn", reason="the ncnn wheel is not installed here")
    _needs(arm64_unavailable())
    frames = _frames()
    machine, emulated = _emulated(arm64([str(READ_FRAMES), "--backend", "ncnn",
                                         *map(str, frames)]))
    assert machine == "aarch64"
    _assert_same(emulated, _native(frames, backend="ncnn"))
