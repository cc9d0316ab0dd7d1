// Card picker of the correction form: each player's 52 cards as buttons, a tap puts a card into
// the chosen group (meld 1-3 or other cards) or takes it out. It writes the same text fields a
// player can type into ("8C 8D 8S | 2H 3H 4H"), and typing redraws it: both ways stay in step.
(function () {
  "use strict";
  const SUITS = [["C", "♣", "clubs"], ["D", "♦", "diamonds"], ["H", "♥", "hearts"], ["S", "♠", "spades"]];
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
  const RANK_WORDS = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
  const GROUPS = [["0", "Meld 1"], ["1", "Meld 2"], ["2", "Meld 3"], ["loose", "Other cards"]];

  function code(text) {
    const t = text.trim().toUpperCase().replace(/^10/, "T");
    return /^[A2-9TJQK][CDHS]$/.test(t) ? t : null;
  }

  function cardsOf(text) {
    return text.split(/[\s,]+/).map(code).filter(Boolean);
  }

  // {melds: [[...], [...], [...]], loose: [...]} from the player's two text fields
  function read(fieldset) {
    const melds = fieldset.querySelector("input[name^=melds_]").value.split("|").map(cardsOf)
      .filter((g) => g.length);
    while (melds.length < 3) melds.push([]);
    return { melds: melds, loose: cardsOf(fieldset.querySelector("input[name^=cards_]").value) };
  }

  function write(fieldset, hand) {
    fieldset.querySelector("input[name^=melds_]").value = hand.melds.filter((g) => g.length)
      .map((g) => g.join(" ")).join(" | ");
    fieldset.querySelector("input[name^=cards_]").value = hand.loose.join(" ");
  }

  function groupOf(hand, card) {
    for (let i = 0; i < hand.melds.length; i++) if (hand.melds[i].includes(card)) return String(i);
    return hand.loose.includes(card) ? "loose" : null;
  }

  function draw(form) {
    const sets = Array.from(form.querySelectorAll("fieldset.hand-cards"));
    const hands = sets.map(read);
    sets.forEach((fieldset, n) => {
      const hand = hands[n];
      const others = new Set(hands.filter((_, m) => m !== n)
        .flatMap((h) => [...h.melds.flat(), ...h.loose]));
      const picker = fieldset.querySelector(".picker");
      const target = picker.dataset.target || "loose";
      picker.querySelectorAll("button.group").forEach((b) => {
        b.setAttribute("aria-pressed", String(b.dataset.group === target));
      });
      picker.querySelectorAll("button.pick").forEach((b) => {
        const group = groupOf(hand, b.dataset.card);
        b.dataset.in = group === null ? "" : group;
        b.setAttribute("aria-pressed", String(group !== null));
        b.disabled = group === null && others.has(b.dataset.card);  // the other player holds it
        const where = group === null ? "" : group === "loose" ? " (other cards)" : ` (meld ${+group + 1})`;
        b.setAttribute("aria-label", b.dataset.words + where);
        b.querySelector(".badge").textContent = group === null ? "" : group === "loose" ? "•" : String(+group + 1);
      });
      const count = hand.melds.flat().length + hand.loose.length;
      picker.querySelector(".count").textContent = `${count} card${count === 1 ? "" : "s"}`;
    });
  }

  function build(fieldset) {
    const picker = document.createElement("div");
    picker.className = "picker";
    picker.dataset.target = "loose";
    const groups = document.createElement("div");
    groups.className = "groups";
    groups.innerHTML = '<span class="muted">Tap cards into:</span> ';
    GROUPS.forEach(([id, label]) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "group";
      b.dataset.group = id;
      b.textContent = label;
      groups.appendChild(b);
    });
    const count = document.createElement("span");
    count.className = "count muted";
    groups.appendChild(count);
    picker.appendChild(groups);
    SUITS.forEach(([suit, symbol, name]) => {
      const row = document.createElement("div");
      row.className = "suit";
      RANKS.forEach((rank) => {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "pick" + (suit === "D" || suit === "H" ? " red" : "");
        b.dataset.card = rank + suit;
        b.dataset.words = `${RANK_WORDS[rank] || rank} of ${name}`;
        b.innerHTML = `${rank === "T" ? "10" : rank}${symbol}<span class="badge"></span>`;
        row.appendChild(b);
      });
      picker.appendChild(row);
    });
    fieldset.appendChild(picker);
  }

  function tap(form, fieldset, button) {
    const picker = fieldset.querySelector(".picker");
    if (button.classList.contains("group")) {
      picker.dataset.target = button.dataset.group;
      draw(form);
      return;
    }
    const hand = read(fieldset);
    const card = button.dataset.card;
    const group = groupOf(hand, card);
    hand.melds = hand.melds.map((g) => g.filter((c) => c !== card));
    hand.loose = hand.loose.filter((c) => c !== card);
    const target = picker.dataset.target;
    if (group !== target) {  // not in the chosen group yet: put it there (moved if elsewhere)
      if (target === "loose") hand.loose.push(card); else hand.melds[+target].push(card);
    }
    write(fieldset, hand);
    form.classList.add("dirty");
    draw(form);
  }

  // Build the pickers of every correction form under `root` (the panel is redrawn live).
  window.gintrayPickers = function (root) {
    root.querySelectorAll("form.correction").forEach((form) => {
      if (form.dataset.picker) return;
      form.dataset.picker = "1";
      form.querySelectorAll("fieldset.hand-cards").forEach((fieldset) => {
        build(fieldset);
        fieldset.addEventListener("click", (ev) => {
          const button = ev.target.closest("button.pick, button.group");
          if (button) tap(form, fieldset, button);
        });
      });
      form.addEventListener("input", () => { form.classList.add("dirty"); draw(form); });
      draw(form);
    });
  };
  window.gintrayPickers(document);
})();
