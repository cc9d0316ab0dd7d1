"""The Pi setup script and its systemd unit: syntax, shellcheck, a unit systemd accepts."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest
from hardware_helpers import HARDWARE, REPO

SETUP = HARDWARE / "pi" / "setup.sh"
VENV = REPO / ".venv"


def run_setup(*args: str, venv: Path = VENV) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "GINTRAY_VENV": str(venv)}
    return subprocess.run(["bash", str(SETUP), *args], capture_output=True, text=True, env=env,
                          timeout=30, check=False)


def parse_unit(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read_string(text)
    return parser


def test_script_parses_and_is_strict():
    subprocess.run(["bash", "-n", str(SETUP)], check=True)
    head = SETUP.read_text().splitlines()
    assert head[0] == "#!/usr/bin/env bash"
    assert "set -euo pipefail" in head


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="apt-get install shellcheck")
def test_script_is_shellcheck_clean():
    result = subprocess.run(["shellcheck", "--severity=style", str(SETUP)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout


def test_rendered_unit_has_the_service_settings():
    result = run_setup("--print-unit", "--user", "pi")
    assert result.returncode == 0, result.stderr
    unit = parse_unit(result.stdout)
    service = unit["Service"]
    assert service["User"] == "pi"
    assert service["ExecStart"].split() == [
        f"{VENV}/bin/gintray", "serve", "--host", "0.0.0.0", "--port", "5000",
        "--camera", "picamera:0", "--data-dir", "/var/lib/gintray",
    ]
    assert service["Restart"] == "on-failure"
    assert service["StateDirectory"] == "gintray"
    assert "video" in service["SupplementaryGroups"].split()
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert "network-online.target" in unit["Unit"]["After"]
    assert "@" not in result.stdout.replace("https://", "")  # every placeholder filled


def test_backend_reaches_the_service_environment():
    """The backend `gintray doctor` passed with is the one the service runs."""
    default = run_setup("--print-unit")
    assert "Environment=GINTRAY_BACKEND=onnx\n" in default.stdout
    opencv = run_setup("--print-unit", "--backend", "opencv")
    assert opencv.returncode == 0, opencv.stderr
    assert "Environment=GINTRAY_BACKEND=opencv\n" in opencv.stdout


def test_camera_source_is_escaped_for_sed_and_systemd():
    result = run_setup("--print-unit", "--camera", "replay:/srv/demo?fps=2&loop=1",
                       "--port", "8080")
    assert result.returncode == 0, result.stderr
    exec_start = parse_unit(result.stdout)["Service"]["ExecStart"]
    assert "--camera replay:/srv/demo?fps=2&loop=1 " in exec_start
    assert "--port 8080 " in exec_start
    rtsp = run_setup("--print-unit", "--camera", "rtsp://cam%40table/1")
    assert "--camera rtsp://cam%%40table/1 " in rtsp.stdout  # systemd reads %% as one %


@pytest.mark.parametrize("args, message", [
    (["--port", "99999"], "port must be"),
    (["--port", "abc"], "port must be"),
    (["--camera", "usb:0; rm -rf /"], "characters a unit file cannot carry"),
    (["--user", "Bad User"], "not a valid user name"),
    (["--frobnicate"], "unknown option"),
    (["--backend", "tensorflow"], "backend must be onnx or opencv"),
    (["--camera"], "--camera needs a value"),
    (["--camera", "--port", "80"], "--camera needs a value"),
])
def test_bad_options_are_refused_with_a_reason(args, message):
    result = run_setup("--print-unit", *args)
    assert result.returncode != 0
    assert message in result.stderr
    assert result.stdout == ""


def test_refuses_to_install_without_root_or_as_root_user():
    # as a non-root user it stops before touching anything; as root it refuses User=root
    result = run_setup("--user", "root")
    assert result.returncode != 0
    assert "root" in result.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_accepts_the_rendered_unit(tmp_path):
    result = run_setup("--print-unit", "--user", "root")
    unit = tmp_path / "gintray.service"
    unit.write_text(result.stdout)
    verify = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                            text=True, check=False, timeout=60)
    complaints = [line for line in (verify.stdout + verify.stderr).splitlines()
                  if "gintray.service" in line]
    assert verify.returncode == 0 and not complaints, verify.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_verify_catches_a_missing_app(tmp_path):
    """The check above is real: a venv without the gintray command fails it."""
    result = run_setup("--print-unit", "--user", "root", venv=tmp_path / "no-venv")
    unit = tmp_path / "gintray.service"
    unit.write_text(result.stdout)
    verify = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                            text=True, check=False, timeout=60)
    assert verify.returncode != 0
    assert "not executable" in verify.stderr
