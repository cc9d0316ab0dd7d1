#!/usr/bin/env bash
# gintray on a Raspberry Pi 4/5 (Raspberry Pi OS Bookworm, 64-bit): system packages, a virtual
# environment that can see Debian's picamera2, the app, and a systemd unit that starts it on boot.
#
#   sudo hardware/pi/setup.sh [--camera SOURCE] [--port N] [--user NAME]
#                             [--backend auto|ncnn|onnx|opencv] [--skip-os-check]
#   hardware/pi/setup.sh --print-unit     # show the unit it would install; changes nothing
#   hardware/pi/setup.sh --pick-backend   # the doctor with each backend, the choice; changes nothing
#
# Safe to run again (after a `git pull`, or to change the camera, port or backend): every step
# checks what is already there, and a second run downloads and changes nothing. Before changing
# anything it stops with a plain reason when the system is not Raspberry Pi OS Bookworm 64-bit
# (--skip-os-check tries anyway), when it is not run as root, and, when something must be
# downloaded, when the network or the free space is missing. `gintray doctor` reads a bundled frame and says whether the card
# reader reads right on this Pi; with --backend auto (the default) it runs for each backend and
# the service gets the fastest one that passes (GINTRAY_BACKEND in the unit; --print-unit shows
# onnx for auto, the choice is made at install). See hardware/README.md for the whole kit.
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
UNIT_TEMPLATE="$SRC/hardware/pi/gintray.service"
UNIT_PATH="/etc/systemd/system/gintray.service"
VENV="${GINTRAY_VENV:-/opt/gintray/venv}"
CAMERA="${GINTRAY_CAMERA:-picamera:0}"
PORT="${GINTRAY_PORT:-5000}"
BACKEND="${GINTRAY_BACKEND:-auto}"  # the detector backend (see vision/README.md), or auto
# auto: each of these is checked by `gintray doctor` and the fastest that passes is used (NCNN is
# expected first on a Pi: hardware/pi/detector_formats.md); onnx if none passes
AUTO_BACKENDS=(ncnn onnx opencv)
# The service runs as the owner of the checkout (the app is installed editable from it).
RUN_USER="${GINTRAY_USER:-$(stat -c %U "$SRC")}"
PRINT_UNIT=0
PICK_ONLY=0
SKIP_OS_CHECK=0
OS_RELEASE="${GINTRAY_OS_RELEASE:-/etc/os-release}"  # another file only in tests
# Free space a first install needs (MB) where the venv goes and where apt and pip download:
# the emulated install's footprint with a margin (hardware/README.md, "Install time and size").
NEED_MB=1500
# The app's wheels come from PyPI (aarch64 wheels only: nothing is built from source).
PYPI_HOST=pypi.org
# What the installed venv was made from; a second run with the same stamp skips pip entirely.
STAMP_FILE=".gintray-install"

# Debian packages. python3-picamera2 (with libcamera's Python bindings) comes from the Raspberry Pi
# archive and cannot be pip-installed usefully, hence the venv's --system-site-packages.
# Not installed on purpose: python3-opencv (pip's opencv-python wheel is newer and has cv2.aruco;
# the venv copy shadows any system one) and libcap-dev (only needed to pip-build python-prctl,
# which the apt picamera2 already brings). libgl1/libglib2.0-0: opencv-python's shared libraries
# load them, and Raspberry Pi OS Lite lacks libGL. avahi-daemon: tablets reach HOST.local.
APT_PACKAGES=(python3-venv python3-picamera2 libgl1 libglib2.0-0 avahi-daemon)

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

die() {
  echo "setup.sh: $*" >&2
  exit 1
}

need_value() {
  if [ $# -lt 2 ] || [[ "$2" == -* ]]; then
    die "$1 needs a value"
  fi
}

parse_args() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --camera) need_value "$@"; CAMERA="$2"; shift 2 ;;
      --port) need_value "$@"; PORT="$2"; shift 2 ;;
      --user) need_value "$@"; RUN_USER="$2"; shift 2 ;;
      --backend) need_value "$@"; BACKEND="$2"; shift 2 ;;
      --print-unit) PRINT_UNIT=1; shift ;;
      --pick-backend) PICK_ONLY=1; shift ;;
      --skip-os-check) SKIP_OS_CHECK=1; shift ;;
      -h|--help) usage; exit 0 ;;
      *) die "unknown option '$1' (try --help)" ;;
    esac
  done
  if ! [[ "$PORT" =~ ^[0-9]+$ ]] || [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then
    die "port must be a number from 1 to 65535, not '$PORT'"
  fi
  [[ "$CAMERA" =~ ^[A-Za-z0-9:/._?=\&@%+-]+$ ]] \
    || die "camera source '$CAMERA' has characters a unit file cannot carry"
  [[ "$RUN_USER" =~ ^[a-z_][a-z0-9_-]*$ ]] || die "'$RUN_USER' is not a valid user name"
  [[ "$BACKEND" =~ ^(auto|ncnn|onnx|opencv)$ ]] \
    || die "backend must be auto, ncnn, onnx or opencv, not '$BACKEND'"
  local path
  for path in "$SRC" "$VENV"; do
    [[ "$path" =~ ^/[A-Za-z0-9/._+-]*$ ]] \
      || die "path '$path' must be absolute, without spaces or special characters"
  done
}

render_unit() {
  # Fill the template's @KEY@ placeholders (values validated in parse_args). In the camera source,
  # '&' is escaped for sed and '%' doubled, since systemd reads %x as a specifier.
  local camera="${CAMERA//%/%%}"
  camera="${camera//&/\\&}"
  local backend="$BACKEND"
  [ "$backend" != auto ] || backend=onnx  # auto is resolved by choose_backend before installing
  sed -e "s|@USER@|$RUN_USER|g" -e "s|@SRC@|$SRC|g" -e "s|@VENV@|$VENV|g" \
      -e "s|@CAMERA@|$camera|g" -e "s|@PORT@|$PORT|g" -e "s|@BACKEND@|$backend|g" \
      "$UNIT_TEMPLATE"
}

check_os() {
  # Raspberry Pi OS (64-bit) Bookworm is Debian bookworm for arm64 plus the Raspberry Pi archive.
  local id="" like="" codename="" pretty="" arch
  if [ -r "$OS_RELEASE" ]; then
    # shellcheck disable=SC1090  # os-release is shell variable assignments by definition
    id="$(. "$OS_RELEASE"; echo "${ID:-}")"
    # shellcheck disable=SC1090
    like="$(. "$OS_RELEASE"; echo "${ID_LIKE:-}")"
    # shellcheck disable=SC1090
    codename="$(. "$OS_RELEASE"; echo "${VERSION_CODENAME:-}")"
    # shellcheck disable=SC1090
    pretty="$(. "$OS_RELEASE"; echo "${PRETTY_NAME:-}")"
  fi
  arch="$(dpkg --print-architecture 2>/dev/null || uname -m)"
  local wrong=""
  if [[ " $id $like " != *" debian "* ]] || ! command -v apt-get >/dev/null 2>&1; then
    wrong="this is ${pretty:-$(uname -sm)}, not Raspberry Pi OS (a Debian with apt-get)"
  elif [ "$arch" != arm64 ]; then
    case "$arch" in
      armhf|armel) wrong="this is the 32-bit Raspberry Pi OS ($arch): onnxruntime and ncnn have no 32-bit wheels; flash Raspberry Pi OS Lite (64-bit)" ;;
      *) wrong="this computer is $arch, not a 64-bit Raspberry Pi (arm64)" ;;
    esac
  elif [ "$codename" != bookworm ]; then
    wrong="this is ${pretty:-Debian $codename}; the kit is made and checked for Raspberry Pi OS Bookworm (64-bit)"
  fi
  [ -n "$wrong" ] || return 0
  if [ "$SKIP_OS_CHECK" = 1 ]; then
    echo "   note: $wrong; going on (--skip-os-check)"
    return 0
  fi
  die "wrong system: $wrong. Nothing was changed. (--skip-os-check tries anyway.)"
}

missing_packages() {
  local pkg
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
      || echo "$pkg"
  done
}

app_stamp() {
  # What the app install depends on: the project's dependency list, where the checkout is, and
  # the pip options below. A change (a `git pull` with new dependencies) installs again.
  { sha256sum "$SRC/pyproject.toml" | cut -d' ' -f1; echo "$SRC only-binary"; } | sha256sum \
    | cut -d' ' -f1
}

app_installed() {
  [ -x "$VENV/bin/gintray" ] && [ "$(cat "$VENV/$STAMP_FILE" 2>/dev/null)" = "$(app_stamp)" ]
}

free_mb() {
  # Free space (MB) on the file system that holds $1 (or its nearest existing parent).
  local dir="$1"
  while [ ! -e "$dir" ]; do dir="$(dirname "$dir")"; done
  df -Pk "$dir" | awk 'NR == 2 { print int($4 / 1024) }'
}

check_space() {
  local dir free
  for dir in "$(dirname "$VENV")" /var/cache/apt; do
    free="$(free_mb "$dir")"
    if [ -n "$free" ] && [ "$free" -lt "$NEED_MB" ]; then
      die "not enough free space: ${free} MB free for $dir, the install needs about ${NEED_MB} MB. Free some (sudo apt-get clean; old files), or use a bigger SD card (16 GB or more), then run this again. Nothing was changed."
    fi
  done
}

reachable() {
  # A TCP connection to $1:$2 within 10 s (name resolution included).
  # shellcheck disable=SC2016  # $0 and $1 are the inner shell's arguments
  timeout 10 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
}

check_network() {
  reachable "$PYPI_HOST" 443 \
    || die "no network: cannot reach $PYPI_HOST (the app's packages come from there). Connect the Pi to the internet (the Wi-Fi set in Raspberry Pi Imager, or a network cable; check with: ping -c 1 $PYPI_HOST), then run this again. Nothing was changed."
}

preflight() {
  # Everything that can stop the install is checked before anything changes.
  check_os
  local todo=()
  [ -z "$(missing_packages)" ] || todo+=(packages)
  app_installed || todo+=(app)
  if [ ${#todo[@]} -gt 0 ]; then
    check_space
    check_network
  fi
}

install_packages() {
  local missing=()
  mapfile -t missing < <(missing_packages)
  if [ ${#missing[@]} -eq 0 ]; then
    echo "== system packages already installed"
    return
  fi
  echo "== installing ${missing[*]}"
  # --error-on=any: a package list that did not download is an error, not a warning
  apt-get update --error-on=any \
    || die "apt-get update failed (see above): the package archive cannot be reached or read. Check the network and the date (date -s if the clock is far off), then run this again."
  # --no-install-recommends keeps picamera2's desktop preview (Qt, OpenGL) off a Lite image.
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" \
    || die "apt-get could not install ${missing[*]} (see above). On anything but Raspberry Pi OS, python3-picamera2 does not exist (it comes from archive.raspberrypi.com)."
}

make_venv() {
  local cfg="$VENV/pyvenv.cfg"
  if [ -f "$cfg" ] && ! grep -qi '^include-system-site-packages *= *true' "$cfg"; then
    echo "== $VENV cannot see system packages (picamera2): recreating it"
    rm -rf "$VENV"
  fi
  if [ ! -x "$VENV/bin/python" ]; then
    echo "== creating $VENV (with --system-site-packages)"
    mkdir -p "$(dirname "$VENV")"
    python3 -m venv --system-site-packages "$VENV"
  fi
  if [ -n "$(find "$VENV" ! -user "$RUN_USER" -print -quit)" ]; then
    chown -R "$RUN_USER": "$VENV"
  fi
}

pip_install() {
  # Wheels only (aarch64 wheels exist for every dependency; a build from source on a Pi takes
  # hours and needs compilers): the checkout itself is the one local build.
  as_user "$VENV/bin/python" -m pip install --only-binary=:all: "$@" \
    || die "pip could not install $* (see above): no network, no space, or no wheel for this Pi. Run this again when fixed; finished steps are kept."
}

install_app() {
  if app_installed; then
    echo "== gintray already installed in $VENV (same dependencies; nothing to download)"
  else
    echo "== installing gintray from $SRC (no torch: the Pi runs the NCNN or ONNX detector)"
    pip_install --upgrade pip
    pip_install -e "$SRC"
    # pip's numpy 2 shadows Debian's numpy 1.24, which python3-simplejpeg (imported by
    # picamera2) is built against; a simplejpeg wheel from PyPI matches the venv's numpy
    # (https://github.com/raspberrypi/picamera2/issues/1211).
    if as_user "$VENV/bin/python" -c 'import numpy, sys; sys.exit(int(numpy.__version__.split(".")[0]) < 2)'; then
      pip_install --upgrade simplejpeg
    fi
    app_stamp | as_user tee "$VENV/$STAMP_FILE" >/dev/null
  fi
  if ! as_user "$VENV/bin/python" -c 'import picamera2' 2>/dev/null; then
    if [[ "$CAMERA" == picamera:* ]]; then
      as_user "$VENV/bin/python" -c 'import picamera2' || true
      die "picamera2 does not import in $VENV (see the error above)"
    fi
    echo "   (picamera2 not importable; fine for camera '$CAMERA')"
  fi
  check_models
}

check_models() {
  # The run-time model files against the sha256 recorded with the doctor's reference readings
  # (vision/demo/doctor_reference.json): a missing, truncated or Git LFS pointer file is named.
  echo "== model files (sha256 against vision/demo/doctor_reference.json)"
  python3 - "$SRC" <<'PY' || echo "   WARNING: the page runs, but the camera cannot read cards right until the model files are fixed (git checkout models/ or clone again)"
import hashlib, json, pathlib, sys
src = pathlib.Path(sys.argv[1])
expected = {}
for backend in json.loads((src / "vision/demo/doctor_reference.json").read_text())["backends"].values():
    expected.update(backend["models"])
bad = 0
for name, digest in sorted(expected.items()):
    path = src / "models" / name
    if not path.is_file():
        print(f"   {name}: MISSING")
        bad += 1
        continue
    data = path.read_bytes()
    got = hashlib.sha256(data).hexdigest()[:16]
    if got == digest:
        print(f"   {name}: ok ({len(data) / 1e6:.1f} MB, sha256 {got})")
    elif data.startswith(b"version https://git-lfs"):
        print(f"   {name}: a Git LFS pointer, not the model (run: git lfs pull)")
        bad += 1
    else:
        print(f"   {name}: DAMAGED or not the shipped file (sha256 {got}, expected {digest})")
        bad += 1
sys.exit(1 if bad else 0)
PY
}

as_user() {
  if [ "$(id -un)" = "$RUN_USER" ]; then
    "$@"
  else
    local home
    home="$(getent passwd "$RUN_USER" | cut -d: -f6)"
    runuser -u "$RUN_USER" -- env HOME="$home" "$@"
  fi
}

install_unit() {
  local tmp
  tmp="$(mktemp)"
  render_unit >"$tmp"
  # the camera's group; usermod rewrites /etc/group even when nothing changes, so only if needed
  id -nG "$RUN_USER" | tr ' ' '\n' | grep -qx video || usermod -a -G video "$RUN_USER"
  if [ -f "$UNIT_PATH" ] && cmp -s "$tmp" "$UNIT_PATH"; then
    echo "== $UNIT_PATH unchanged"
    rm -f "$tmp"
  else
    echo "== writing $UNIT_PATH"
    install -m 0644 "$tmp" "$UNIT_PATH"
    rm -f "$tmp"
    systemctl daemon-reload
  fi
  systemctl enable gintray.service
  # restart (not just start) so a re-run picks up a new checkout, camera or port
  systemctl restart gintray.service
}

check_camera() {
  if command -v rpicam-hello >/dev/null 2>&1; then
    echo "== cameras seen by libcamera:"
    rpicam-hello --list-cameras 2>&1 | sed 's/^/   /' || true
  fi
  [[ "$CAMERA" == picamera:* ]] || return 0
  local count
  count="$(as_user "$VENV/bin/python" -c 'from picamera2 import Picamera2; print(len(Picamera2.global_camera_info()))' 2>/dev/null)" \
    || count="?"
  if [ "$count" = 0 ]; then
    echo "== NO CAMERA ATTACHED: libcamera sees no camera. Switch the Pi off, connect the camera"
    echo "   cable (Pi 5: the 22-pin end at the CAM/DISP port, contacts facing the right way), boot"
    echo "   and run this again. The page runs meanwhile and says the camera is unavailable."
  elif [ "$count" = "?" ]; then
    echo "== could not ask picamera2 for the cameras (see: $VENV/bin/python -c 'import picamera2')"
  else
    echo "== $count camera(s) attached (libcamera)"
  fi
}

doctor_ms() {
  # Prints the check frame's read time (ms) when `gintray doctor --backend $1` passes; fails when
  # it misreads or cannot load.
  local report
  report="$(as_user "$VENV/bin/gintray" doctor --backend "$1" --json 2>/dev/null | tail -n 1)" \
    || return 1
  as_user "$VENV/bin/python" -c '
import json, sys
report = json.loads(sys.argv[1])
sys.exit(print(report["frame_ms"]) if report.get("passed") else 1)' "$report" 2>/dev/null
}

choose_backend() {
  # --backend auto: the fastest backend whose doctor passes on this CPU goes into the unit.
  [ "$BACKEND" = auto ] || return 0
  echo "== choosing the detector backend: gintray doctor with each, the fastest that passes"
  local best="" best_ms="" candidate ms
  for candidate in "${AUTO_BACKENDS[@]}"; do
    if ms="$(doctor_ms "$candidate")"; then
      echo "   $candidate: passes, $ms ms a check frame"
      if [ -z "$best" ] || awk -v a="$ms" -v b="$best_ms" 'BEGIN { exit !(a < b) }'; then
        best="$candidate"
        best_ms="$ms"
      fi
    else
      echo "   $candidate: does not pass on this CPU (or cannot load)"
    fi
  done
  if [ -n "$best" ]; then
    BACKEND="$best"
    echo "   chosen: $BACKEND (GINTRAY_BACKEND in $UNIT_PATH)"
  else
    BACKEND=onnx
    echo "   WARNING: no backend passes; the service runs onnx (the doctor below says why)"
  fi
}

run_doctor() {
  # Reads a bundled frame whose cards are known and compares it with the reference reading; the
  # app runs either way (scores can be entered by hand), but a failure is said loudly.
  echo "== checking the card reader on this CPU (gintray doctor --backend $BACKEND)"
  if as_user "$VENV/bin/gintray" doctor --backend "$BACKEND" | sed 's/^/   /'; then
    return
  fi
  echo
  echo "   WARNING: the card reader does not read right on this Pi with the $BACKEND backend."
  echo "   The table page says so too. Try another backend:"
  echo "     sudo $SRC/hardware/pi/setup.sh --backend $([ "$BACKEND" = onnx ] && echo opencv || echo onnx)"
}

print_access() {
  local host addrs
  host="$(hostname)"
  addrs="$(hostname -I 2>/dev/null || true)"
  echo
  echo "gintray is running (systemctl status gintray; journalctl -u gintray -f)."
  echo "On a tablet on the same network, open:"
  echo "   http://$host.local:$PORT/"
  local ip
  for ip in $addrs; do
    case "$ip" in
      *:*) ;;  # skip IPv6 here; the .local name covers it
      *) echo "   http://$ip:$PORT/" ;;
    esac
  done
  echo "then join the table with the PIN or QR code shown on the table's page."
}

main() {
  parse_args "$@"
  if [ "$PRINT_UNIT" = 1 ]; then
    render_unit
    return
  fi
  if [ "$PICK_ONLY" = 1 ]; then
    BACKEND=auto
    choose_backend
    return
  fi
  [ "$(id -u)" = 0 ] || die "run as root: sudo $0 $*  (nothing was changed)"
  id "$RUN_USER" >/dev/null 2>&1 || die "user '$RUN_USER' does not exist (use --user NAME)"
  [ "$RUN_USER" != root ] || die "refusing to run the web app as root; pass --user NAME"
  if ! grep -qi 'raspberry pi' /proc/device-tree/model 2>/dev/null; then
    echo "   note: this does not look like a Raspberry Pi; continuing anyway"
  fi
  preflight
  install_packages
  make_venv
  install_app
  check_camera
  choose_backend
  install_unit
  run_doctor
  print_access
}

main "$@"
