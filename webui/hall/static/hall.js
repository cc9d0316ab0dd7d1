// The hall's scripts (a static file: the Content-Security-Policy allows no inline script).
"use strict";

// Refresh every element with a data-live URL from that URL, every data-every seconds
// (default 3): the director's tables, the projector (no library, no CDN).
(function refreshLive() {
  for (const box of document.querySelectorAll("[data-live]")) {
    const every = Number(box.dataset.every) || 3;
    setInterval(async () => {
      try {
        const r = await fetch(box.dataset.live, {headers: {"Accept": "text/html"}});
        if (r.ok) box.innerHTML = await r.text();
      } catch (e) { /* the page keeps the last view while the network is away */ }
    }, every * 1000);
  }
})();

// Count every round clock (data-ends-at, ISO time) down each second; the server's figure
// stays in the page for browsers without scripts. The clocks are looked up at each tick, so
// a refreshed section's clock counts too.
(function roundClocks() {
  const tick = () => {
    for (const el of document.querySelectorAll("[data-ends-at]")) {
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
