// The hall's scripts (a static file: the Content-Security-Policy allows no inline script).
"use strict";

// The hall offline: an open page says so instead of going stale in
// silence. Every refresh (and the heartbeat of pages without one) asks with X-Hall-Live; a 503
// from the hall (the event database away) carries since when, which the banner shows ("Hall
// offline since 14:02:07 CET"); no answer at all (the hall's computer or the network away,
// or 8 s without a reply) shows the browser's time of the first miss. The next good answer
// says when the hall is back (the hall's own clock, X-Hall-Now) and the banner goes after a
// minute. The page keeps its last view meanwhile.
const hallOffline = (() => {
  let since = null;
  let banner = null;
  let hide = null;
  const show = (text, kind) => { banner = window.gintrayAlert("hall-offline", text, kind, true); };
  const browserTime = () => new Date().toLocaleTimeString([], {hour12: false});
  return {
    down(sinceText, why) {
      clearTimeout(hide);
      if (since === null) since = sinceText || browserTime();
      show(`Hall offline since ${since}: ${why} This page shows the event as it was then ` +
           "and updates by itself when the hall is back.", "offline");
    },
    up(nowText) {
      if (since === null) return;
      show(`Hall back online at ${nowText || browserTime()} (offline since ${since}).`, "back");
      since = null;
      hide = setTimeout(() => { banner.hidden = true; }, 60000);
    },
  };
})();

// One question to the hall: the response when it answered well, else null (and the banner
// says why when the hall is away).
async function askHall(url) {
  const stop = new AbortController();
  const late = setTimeout(() => stop.abort(), 8000);
  try {
    const r = await fetch(url, {headers: {"Accept": "text/html", "X-Hall-Live": "1"},
                                cache: "no-store", signal: stop.signal});
    if (r.status === 503) {
      let error = {};
      try { error = (await r.json()).error || {}; } catch (e) { /* not the hall's JSON */ }
      hallOffline.down(error.since_local, "the event database cannot be reached.");
      return null;
    }
    if (!r.ok) return null;  // logged out, say: not an outage
    hallOffline.up(r.headers.get("X-Hall-Now"));
    return r;
  } catch (e) {
    hallOffline.down(null, "the hall does not answer.");
    return null;
  } finally {
    clearTimeout(late);
  }
}

// Refresh every element with a data-live URL from that URL, every data-every seconds
// (default 3): the director's tables, the projector (no library, no CDN). A page without
// one asks the heartbeat (data-alive on this script) every 5 s; a data-reload element
// reloads its page every data-reload seconds, only while the hall answers (the board).
(function refreshLive(script) {
  const boxes = document.querySelectorAll("[data-live]");
  for (const box of boxes) {
    const every = Number(box.dataset.every) || 3;
    setInterval(async () => {
      const r = await askHall(box.dataset.live);
      if (r) box.innerHTML = await r.text();
    }, every * 1000);
  }
  const alive = script && script.dataset.alive;
  const reload = document.querySelector("[data-reload]");
  if (reload && alive) {
    setInterval(async () => {
      if (await askHall(alive)) window.location.reload();
    }, (Number(reload.dataset.reload) || 10) * 1000);
  } else if (!boxes.length && alive) {
    setInterval(() => askHall(alive), 5000);
  }
})(document.currentScript);

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
