// gintray table page: live refresh on server-sent events, forms posted without reloading.
(function () {
  "use strict";
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const panel = document.getElementById("panel");

  function requestId() {
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 12);
  }

  function toast(message, isError) {
    let box = document.getElementById("toast");
    if (!box) {
      box = document.createElement("div");
      box.id = "toast";
      box.setAttribute("role", "alert");
      document.body.appendChild(box);
    }
    box.textContent = message;
    box.className = isError ? "error show" : "show";
    clearTimeout(box._timer);
    box._timer = setTimeout(() => { box.className = ""; }, isError ? 8000 : 2500);
  }

  // A lost camera: its last picture is greyed, with the time it was seen, until it is back.
  function showCameraLost() {
    const lost = panel && panel.querySelector("#camera-lost");
    const view = document.getElementById("camera-view");
    const caption = document.getElementById("camera-caption");
    if (view) view.classList.toggle("stale", Boolean(lost));
    if (caption) {
      const seen = lost ? lost.dataset.lastSeen : "";
      caption.textContent = seen ? "last seen " + seen : "";
    }
  }

  let refreshing = false;
  let pending = false;
  async function refresh() {
    if (!panel) return;
    const active = document.activeElement;
    if (active && panel.contains(active) && active.matches("input, select, textarea")) {
      pending = true;  // don't wipe what someone is typing; refresh when they leave the field
      return;
    }
    if (refreshing || panel.querySelector("form.dirty")) {
      pending = true;  // a correction is being made (typed or picked): keep it until sent
      return;
    }
    refreshing = true;
    try {
      // the revision shown until now: the page then says what changed since (not before)
      const shown = panel.querySelector("#proposal[data-revision]");
      const url = panel.dataset.panelUrl + (shown ? "?seen=" + shown.dataset.revision : "");
      const resp = await fetch(url, { headers: { Accept: "text/html" } });
      if (resp.ok) {
        const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
        const inner = doc.getElementById("panel");
        // read what is open now, not when the fetch began: a section opened meanwhile stays open
        const openDetails = Array.from(panel.querySelectorAll("details[open]")).map((d) => d.className);
        panel.innerHTML = inner ? inner.innerHTML : doc.body.innerHTML;
        openDetails.forEach((cls) => {
          const d = cls && panel.querySelector("details." + cls.split(" ")[0]);
          if (d) d.open = true;
        });
        if (window.gintrayPickers) window.gintrayPickers(panel);
        showCameraLost();
      }
    } finally {
      refreshing = false;
      if (pending) { pending = false; setTimeout(refresh, 50); }
    }
  }

  if (panel) {
    panel.addEventListener("focusout", () => { if (pending) { pending = false; setTimeout(refresh, 100); } });
    panel.addEventListener("toggle", (ev) => {  // a correction given up: show the table again
      const form = ev.target.querySelector && ev.target.querySelector("form.dirty");
      if (!ev.target.open && form) { form.classList.remove("dirty"); refresh(); }
    }, true);
    // A card read wrong: tap it, then the card it really is (the likely misreads: the same
    // rank in another suit, the next rank in the same suit). For a meld or deadwood card the
    // correction form's fields (melds, other cards, the layout seen) are rewritten with it and
    // sent; for the knock card, the knock card form is sent with it.
    const RANKS = "A23456789TJQK";
    const SUIT_SIGNS = { C: "♣", D: "♦", H: "♥", S: "♠" };
    const pretty = (c) => (c[0] === "T" ? "10" : c[0]) + SUIT_SIGNS[c[1]];
    function onTable(form) {
      const codes = new Set();
      form.querySelectorAll("input[name^=melds_], input[name^=cards_]").forEach((input) => {
        input.value.split(/[\s,|]+/).filter(Boolean).forEach((c) => codes.add(c.toUpperCase()));
      });
      return codes;
    }
    function misreads(card, taken) {
      const [rank, suit] = [card[0], card[1]];
      const out = Object.keys(SUIT_SIGNS).filter((s) => s !== suit).map((s) => rank + s);
      const at = RANKS.indexOf(rank);
      [at - 1, at + 1].filter((i) => i >= 0 && i < RANKS.length)
        .forEach((i) => out.push(RANKS[i] + suit));
      return out.filter((c) => !taken.has(c));
    }
    // the chooser's buttons: one a likely misread, each carrying `data` (who, which card)
    function offerMisreads(chooser, card, taken, data, elsewhere) {
      chooser.replaceChildren();
      const say = document.createElement("span");
      say.textContent = pretty(card) + " is really: ";
      chooser.append(say);
      misreads(card, taken).forEach((other) => {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "card-fix-choice swap";
        Object.assign(b.dataset, data, { card: card, other: other });
        b.textContent = pretty(other);
        chooser.append(b);
      });
      const more = document.createElement("span");
      more.className = "muted";
      more.textContent = " (another card: " + elsewhere + ")";
      chooser.append(more);
      chooser.hidden = false;
    }
    panel.addEventListener("click", (ev) => {
      const fix = ev.target.closest("button.card-fix");
      const knockFix = ev.target.closest("button.knock-fix");
      const choice = ev.target.closest("button.card-fix-choice");
      const form = panel.querySelector("form.correction");
      if (knockFix) {
        const chooser = panel.querySelector("#knock-fix-chooser");
        if (chooser) offerMisreads(chooser, knockFix.dataset.card, new Set(), { knock: "1" },
          "type it below");
      } else if (fix && form) {
        const chooser = panel.querySelector("#card-fix-chooser");
        if (chooser) offerMisreads(chooser, fix.dataset.card, onTable(form),
          { player: fix.dataset.player }, "\"Correct the cards\" below");
      } else if (choice && choice.dataset.knock) {
        const knockForm = panel.querySelector("form.knock-card-form");
        knockForm.querySelector("input[name=card]").value = choice.dataset.other;
        choice.parentElement.hidden = true;
        knockForm.requestSubmit();
      } else if (choice && form) {
        const { player, card, other } = choice.dataset;
        const swap = (text) => text.split(/(\s+|\|)/)
          .map((t) => (t.toUpperCase() === card ? other : t)).join("");
        ["melds_", "cards_", "layout_", "laid_off_"].forEach((name) => {
          const input = form.querySelector(`input[name="${name}${player}"]`);
          if (input) input.value = swap(input.value);
        });
        choice.parentElement.hidden = true;
        form.requestSubmit();
      }
    });
    panel.addEventListener("submit", async (ev) => {
      const form = ev.target;
      if (!form.classList.contains("api")) return;
      ev.preventDefault();
      form.classList.remove("dirty");
      const data = new URLSearchParams(new FormData(form));
      data.set("request_id", requestId());
      const buttons = form.querySelectorAll("button");
      buttons.forEach((b) => { b.disabled = true; });
      try {
        const resp = await fetch(form.action, {
          method: "POST", body: data,
          headers: { "X-CSRFToken": csrf, Accept: "application/json" },
        });
        const body = await resp.json().catch(() => ({}));
        if (!resp.ok) {
          toast((body.error && body.error.message) || ("Error " + resp.status), true);
        } else {
          toast(body.events && body.events.length ? "Saved." : "Nothing changed.", false);
        }
      } catch (err) {
        toast("No answer from the table's computer: try again.", true);
      } finally {
        buttons.forEach((b) => { b.disabled = false; });
        if (document.activeElement) document.activeElement.blur();
        refresh();
      }
    });
    if (window.EventSource && panel.dataset.eventsUrl) {
      const source = new EventSource(panel.dataset.eventsUrl);
      let first = true;
      source.addEventListener("change", (ev) => {
        const seq = JSON.parse(ev.data).seq;
        const shown = panel.querySelector("[data-seq]");
        // the first message on (re)connect only matters if we missed something meanwhile
        if (!first || !shown || String(seq) !== shown.dataset.seq) refresh();
        first = false;
      });
    }
  }
  // Forms outside the live panel (sheet page) post normally; nothing else to do here.
})();

// The MJPEG camera view ends after ten minutes on the server side: reconnect it before that.
(function () {
  "use strict";
  const view = document.getElementById("camera-view");
  if (!view || !/\.mjpg/.test(view.src)) return;
  const base = view.src.split("?")[0];
  const reconnect = () => { view.src = base + "?t=" + Date.now(); };
  view.addEventListener("error", () => setTimeout(reconnect, 3000));
  setInterval(reconnect, 9 * 60 * 1000);
})();
