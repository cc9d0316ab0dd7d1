// gintray camera mount: a pole beside the table, an arm over the play area, a camera plate
// looking straight down, and the card tray with its up-card slot and ArUco marker pockets.
//
// Printed: base, arm_clamp, camera_plate, tray. Bought: a 20 x 20 mm square pole and arm
// (2020 aluminium extrusion or a hardwood dowel), M5 and M2 screws. The maths behind the
// camera height is in README.md and optics.py (same formulas; tests check they agree).
//
// Render one part:  openscad -D 'part="camera_plate"' -o camera_plate.stl gintray_mount.scad
// Parts: "assembly" and "parts" (previews), "base", "arm_clamp", "camera_plate", "tray", "none".

/* [What to render] */
part = "assembly"; // [assembly, parts, base, arm_clamp, camera_plate, tray, none]

/* [Camera] */
camera = "cm3"; // [cm3, cm3_wide, webcam]
// Lens height above the table (mm); 0 = the lowest height that covers the play area + 10%
// (but not above the highest that keeps corners readable).
camera_height = 0;

/* [Table] */
// Play area the camera must see: both players' spreads and the tray (mm).
area_width = 600;  // along the players' spreads (the image's long side)
area_depth = 400;  // from one player to the other
// Corner index width (mm) and the detector's minimum corner width (px), see README.md.
corner_mm = 6.5;
min_corner_px = 20;
// Space between the pole and the play area's edge (mm).
pole_clearance = 60;

/* [Tray] */
// Width grows by itself when the slot and marker pockets need more (echoed as GINTRAY tray=).
// The stock pile lies beside the tray: the reader takes the up-card slot to be the space
// between markers 4 and 5 (vision.table.layout.layout_from_markers), so nothing else goes there.
tray_width = 0;
tray_depth = 120;
card_w = 63.5;    // poker size; bridge cards are 57 mm wide
card_h = 88.9;
marker_mm = 40;   // printed ArUco markers (vision.table.markers.marker_sheet): black square side

/* [Hardware] */
pole = 20;        // square pole and arm section (mm)
fit = 0.4;        // clearance of sockets around the pole
wall = 4;
m5 = 4.3;         // M5 thumbscrews cut their own thread in PLA/PETG (6.4 for heat-set inserts)
m2 = 1.8;         // M2 self-tapping screws hold the camera board on its standoffs

/* [Camera boards] */
// Pi Camera Module 3 (standard and wide): 25 x 24 mm board, M2 holes on a 21 x 12.5 mm
// rectangle 2 mm from the top edge, lens centred 12.5 mm from the side and about 9.5 mm from
// the top (check against Raspberry Pi's mechanical drawing before printing).
cm3_board = [25, 24];
cm3_holes = [21, 12.5];
cm3_hole_from_top = 2;
cm3_lens_from_top = 9.5;
// Generic USB webcam with its clip removed: a 1/4"-20 tripod screw through the plate and a strap.
webcam_body = [95, 30, 25];
tripod_hole = 6.6;

$fn = 48;
eps = 0.01;

// ---------------------------------------------------------------- optics (README.md)
hfov = camera == "cm3_wide" ? 102 : camera == "webcam" ? 70.4 : 66;
vfov = camera == "cm3_wide" ? 67 : camera == "webcam" ? 43.3 : 41;
px_across = camera == "webcam" ? 1920 : 4608;

function cover(fov, h) = 2 * h * tan(fov / 2);
h_min = max(area_width / (2 * tan(hfov / 2)), area_depth / (2 * tan(vfov / 2)));
h_max = px_across * corner_mm / (min_corner_px * 2 * tan(hfov / 2));
height = camera_height > 0 ? camera_height : max(h_min, min(1.1 * h_min, h_max));
px_per_mm = px_across / cover(hfov, height);

// ---------------------------------------------------------------- geometry
sock = pole + fit;
clamp = [sock + 2 * wall, sock + 2 * wall + 30, sock + 2 * wall + 10];
plate = camera == "webcam" ? [webcam_body[0] + 2 * wall, 50, 4] : [40, 40, 4];
// lens below the plate: standoff + board + lens housing (CM3), or half the webcam body
lens_below_plate = camera == "webcam" ? webcam_body[2] / 2 : 3 + 11.5;
plate_drop = plate[2] + wall + sock / 2 + lens_below_plate;  // arm axis to lens
arm_reach = area_width / 2 + pole_clearance;                 // pole axis to camera axis
arm_z = height + plate_drop;
base_size = 160;
base_t = 8;
socket_depth = 40;
pole_len = arm_z + clamp[2] / 2 - base_t;                        // cut length of the pole
arm_len = arm_reach - (sock / 2 + wall) + plate[1] / 2;          // cut length of the arm

echo(str("GINTRAY camera=", camera, " hfov=", hfov, " vfov=", vfov));
echo(str("GINTRAY h_min=", round(h_min), " h_max=", round(h_max), " height=", round(height)));
echo(str("GINTRAY px_per_mm=", round(px_per_mm * 100) / 100,
         " corner_px=", round(corner_mm * px_per_mm * 10) / 10));
echo(str("GINTRAY cut pole=", round(pole_len), " arm=", round(arm_len)));
if (height < h_min) echo("GINTRAY WARNING: camera too low to see the whole play area");
if (height > h_max) echo("GINTRAY WARNING: camera too high: corners below the detector's minimum");

module rounded_plate(size, r = 4) {
    linear_extrude(size[2])
        offset(r) offset(-r) square([size[0], size[1]], center = true);
}

// Base: screws to a board (or is G-clamped to the table) and holds the pole upright.
module base() {
    difference() {
        union() {
            rounded_plate([base_size, base_size, base_t], 10);
            translate([0, 0, base_t - eps])
                linear_extrude(socket_depth) square(sock + 2 * wall, center = true);
        }
        translate([0, 0, base_t]) linear_extrude(socket_depth + 1) square(sock, center = true);
        // thumbscrew locking the pole
        translate([0, 0, base_t + socket_depth / 2]) rotate([0, 90, 0])
            cylinder(d = m5, h = sock + 2 * wall + 2);
        for (x = [-1, 1], y = [-1, 1])
            translate([x * (base_size / 2 - 15), y * (base_size / 2 - 15), -1])
                cylinder(d = 5, h = base_t + 2);
    }
}

// Clamp: slides on the pole (vertical hole); the arm goes into its side socket (+y).
module arm_clamp() {
    difference() {
        translate([-clamp[0] / 2, -clamp[0] / 2, 0]) cube(clamp);
        translate([0, 0, -1]) linear_extrude(clamp[2] + 2) square(sock, center = true);
        translate([0, sock / 2 + wall, clamp[2] / 2]) rotate([-90, 0, 0])
            linear_extrude(clamp[1]) square(sock, center = true);
        // thumbscrews: one into the pole, one down onto the arm
        translate([-clamp[0], 0, clamp[2] / 2]) rotate([0, 90, 0]) cylinder(d = m5, h = clamp[0]);
        translate([0, sock / 2 + wall + 15, clamp[2] / 2]) cylinder(d = m5, h = clamp[2]);
    }
}

// Camera plate: slides onto the arm's end (sleeve on top) and holds the camera face down
// underneath, lens on the plate's vertical axis.
module camera_plate() {
    difference() {
        union() {
            rounded_plate(plate, 3);
            translate([0, 0, plate[2] - eps])
                linear_extrude(sock + 2 * wall) square([sock + 2 * wall, plate[1]], center = true);
            if (camera != "webcam")
                mirror([0, 0, 1]) cm3_hole_pattern() cylinder(d = 5, h = 3);  // standoffs
        }
        // arm channel along y
        translate([0, 0, plate[2] + wall + sock / 2]) rotate([90, 0, 0])
            linear_extrude(plate[1] + 2, center = true) square(sock, center = true);
        // thumbscrew locking the arm
        translate([0, plate[1] / 2 - 8, plate[2] + sock + wall - 1]) cylinder(d = m5, h = wall + 2);
        if (camera == "webcam") {
            translate([0, 0, -1]) cylinder(d = tripod_hole, h = plate[2] + 2);
            for (x = [-1, 1]) // strap slots either side of the body
                translate([x * (webcam_body[0] / 2 - 5), 0, -1])
                    linear_extrude(plate[2] + 2) square([4, 30], center = true);
        } else {
            translate([0, 0, -4]) cm3_hole_pattern() cylinder(d = m2, h = plate[2] + 5);
        }
    }
}

// The board's M2 holes relative to its lens centre (the lens sits on the plate axis).
module cm3_hole_pattern() {
    dy = cm3_lens_from_top - cm3_hole_from_top;  // top hole row above the lens
    for (x = [-1, 1], y = [0, 1])
        translate([x * cm3_holes[0] / 2, dy - y * cm3_holes[1], 0]) children();
}

// Tray: the up-card slot (read by the camera) and pockets for markers 4 (left) and 5 (right)
// with their white quiet zone (1/6 of the marker each side).
tray_slot = [card_w + 3, card_h + 3];
tray_pocket = marker_mm * 4 / 3;
tray_rim = 6;
tray_needed = 2 * (tray_slot[0] / 2 + 2 + tray_pocket + tray_rim);
tray_w = max(tray_width, tray_needed);
echo(str("GINTRAY tray=", round(tray_w), "x", tray_depth));
if (tray_depth < tray_slot[1] + 2 * tray_rim || tray_depth < tray_pocket + 2 * tray_rim)
    echo("GINTRAY WARNING: tray too shallow for a card slot");

module tray() {
    t = 3;
    difference() {
        rounded_plate([tray_w, tray_depth, t + 2], 6);
        // shallow recess for the up card, and a finger notch to pick it up
        translate([0, 0, t]) linear_extrude(3)
            offset(2) square([tray_slot[0] - 4, tray_slot[1] - 4], center = true);
        translate([0, -tray_slot[1] / 2, t]) cylinder(d = 20, h = 3);
        // marker pockets at both ends (id 4 left, id 5 right), 1 mm deep for the printed paper
        for (x = [-1, 1])
            translate([x * (tray_w / 2 - tray_rim - tray_pocket / 2), 0, t + 1])
                linear_extrude(2) square(tray_pocket, center = true);
    }
}

// ---------------------------------------------------------------- assembly (preview)
module play_area() {
    color([0.1, 0.45, 0.2]) translate([0, 0, -2]) linear_extrude(2)
        square([area_width + 200, area_depth + 300], center = true);
    color([1, 1, 1, 0.35]) linear_extrude(0.5) square([area_width, area_depth], center = true);
    // table corner markers 0..3 (TL, TR, BR, BL)
    for (c = [[-1, 1], [1, 1], [1, -1], [-1, -1]])
        color("black")
            translate([c[0] * (area_width / 2 - marker_mm / 2), c[1] * (area_depth / 2 - marker_mm / 2), 0.5])
                linear_extrude(0.5) square(marker_mm, center = true);
}

module view_cone() {
    w = cover(hfov, height);
    d = cover(vfov, height);
    color([1, 0.8, 0.2, 0.18]) hull() {
        translate([0, 0, height]) cylinder(d = 2, h = 1);
        linear_extrude(0.2) square([w, d], center = true);
    }
}

module assembly() {
    play_area();
    color([0.8, 0.7, 0.5]) translate([0, 0, 0.5]) tray();
    view_cone();
    translate([-arm_reach, 0, 0]) {
        color("orange") base();
        color("silver") translate([0, 0, base_t]) linear_extrude(pole_len) square(pole, center = true);
        color("orange") translate([0, 0, arm_z - clamp[2] / 2]) rotate([0, 0, -90]) arm_clamp();
        color("silver") translate([sock / 2 + wall, 0, arm_z]) rotate([0, 90, 0])
            linear_extrude(arm_len) square(pole, center = true);
    }
    color("orange") translate([0, 0, arm_z - (plate[2] + wall + sock / 2)]) rotate([0, 0, 90])
        camera_plate();
}

// The four printed parts side by side, as printed (preview).
module parts() {
    color("orange") translate([-220, 0, 0]) base();
    color("orange") translate([-90, 0, 0]) arm_clamp();
    color("orange") translate([-20, 0, 0]) camera_plate();
    color([0.8, 0.7, 0.5]) translate([160, 0, 0]) tray();
}

if (part == "assembly") assembly();
else if (part == "parts") parts();
else if (part == "base") base();
else if (part == "arm_clamp") arm_clamp();
else if (part == "camera_plate") camera_plate();
else if (part == "tray") tray();
else if (part != "none") echo(str("GINTRAY ERROR: unknown part ", part));
