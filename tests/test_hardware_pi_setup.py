"""The Pi setup script and its systemd unit: syntax, shellcheck, a unit systemd accepts."""

from __future__ import annotations

import configparser
import getpass
import shutil
import subprocess
import sys
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


def test_auto_backend_is_installed_as_onnx_until_the_doctor_chooses():
    assert "Environment=GINTRAY_BACKEND=onnx\n" in run_setup("--print-unit").stdout
    ncnn = run_setup("--print-unit", "--backend", "ncnn")
    assert "Environment=GINTRAY_BACKEND=ncnn\n" in ncnn.stdout


def _venv_whose_doctor_says(tmp_path: Path, verdicts: dict[str, str]) -> Path:
    """A venv whose `gintray doctor --backend B --json` prints verdicts[B] (a JSON line, or
    nothing: cannot load) and whose python is this one."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    cases = "".join(f"  {backend}) echo '{line}' ;;\n" for backend, line in verdicts.items())
    doctor = bin_dir / "gintray"
    doctor.write_text(f'#!/bin/sh\ncase "$3" in\n{cases}  *) exit 2 ;;\nesac\n')
    doctor.chmod(0o755)
    return bin_dir.parent


@pytest.mark.parametrize("verdicts, chosen", [
    ({"ncnn": '{"passed": true, "frame_ms": 90.5}', "onnx": '{"passed": true, "frame_ms": 170}',
      "opencv": '{"passed": false, "frame_ms": 40}'}, "ncnn"),  # a misreading one never wins
    ({"onnx": '{"passed": true, "frame_ms": 170}',
      "opencv": '{"passed": true, "frame_ms": 650.25}'}, "onnx"),  # ncnn cannot load
    ({"ncnn": '{"passed": false, "frame_ms": 1}'}, "onnx"),  # none passes: the default
])
def test_pick_backend_takes_the_fastest_that_passes_the_doctor(tmp_path, verdicts, chosen):
    venv = _venv_whose_doctor_says(tmp_path, verdicts)
    result = run_setup("--pick-backend", "--user", getpass.getuser(), venv=venv)
    assert result.returncode == 0, result.stderr
    assert f"chosen: {chosen} " in result.stdout or (
        chosen == "onnx" and "no backend passes" in result.stdout
    ), result.stdout
    for backend in ("ncnn", "onnx", "opencv"):
        line = f"   {backend}: passes"
        assert (line in result.stdout) == ('"passed": true' in verdicts.get(backend, ""))


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
    (["--backend", "tensorflow"], "backend must be auto, ncnn, onnx or opencv"),
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


# The failures a director can meet before anything is installed (issue 30 item 2): each stops
# with a plain reason and changes nothing. The system is stubbed (commands first in PATH, the
# os-release file), so these run in a second on any machine; the whole install runs under ARM64
# emulation in tests/test_pi_install_emulated.py (`make test-pi`).

BOOKWORM = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_CODENAME=bookworm\n'
# Commands that change the system: each stub records its call, and none may be called.
CHANGERS = ("apt-get", "usermod", "systemctl", "runuser", "install", "chown", "useradd", "tee")


def _stub(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def run_stubbed(tmp_path: Path, *args: str, uid: int = 0, arch: str = "arm64",
                os_release: str = BOOKWORM, free_kb: int = 8_000_000, online: bool = True,
                ) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """setup.sh as root (or `uid`) on a stubbed system; returns the run and the system-changing
    commands it called."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    _stub(bin_dir, "id", f'case "$1" in -u) echo {uid} ;; -un) echo someone ;; *) exit 0 ;; esac')
    _stub(bin_dir, "dpkg", f'[ "$1" = --print-architecture ] && echo {arch}')
    _stub(bin_dir, "dpkg-query", "exit 1")  # nothing installed yet
    _stub(bin_dir, "df", "echo 'Filesystem 1024-blocks Used Available Capacity Mounted on'\n"
                         f"echo '/dev/mmcblk0p2 30000000 1000 {free_kb} 1% /'")
    _stub(bin_dir, "timeout", "exec \"$@\"" if online else "exit 1")  # the network probe
    for name in CHANGERS:
        _stub(bin_dir, name, f'echo "{name} $*" >>{calls}; exit 0')
    release = tmp_path / "os-release"
    release.write_text(os_release)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "GINTRAY_VENV": str(tmp_path / "venv"),
           "GINTRAY_OS_RELEASE": str(release)}
    result = subprocess.run(["bash", str(SETUP), "--user", "nobody", *args], capture_output=True,
                            text=True, env=env, timeout=30, check=False)
    return result, calls.read_text().splitlines() if calls.exists() else []


def _refused(result: subprocess.CompletedProcess[str], calls: list[str], message: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert message in result.stderr, result.stderr
    assert calls == [], f"changed the system before refusing: {calls}"


def test_not_root_is_refused_before_anything_changes(tmp_path):
    result, calls = run_stubbed(tmp_path, uid=1000)
    _refused(result, calls, "run as root: sudo ")
    assert "nothing was changed" in result.stderr


BULLSEYE = 'PRETTY_NAME="Debian GNU/Linux 11 (bullseye)"\nID=debian\nVERSION_CODENAME=bullseye\n'
UBUNTU = 'PRETTY_NAME="Ubuntu 24.04 LTS"\nID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=noble\n'
FEDORA = 'PRETTY_NAME="Fedora Linux 40"\nID=fedora\n'
NOT_BOOKWORM = "; the kit is made and checked for Raspberry Pi OS Bookworm"


@pytest.mark.parametrize("arch, os_release, message", [
    ("armhf", BOOKWORM, "this is the 32-bit Raspberry Pi OS (armhf): onnxruntime and ncnn have "
                        "no 32-bit wheels; flash Raspberry Pi OS Lite (64-bit)"),
    ("amd64", BOOKWORM, "this computer is amd64, not a 64-bit Raspberry Pi"),
    ("arm64", BULLSEYE, "this is Debian GNU/Linux 11 (bullseye)" + NOT_BOOKWORM),
    ("arm64", UBUNTU, "this is Ubuntu 24.04 LTS" + NOT_BOOKWORM),
    ("arm64", FEDORA, "this is Fedora Linux 40, not Raspberry Pi OS"),
])
def test_wrong_os_is_refused_with_what_it_is(tmp_path, arch, os_release, message):
    result, calls = run_stubbed(tmp_path, arch=arch, os_release=os_release)
    _refused(result, calls, "wrong system: " + message)
    assert "--skip-os-check tries anyway" in result.stderr


def test_skip_os_check_goes_on_to_the_next_check(tmp_path):
    result, calls = run_stubbed(tmp_path, "--skip-os-check", arch="armhf", free_kb=100_000)
    assert "going on (--skip-os-check)" in result.stdout
    _refused(result, calls, "not enough free space")


def test_no_space_is_refused_with_the_figures(tmp_path):
    result, calls = run_stubbed(tmp_path, free_kb=300 * 1024)
    _refused(result, calls, "not enough free space: 300 MB free for ")
    assert "the install needs about 1500 MB" in result.stderr
    assert "sudo apt-get clean" in result.stderr


def test_no_network_is_refused_with_what_to_check(tmp_path):
    result, calls = run_stubbed(tmp_path, online=False)
    _refused(result, calls, "no network: cannot reach pypi.org")
    assert "ping -c 1 pypi.org" in result.stderr


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_no_network_for_real_in_an_empty_network_namespace(tmp_path):
    """The same refusal with the probe really failing: a network namespace with no interface
    up (`unshare -rn`), and nothing stubbed but the OS, root and the disk."""
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("no unprivileged network namespace here: " + probe.stderr.decode().strip())
    run_stubbed(tmp_path)  # builds the stubs; the real run is below
    bin_dir = tmp_path / "bin"
    (bin_dir / "timeout").unlink()  # the real timeout and /dev/tcp
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "GINTRAY_VENV": str(tmp_path / "venv"),
           "GINTRAY_OS_RELEASE": str(tmp_path / "os-release")}
    offline = subprocess.run(["unshare", "-rn", "bash", str(SETUP), "--user", "nobody"],
                             capture_output=True, text=True, env=env, timeout=60, check=False)
    calls_file = tmp_path / "calls"
    _refused(offline, calls_file.read_text().splitlines() if calls_file.exists() else [],
             "no network: cannot reach pypi.org")
