// One alert box for both apps' pages, read out by screen readers (role="alert"): the table
// page's toast (app.js) and the hall's offline banner (hall.js) are both shown with it.
"use strict";

// Show `text` in the alert box `id` (made on first use, at the top of the page when `atTop`,
// else at its end) with the class `className`; the box is returned for the caller's timers.
window.gintrayAlert = function (id, text, className, atTop) {
  let box = document.getElementById(id);
  if (!box) {
    box = document.createElement("div");
    box.id = id;
    box.setAttribute("role", "alert");
    if (atTop) document.body.prepend(box); else document.body.appendChild(box);
  }
  box.className = className;
  box.textContent = text;
  box.hidden = false;
  return box;
};
