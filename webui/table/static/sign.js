// Signature pads on the signing page (vendored signature_pad, no CDN), and the page kept
// live: when the game changes (the other player signs; a change voids a signature) the page
// is redrawn, keeping a signature being drawn while the sheet it covers stays the same.
(function () {
  "use strict";
  function initPads(root) {
    root.querySelectorAll("section.signature").forEach((section) => {
      const canvas = section.querySelector("canvas.pad");
      if (!canvas || section._pad) return;
      const pad = new SignaturePad(canvas, { penColor: "#102a6b", minWidth: 1.2, maxWidth: 3.2 });
      section._pad = pad;
      const form = section.querySelector("form.sign-form");
      function fit() {
        const ratio = Math.max(window.devicePixelRatio || 1, 1);
        const data = pad.toData();
        canvas.width = canvas.offsetWidth * ratio;
        canvas.height = canvas.offsetHeight * ratio;
        canvas.getContext("2d").scale(ratio, ratio);
        pad.clear();
        pad.fromData(data);
      }
      window.addEventListener("resize", fit);
      fit();
      form.querySelector("button.clear").addEventListener("click", () => pad.clear());
      form.addEventListener("submit", (ev) => {
        if (pad.isEmpty()) {
          ev.preventDefault();
          alert("Please sign in the box first.");
          return;
        }
        form.querySelector('input[name="png"]').value = pad.toDataURL("image/png");
      });
    });
  }
  initPads(document);

  const live = document.getElementById("sign-live");
  if (!live || !window.EventSource || !window.gintrayLive || !live.dataset.eventsUrl) return;
  const inked = (section) => Boolean(section._pad && !section._pad.isEmpty());
  async function redraw() {
    const resp = await fetch(location.href, { headers: { Accept: "text/html" } });
    if (!resp.ok) return;
    const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
    const fresh = doc.getElementById("sign-live");
    if (!fresh) return;
    const keep = fresh.dataset.sheet === live.dataset.sheet
      ? Array.from(live.querySelectorAll("section.signature")).filter(inked) : [];
    keep.forEach((old) => {  // a signature being drawn on the same sheet stays as it is
      const slot = fresh.querySelector(`section.signature[data-player="${old.dataset.player}"]`);
      if (slot && slot.querySelector("canvas.pad")) slot.replaceWith(old);
    });
    live.replaceChildren(...fresh.childNodes);
    live.dataset.sheet = fresh.dataset.sheet;
    live.dataset.seq = fresh.dataset.seq;
    live.dataset.redrawn = String(Number(live.dataset.redrawn || 0) + 1);
    initPads(live);
  }
  window.gintrayLive(live.dataset.eventsUrl, (seq) => {
    live.dataset.live = "on";
    // the message sent on (re)connect carries the seq the page was drawn at when nothing
    // changed meanwhile: redrawing then would swap the pad under a finger about to sign
    if (String(seq) === live.dataset.seq) return;
    redraw().catch(() => {});
  });
})();
