// gintray table page: live refresh on server-sent events, forms posted without reloading.
(function () {
  "use strict";
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const panel = document.getElementById("panel");

  function requestId() {
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 12);
  }

  function toast(message, isError) {
    const box = window.gintrayAlert("toast", message, isError ? "error show" : "show", false);
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

  // Forms a player is filling in (a field of it has focus, or something was typed or picked
  // into it: "dirty") are kept as they are when a live change redraws the panel: the rest is
  // redrawn around them, so focus, what was typed or chosen, an open list all stay. A form is
  // known again by its data-form name and its game and hand.
  const FIELDS = "input, select, textarea";
  function formKey(form) {
    const value = (name) => (form.elements[name] ? form.elements[name].value : "");
    return [form.dataset.form, value("game"), value("hand")].join("|");
  }
  function editedForms() {
    const active = document.activeElement;
    return Array.from(panel.querySelectorAll("form[data-form]")).filter((form) =>
      form.classList.contains("dirty") || (active && form.contains(active) && active.matches(FIELDS)));
  }
  // The elements from `root` (not included) down to `node`.
  function chainOf(node, root) {
    const out = [];
    for (let n = node; n && n !== root; n = n.parentElement) out.unshift(n);
    return out;
  }
  // The new version's attributes on an element kept (a section a player opened stays open).
  function copyAttributes(from, to) {
    Array.from(to.attributes).forEach((a) => {
      if (a.name !== "open" && !from.hasAttribute(a.name)) to.removeAttribute(a.name);
    });
    Array.from(from.attributes).forEach((a) => {
      if (a.name !== "open" && to.getAttribute(a.name) !== a.value) to.setAttribute(a.name, a.value);
    });
  }
  // Make `target`'s children those of `fresh`, except the elements `kept` maps to (an old
  // element for each new one): these stay the very nodes they are, never taken out of the page
  // (taking one out would drop its focus); `leaves` (the kept forms) keep their insides too.
  function graft(target, fresh, kept, leaves) {
    const wanted = Array.from(fresh.childNodes).map((node) => {
      const old = kept.get(node);
      if (!old) return node;
      if (!leaves.has(old)) {
        copyAttributes(node, old);
        graft(old, node, kept, leaves);
      }
      return old;
    });
    const stay = new Set(wanted.filter((node) => node.parentNode === target));
    Array.from(target.childNodes).forEach((node) => { if (!stay.has(node)) node.remove(); });
    let previous = null;
    wanted.forEach((node) => {
      if (!stay.has(node)) target.insertBefore(node, previous ? previous.nextSibling : target.firstChild);
      previous = node;
    });
  }
  // Redraw the panel from `fresh` (the new panel), keeping the forms being filled in; whether
  // one had to go (its hand is over: what was typed in it was not sent).
  function redraw(fresh) {
    const kept = new Map();
    const keptOld = new Set();
    const leaves = new Set();
    let lost = false;
    editedForms().forEach((form) => {
      const twin = Array.from(fresh.querySelectorAll("form[data-form]"))
        .find((f) => formKey(f) === formKey(form));
      const olds = chainOf(form, panel);
      const news = twin ? chainOf(twin, fresh) : [];
      const fits = twin && olds.length === news.length && news.every((n, i) =>
        n.tagName === olds[i].tagName && (kept.get(n) === olds[i] ||
          (!kept.has(n) && !keptOld.has(olds[i]))));
      if (!fits) {
        lost = lost || form.classList.contains("dirty");
        return;
      }
      news.forEach((n, i) => { kept.set(n, olds[i]); keptOld.add(olds[i]); });
      leaves.add(form);
    });
    graft(panel, fresh, kept, leaves);
    return lost;
  }

  let refreshing = false;
  let pending = false;
  async function refresh() {
    if (!panel) return;
    if (refreshing) {
      pending = true;  // one more once this one is in
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
        const inner = doc.getElementById("panel") || doc.body;
        // read what is open now, not when the fetch began: a section opened meanwhile stays open
        const openDetails = Array.from(panel.querySelectorAll("details[open]")).map((d) => d.className);
        const lost = redraw(inner);
        openDetails.forEach((cls) => {
          const d = cls && panel.querySelector("details." + cls.split(" ")[0]);
          if (d) d.open = true;
        });
        if (window.gintrayPickers) window.gintrayPickers(panel);
        showCameraLost();
        if (lost) toast("The hand moved on while you were filling in a form: what you typed was not sent.", true);
      }
    } finally {
      refreshing = false;
      if (pending) { pending = false; setTimeout(refresh, 50); }
    }
  }

  if (panel) {
    const markDirty = (ev) => {  // typed or chosen into: kept across live redraws until sent
      const form = ev.target.closest && ev.target.closest("form[data-form]");
      if (form) form.classList.add("dirty");
    };
    panel.addEventListener("input", markDirty);
    panel.addEventListener("change", markDirty);
    panel.addEventListener("toggle", (ev) => {  // a correction given up: show the table again
      const forms = ev.target.querySelectorAll ? ev.target.querySelectorAll("form.dirty") : [];
      if (!ev.target.open && forms.length) {
        forms.forEach((form) => form.classList.remove("dirty"));
        refresh();
      }
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
          form.classList.add("dirty");  // refused: what was typed stays, to be put right
          toast((body.error && body.error.message) || ("Error " + resp.status), true);
        } else {
          toast(body.events && body.events.length ? "Saved." : "Nothing changed.", false);
        }
      } catch (err) {
        form.classList.add("dirty");
        toast("No answer from the table's computer: try again.", true);
      } finally {
        buttons.forEach((b) => { b.disabled = false; });
        if (document.activeElement) document.activeElement.blur();
        refresh();
      }
    });
    if (window.gintrayLive && window.EventSource && panel.dataset.eventsUrl) {
      window.gintrayLive(panel.dataset.eventsUrl, (seq, how) => {
        const shown = panel.querySelector("[data-seq]");
        // the page's first message only matters if something changed since it was drawn;
        // after a pause the page catches up (the camera's status may have changed too)
        if (!how.first || how.resumed || !shown || String(seq) !== shown.dataset.seq) refresh();
        if (how.resumed && window.gintrayCamera) window.gintrayCamera();
      });
    }
  }
  // Forms outside the live panel (sheet page) post normally; nothing else to do here.
})();

// The MJPEG camera view: the server ends it after ten minutes (or when this tablet's newer
// page takes its place): reconnect it before that, after a failure (with a growing pause), and
// when the live updates come back after a pause (window.gintrayCamera).
(function () {
  "use strict";
  const view = document.getElementById("camera-view");
  if (!view || !/\.mjpg/.test(view.src)) return;
  const base = view.src.split("?")[0];
  let failures = 0;
  const reconnect = () => { view.src = base + "?t=" + Date.now(); };
  view.addEventListener("load", () => { failures = 0; });
  view.addEventListener("error", () => {
    failures += 1;
    setTimeout(reconnect, Math.min(15000, 1000 * 2 ** failures));
  });
  window.gintrayCamera = reconnect;
  setInterval(reconnect, 9 * 60 * 1000);
})();
