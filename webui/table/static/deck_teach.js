// "Teach this table its deck": take the camera's picture of the laid-out deck, show every card
// with the name it will be taught, fix a misplaced card by tapping it, save the deck profile.
(function () {
  "use strict";
  const root = document.getElementById("deck-teach");
  if (!root) return;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const grid = document.getElementById("deck-grid");
  const summary = document.getElementById("deck-summary");
  const fix = document.getElementById("deck-fix");
  const fixName = document.getElementById("deck-fix-name");
  const fixPlace = document.getElementById("deck-fix-place");
  const saveButton = document.getElementById("deck-save");
  const lookButton = document.getElementById("deck-look");
  let names = {};  // place -> the card it is taught as (found cards only)
  let chosen = null;  // the place being fixed

  async function post(url, body) {
    const resp = await fetch(url, {
      method: "POST", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
    });
    const data = await resp.json().catch(() => ({}));
    if (!resp.ok) throw new Error((data.error && data.error.message) || "Error " + resp.status);
    return data;
  }

  function label(cell, place) {
    const name = names[place];
    cell.querySelector(".name").textContent = name;
    cell.classList.toggle("fixed", name !== place);
    cell.title = name === place ? place : `${name} (at ${place}'s place)`;
  }

  function show(data) {
    grid.innerHTML = "";
    names = {};
    for (const p of data.places) {
      const cell = document.createElement("button");
      cell.type = "button";
      cell.className = "deck-card";
      cell.dataset.place = p.place;
      if (p.found) {
        names[p.place] = p.card;
        const img = document.createElement("img");
        img.src = p.picture;
        img.alt = "the card at " + p.place + "'s place";
        cell.appendChild(img);
      } else {
        cell.classList.add("missing");
        cell.disabled = true;
      }
      const name = document.createElement("span");
      name.className = "name";
      name.textContent = p.found ? p.card : p.place + ": not found";
      cell.appendChild(name);
      if (p.found) cell.addEventListener("click", () => choose(p.place));
      grid.appendChild(cell);
    }
    summary.textContent = `${data.found} of 52 cards found` +
      (data.missing.length ? `; not found: ${data.missing.join(" ")} (the shipped models read them)` : "") +
      ". Tap a card to rename it.";
    saveButton.hidden = false;
  }

  function choose(place) {
    chosen = place;
    fixPlace.textContent = place;
    fixName.innerHTML = "";
    for (const p of grid.querySelectorAll(".deck-card")) {
      const option = document.createElement("option");
      option.value = option.textContent = p.dataset.place;
      fixName.appendChild(option);
    }
    fixName.value = names[place];
    grid.querySelectorAll(".deck-card").forEach((c) => c.classList.toggle("chosen", c.dataset.place === place));
    fix.hidden = false;
    fixName.focus();
  }

  fixName.addEventListener("change", () => {
    if (!chosen) return;
    names[chosen] = fixName.value;
    label(grid.querySelector(`.deck-card[data-place="${chosen}"]`), chosen);
  });

  lookButton.addEventListener("click", async () => {
    lookButton.disabled = true;
    summary.textContent = "Looking for the cards…";
    try { show(await post(root.dataset.lookUrl, {})); }
    catch (err) { summary.textContent = err.message; summary.className = "error"; return; }
    finally { lookButton.disabled = false; }
    summary.className = "";
  });

  saveButton.addEventListener("click", async () => {
    saveButton.disabled = true;
    summary.textContent = "Teaching the deck…";
    try {
      const data = await post(root.dataset.saveUrl, { names });
      summary.className = "";
      summary.textContent = `Deck saved: ${data.cards} cards taught in ${data.cpu_seconds.toFixed(1)} s; ` +
        (data.adapted ? `${data.adapted} the shipped eye misread are now read as taught; `
                      : "the shipped eye read every card right, so nothing is read otherwise; ") +
        "the table's camera reads with it now.";
      document.getElementById("deck-status").textContent = "This table reads with the deck taught here: " + data.path;
      fix.hidden = true;
      let doubts = 0;
      for (const r of data.readings) {  // how the taught deck reads each card of the picture
        const cell = grid.querySelector(`.deck-card[data-place="${r.place}"]`);
        if (!cell) continue;
        let line = cell.querySelector(".read");
        if (!line) { line = document.createElement("span"); line.className = "read"; cell.appendChild(line); }
        line.textContent = `reads ${r.read} ${Math.round(r.sure * 100)}%`;
        cell.classList.toggle("doubt", r.doubt);
        doubts += r.doubt ? 1 : 0;
      }
      summary.textContent += doubts ? ` ${doubts} cards read with doubt: check them and teach again.` :
        " It reads every card of the picture surely.";
    } catch (err) { summary.textContent = err.message; summary.className = "error"; }
    finally { saveButton.disabled = false; }
  });
})();
