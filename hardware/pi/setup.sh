#!/usr/bin/env bash
# gintray on a Raspberry Pi 4/5 (Raspberry Pi OS Bookworm, 64-bit): system packages, a virtual
# environment that can see Debian's picamera2, the app, and a systemd unit that starts it on boot.
#
#   sudo hardware/pi/setup.sh [--camera SOURCE] [--port N] [--user NAME]
#                             [--backend auto|ncnn|onnx|opencv]
#   hardware/pi/setup.sh --print-unit     # show the unit it would install; changes nothing
#   hardware/pi/setup.sh --pick-backend   # the doctor with each backend, the choice; changes nothing
#
# Safe to run again (after a `git pull`, or to change the camera, port or backend): every step
# checks what is already there. `gintray doctor` reads a bundled frame and says whether the card
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

install_packages() {
  local missing=()
  local pkg
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "== system packages already installed"
    return
  fi
  echo "== installing ${missing[*]}"
  apt-get update
  # --no-install-recommends keeps picamera2's desktop preview (Qt, OpenGL) off a Lite image.
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
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
  chown -R "$RUN_USER": "$VENV"
}

install_app() {
  echo "== installing gintray from $SRC (no torch: the Pi runs the NCNN or ONNX detector)"
  as_user "$VENV/bin/python" -m pip install --upgrade pip
  as_user "$VENV/bin/python" -m pip install -e "$SRC"
  # pip's numpy 2 shadows Debian's numpy 1.24, which python3-simplejpeg (imported by picamera2)
  # is built against; a simplejpeg wheel from PyPI matches the venv's numpy
  # (https://github.com/raspberrypi/picamera2/issues/1211).
  if as_user "$VENV/bin/python" -c 'import numpy, sys; sys.exit(int(numpy.__version__.split(".")[0]) < 2)'; then
    as_user "$VENV/bin/python" -m pip install --upgrade simplejpeg
  fi
  if ! as_user "$VENV/bin/python" -c 'import picamera2' 2>/dev/null; then
    if [[ "$CAMERA" == picamera:* ]]; then
      as_user "$VENV/bin/python" -c 'import picamera2' || true
      die "picamera2 does not import in $VENV (see the error above)"
    fi
    echo "   (picamera2 not importable; fine for camera '$CAMERA')"
  fi
  local model
  for model in gintray-corners.onnx gintray-corners.ncnn.param gintray-corners.ncnn.bin \
               gintray-namer.onnx; do
    [ -f "$SRC/models/$model" ] \
      || echo "   WARNING: $SRC/models/$model is missing: the page runs, the camera cannot read cards"
  done
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
  usermod -a -G video "$RUN_USER"
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
  [ "$(id -u)" = 0 ] || die "run as root: sudo $0 $*"
  id "$RUN_USER" >/dev/null 2>&1 || die "user '$RUN_USER' does not exist (use --user NAME)"
  [ "$RUN_USER" != root ] || die "refusing to run the web app as root; pass --user NAME"
  if ! grep -qi 'raspberry pi' /proc/device-tree/model 2>/dev/null; then
    echo "   note: this does not look like a Raspberry Pi; continuing anyway"
  fi
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
