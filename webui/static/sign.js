// Signature pads on the signing page (vendored signature_pad, no CDN).
(function () {
  "use strict";
  document.querySelectorAll("section.signature").forEach((section) => {
    const canvas = section.querySelector("canvas.pad");
    if (!canvas) return;
    const pad = new SignaturePad(canvas, { penColor: "#102a6b", minWidth: 1.2, maxWidth: 3.2 });
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
})();
