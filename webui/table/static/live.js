// gintray live updates: a page's server-sent event stream, kept open (table page, table
// screen, signing page). A page that cannot stream (refused with 429: too many pages open;
// the table's computer out of reach; the stream ended) says so at the top ("Live updates
// paused, retrying…"), tries again after a growing pause (1 s up to 15 s) and catches up on
// what it missed once back. A stream handed to a newer page of this tablet waits until this
// page is looked at again (or "Resume here"); a tablet that left the table or was signed out
// stops, saying so. The server says why it ended a stream in its last message, `ended`.
(function () {
  "use strict";
  const PAUSES_MS = [1000, 2000, 4000, 8000, 15000];

  function statusBox() {
    let box = document.getElementById("live-status");
    if (!box) {
      box = document.createElement("div");
      box.id = "live-status";
      box.className = "live-status";
      box.setAttribute("role", "status");
      box.hidden = true;
      document.body.prepend(box);
    }
    return box;
  }

  // Say `text` at the top of the page, with a button doing `action.run` when given.
  function say(text, action) {
    const box = statusBox();
    const words = document.createElement("span");
    words.textContent = text;
    box.replaceChildren(words);
    if (action) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = action.label;
      button.addEventListener("click", action.run);
      box.append(" ", button);
    }
    box.hidden = false;
    document.body.dataset.live = "paused";
  }

  function sayLive() {
    statusBox().hidden = true;
    document.body.dataset.live = "on";
  }

  // Keep the event stream at `url` open. `onChange(seq, how)` gets each change message:
  // `how.first` for the page's very first one (nothing missed if `seq` is what the page
  // shows), `how.resumed` for the first after a pause (the page catches up, whatever `seq`).
  window.gintrayLive = function (url, onChange) {
    let source = null;
    let failures = 0;
    let timer = null;
    let first = true;
    let paused = false;
    let waitingForLook = false;

    function close() {
      clearTimeout(timer);
      timer = null;
      if (source) source.close();
      source = null;
    }

    function open() {
      close();
      waitingForLook = false;
      const stream = new EventSource(url);
      source = stream;
      stream.addEventListener("change", (ev) => {
        if (stream !== source) return;
        failures = 0;
        const how = { first: first, resumed: paused };
        first = false;
        paused = false;
        sayLive();
        onChange(JSON.parse(ev.data).seq, how);
      });
      stream.addEventListener("ended", (ev) => {
        if (stream !== source) return;
        close();
        const reason = JSON.parse(ev.data).reason;
        if (reason === "time") {
          open();  // its ten minutes are up: a new stream at once, nothing missed
        } else if (reason === "replaced") {
          paused = true;
          waitingForLook = true;
          say("Live updates paused: this tablet opened the table in another page.",
              { label: "Resume here", run: open });
        } else if (reason === "left") {
          paused = true;
          say("This tablet is no longer joined to the table (it left, or was signed out): " +
              "live updates stopped.", { label: "Join again", run: () => location.reload() });
        } else {
          retry();
        }
      });
      stream.addEventListener("error", () => {
        if (stream !== source) return;
        paused = true;
        if (stream.readyState === EventSource.CLOSED) {  // refused (429) or not a stream
          close();
          retry();
        } else {  // the connection dropped: the browser tries again by itself
          say("Live updates paused, reconnecting…");
        }
      });
    }

    function retry() {
      paused = true;
      const pause = PAUSES_MS[Math.min(failures, PAUSES_MS.length - 1)];
      failures += 1;
      say("Live updates paused, retrying…", { label: "Retry now", run: open });
      timer = setTimeout(open, pause * (0.8 + Math.random() * 0.4));
    }

    function lookedAt() {
      if (waitingForLook && document.visibilityState === "visible") open();
    }
    document.addEventListener("visibilitychange", lookedAt);
    // back to this page from the browser's back/forward cache: its stream was closed
    window.addEventListener("pageshow", (ev) => {
      if (ev.persisted) {
        paused = true;
        open();
      }
    });
    open();
  };
})();
