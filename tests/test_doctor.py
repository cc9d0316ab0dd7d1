"""`gintray doctor`: the detector's self-check on the machine it runs on."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from vision.inference import doctor
from vision.inference.cpu import parse_cpuinfo
from vision.inference.detection import Detections
from vision.inference.detector import load_detector
from vision.inference.doctor import Reading, check_detector, compare_readings

X86_AVX2_ONLY = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD Ryzen 5 3500U with Radeon Vega Mobile Gfx
flags\t\t: fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx f16c avx2 bmi2

processor\t: 1
model name\t: AMD Ryzen 5 3500U with Radeon Vega Mobile Gfx
"""
PI5 = (doctor.REPO_ROOT / "tests" / "emulation" / "cpuinfo-cortex-a76.txt").read_text()


def test_cpu_line_names_the_kernel_choosing_instruction_sets():
    amd = parse_cpuinfo(X86_AVX2_ONLY, "x86_64")
    assert amd.model.startswith("AMD Ryzen 5 3500U")
    assert amd.instruction_sets == ("sse4_1", "sse4_2", "avx", "fma", "f16c", "avx2")
    assert not amd.has_vnni
    pi = parse_cpuinfo(PI5, "aarch64")
    assert pi.model == "Cortex-A76"
    assert "asimddp" in pi.instruction_sets


def test_shipped_models_pass_the_check_on_this_machine(capsys):
    assert doctor.main(["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and report["differences"] == []
    # the reference reading is a good one: all but the one card covered in this frame
    assert report["true_cards_read"] >= len(report["truth"]) - 1
    assert set(report["read"]) <= set(report["truth"])
    assert report["frame_ms"] > 0
    assert {m["path"].rsplit("/", 1)[-1] for m in report["model_files"]} == {
        "gintray-corners.onnx",
        "gintray-namer.onnx",
    }


@pytest.mark.parametrize("backend", ["onnx", "opencv"])
def test_reference_reading_is_recorded_for_the_shipped_model_files(backend):
    """A model file changed without recording its reference reading fails here (and the
    emulation tests in test_portable_inference.py say whether other CPUs read it the same)."""
    detector = load_detector(backend)
    files = tuple(doctor._model_file(p) for p in detector.model_paths)
    assert doctor.load_reference(files, backend)


class _Misreading:
    """The shipped detector, but reading one card as another (what a saturating int8 kernel
    did on CPUs without VNNI) and dropping another."""

    def __init__(self) -> None:
        self.inner = load_detector()
        self.model_paths = self.inner.model_paths

    def detect(self, image):
        found = self.inner.detect(image)
        return Detections([replace(found[0], card="QC"), *found[2:]])


def test_a_misreading_machine_fails_and_is_told_what_to_do():
    report = check_detector(_Misreading(), "onnx")
    assert not report.passed
    assert any("not read" in d for d in report.differences)
    assert any("QC" in d and "not in the reference" in d for d in report.differences)
    summary = report.summary()
    assert "FAILED" in summary and "GINTRAY_BACKEND=opencv" in summary


def test_compare_readings_wants_the_same_card_and_box():
    ref = [Reading("7D", (10, 10, 20, 40)), Reading("7D", (100, 100, 110, 130))]
    assert compare_readings(list(reversed(ref)), ref) == []
    slightly_off = [Reading("7D", (10.2, 10, 20, 40)), Reading("7D", (100, 100, 110, 130.5))]
    assert compare_readings(slightly_off, ref) == []
    shifted = [Reading("7D", (13, 10, 23, 40)), ref[1]]  # IoU 0.54
    assert compare_readings(shifted, ref) == [
        "7D at (10, 10, 20, 40) not read",
        "7D at (13, 10, 23, 40) read, not in the reference",
    ]
    assert compare_readings([ref[0]], ref) == ["7D at (100, 100, 110, 130) not read"]


def test_unknown_backend_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setenv("GINTRAY_BACKEND", "tensorflow")
    assert doctor.main([]) == 2
    err = capsys.readouterr().err
    assert "unknown backend 'tensorflow'" in err and "CPU:" in err
