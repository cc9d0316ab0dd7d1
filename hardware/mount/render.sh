#!/usr/bin/env bash
# Render the mount with OpenSCAD (Debian: apt-get install openscad; xvfb for the PNGs on a
# headless machine): printable STLs into OUT_DIR (default hardware/mount/build/) and the
# preview PNGs into hardware/mount/images/. Extra arguments go to openscad, for example
#   hardware/mount/render.sh -D 'camera="cm3_wide"' -D area_width=500
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SCAD="$HERE/gintray_mount.scad"
OUT_DIR="${OUT_DIR:-$HERE/build}"
mkdir -p "$OUT_DIR" "$HERE/images"

command -v openscad >/dev/null 2>&1 || { echo "render.sh: openscad is not installed" >&2; exit 1; }

for part in base arm_clamp camera_plate tray; do
  echo "== $part.stl"
  openscad "$@" -D "part=\"$part\"" -o "$OUT_DIR/$part.stl" "$SCAD"
done

# PNG previews need an OpenGL context: use a virtual X server when there is no display.
run_gl=()
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null 2>&1; then
  run_gl=(xvfb-run -a)
fi
"${run_gl[@]}" openscad "$@" -D 'part="assembly"' --preview --imgsize=1200,900 --viewall \
  --autocenter --camera=0,0,0,60,0,35,0 --projection=p --colorscheme=Tomorrow \
  -o "$HERE/images/assembly.png" "$SCAD"
"${run_gl[@]}" openscad "$@" -D 'part="parts"' --preview --imgsize=1200,500 \
  --camera=-10,0,0,50,0,0,700 --colorscheme=Tomorrow -o "$HERE/images/parts.png" "$SCAD"
echo "STLs in $OUT_DIR, previews in $HERE/images"
