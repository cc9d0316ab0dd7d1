// Calibration: tap the corners of the up-card slot and of each player's area on the picture.
(function () {
  "use strict";
  const root = document.getElementById("calibrate");
  if (!root) return;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const img = document.getElementById("calib-image");
  const svg = document.getElementById("calib-overlay");
  const colors = { up_card_slot: "#ffcc00", A: "#00c0ff", B: "#ff4da6" };
  let regions = { up_card_slot: [], A: [], B: [] };
  let current = "up_card_slot";
  const saved = JSON.parse(root.dataset.current || "null");
  if (saved) {
    regions.up_card_slot = saved.up_card_slot || [];
    regions.A = (saved.areas || {}).A || [];
    regions.B = (saved.areas || {}).B || [];
  }

  function draw() {
    const w = img.naturalWidth, h = img.naturalHeight;
    if (!w) return;
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    svg.innerHTML = "";
    for (const [name, pts] of Object.entries(regions)) {
      if (!pts.length) continue;
      const poly = document.createElementNS("http://www.w3.org/2000/svg", "polygon");
      poly.setAttribute("points", pts.map((p) => p.join(",")).join(" "));
      poly.setAttribute("fill", colors[name] + "44");
      poly.setAttribute("stroke", colors[name]);
      poly.setAttribute("stroke-width", Math.max(2, w / 300));
      svg.appendChild(poly);
      pts.forEach((p) => {
        const c = document.createElementNS("http://www.w3.org/2000/svg", "circle");
        c.setAttribute("cx", p[0]); c.setAttribute("cy", p[1]); c.setAttribute("r", Math.max(4, w / 150));
        c.setAttribute("fill", colors[name]);
        svg.appendChild(c);
      });
    }
  }

  function message(text, isError) {
    const box = window.gintrayAlert("toast", text, isError ? "error show" : "show", false);
    setTimeout(() => { box.className = ""; }, 6000);
  }

  root.querySelectorAll("button[data-region]").forEach((b) => b.addEventListener("click", () => {
    current = b.dataset.region;
    root.querySelectorAll("button[data-region]").forEach((o) => o.classList.toggle("primary", o === b));
  }));
  document.getElementById("clear-region").addEventListener("click", () => { regions[current] = []; draw(); });
  svg.addEventListener("click", (ev) => {
    const rect = svg.getBoundingClientRect();
    const x = (ev.clientX - rect.left) * img.naturalWidth / rect.width;
    const y = (ev.clientY - rect.top) * img.naturalHeight / rect.height;
    regions[current].push([Math.round(x), Math.round(y)]);
    draw();
  });

  async function send(body) {
    const resp = await fetch(root.dataset.saveUrl, {
      method: "POST", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
    });
    const data = await resp.json().catch(() => ({}));
    if (!resp.ok) { message((data.error && data.error.message) || "Error " + resp.status, true); return; }
    const layout = data.layout;
    regions = { up_card_slot: layout.up_card_slot, A: layout.areas.A || [], B: layout.areas.B || [] };
    draw();
    if (data.notice) {  // the picture was a mirror image: the camera now flips it back
      message(data.notice, false);
      const frameUrl = img.src.split("?")[0];
      let tries = 30;  // the restarted camera's first flipped frame may take a moment
      const reload = () => { if (tries-- > 0) img.src = frameUrl + "?t=" + Date.now(); };
      img.addEventListener("error", () => setTimeout(reload, 1000));
      setTimeout(reload, 1000);
      return;
    }
    message("Layout saved: the camera reads the table with it now.", false);
  }
  document.getElementById("save-layout").addEventListener("click", () => send({
    up_card_slot: regions.up_card_slot, areas: { A: regions.A, B: regions.B },
    image_size: [img.naturalWidth, img.naturalHeight],
  }));
  document.getElementById("from-markers").addEventListener("click", () => send({ from_markers: true }));
  if (img.complete) draw(); else img.addEventListener("load", draw);
})();
