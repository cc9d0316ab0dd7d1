// The hall's scripts (a static file: the Content-Security-Policy allows no inline script).
"use strict";

// Refresh the tables every 3 seconds from the element's data-live URL (no library, no CDN).
(function refreshTables() {
  const box = document.getElementById("tables");
  if (!box || !box.dataset.live) return;
  setInterval(async () => {
    try {
      const r = await fetch(box.dataset.live, {headers: {"Accept": "text/html"}});
      if (r.ok) box.innerHTML = await r.text();
    } catch (e) { /* the hall keeps the last view while the network is away */ }
  }, 3000);
})();

// Count every round clock (data-ends-at, ISO time) down each second; the server's figure
// stays in the page for browsers without scripts.
(function roundClocks() {
  const clocks = document.querySelectorAll("[data-ends-at]");
  if (!clocks.length) return;
  const tick = () => {
    for (const el of clocks) {
      const left = Math.round((Date.parse(el.dataset.endsAt) - Date.now()) / 1000);
      const shown = Math.abs(left);
      const text = `${Math.floor(shown / 60)}:${String(shown % 60).padStart(2, "0")}`;
      el.textContent = left >= 0 ? `${text} left` : `time up ${text} ago`;
      el.classList.toggle("over", left < 0);
    }
  };
  tick();
  setInterval(tick, 1000);
})();
