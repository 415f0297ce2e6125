// The strategy's advice under the board: follows the state game.js shows (its "dicekeeper:state" event).
// Hiding it is this device's choice for this view, kept in localStorage; the server never hears of it.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const panel = $("advice");
  if (!panel) return;
  const config = JSON.parse($("game-config").textContent);
  const storageKey = `dicekeeper.advice.hidden.${panel.dataset.view || "table"}`;
  const ACTIONS = { throw: "roll on", bank: "bank", piggyback: "take over the dice" };

  const points = (value) => (value === null || value === undefined ? "—"
    : Number.isInteger(value) ? String(value) : value.toFixed(1));
  const percent = (chance) => `${(chance * 100).toFixed(1)}%`;
  const dice = (count) => (count === 1 ? "1 die" : `${count} dice`);
  const escapeHtml = (text) => String(text).replace(/[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

  function readHidden() {
    try { return localStorage.getItem(storageKey) === "1"; } catch (e) { return false; }
  }

  let hidden = readHidden();

  function setHidden(value) {
    hidden = value;
    try {
      if (hidden) localStorage.setItem(storageKey, "1"); else localStorage.removeItem(storageKey);
    } catch (e) { /* private mode: the choice lasts until the page is left */ }
    applyHidden(hidden);
  }

  function applyHidden(hidden) {
    $("advice-body").hidden = hidden;
    panel.classList.toggle("collapsed", hidden);
    const toggle = $("advice-toggle");
    toggle.textContent = hidden ? "Show" : "Hide";
    toggle.setAttribute("aria-expanded", String(!hidden));
  }

  function who(state) {
    const player = state.players[state.current];
    const name = escapeHtml(player.name);
    return player.computer && config.source === "virtual" ? `${name} (plays by itself)` : name;
  }

  function drawBeforeThrow(state, advice) {
    const best = advice.advice;
    panel.dataset.action = best.action;
    $("advice-summary").innerHTML = `${who(state)}: <span class="advice-best">${ACTIONS[best.action]}</span>` +
      ` · expected ${points(best.expected)}`;
    const choices = [["throw", `roll ${dice(advice.dice)}`, best.expected_if_roll]];
    if (best.expected_if_bank !== null && best.expected_if_bank !== undefined) {
      choices.push(["bank", "bank now", best.expected_if_bank]);
    }
    if (best.expected_if_piggyback !== undefined) {
      choices.push(["piggyback", "take over the dice", best.expected_if_piggyback]);
    }
    $("advice-farkle").innerHTML = `Farkle chance of the ${dice(advice.dice)}: <strong id="advice-farkle-chance">` +
      `${percent(advice.farkle_chance)}</strong><br>` + choices.map(([kind, label, value]) =>
      `<span class="advice-choice${kind === best.action ? " pick" : ""}" data-choice="${kind}">${label}: ${points(value)}</span>`
    ).join(" · ");
    $("advice-keeps").hidden = true;
  }

  function drawKeeps(state, advice) {
    const best = advice.advice;
    const bestKeep = advice.keeps.find((k) => k.best);
    panel.dataset.action = best.then ? `keep-${best.then}` : "keep";
    const then = best.then ? `, then ${ACTIONS[best.then]}` : (bestKeep && bestKeep.instant_win ? ": wins at once" : "");
    $("advice-summary").innerHTML = `${who(state)}: <span class="advice-best">keep ${best.dice.join("-")}${then}</span>` +
      ` · expected ${points(best.expected)}`;
    $("advice-farkle").innerHTML = bestKeep
      ? `After that keep, the farkle chance of the next ${dice(bestKeep.dice_next)}: <strong id="advice-farkle-chance">` +
        `${percent(bestKeep.farkle_next)}</strong>` : "";
    $("advice-keeps").querySelector("tbody").innerHTML = advice.keeps.map((k) => {
      const roll = k.instant_win ? "wins" : points(k.expected_if_roll);
      const bank = k.expected_if_bank === null ? "not allowed" : points(k.expected_if_bank);
      const pick = (kind) => (k.best && best.then === kind ? ' class="pick"' : "");
      return `<tr${k.best ? ' class="best"' : ""} data-dice="${k.dice.join(",")}"><td>${k.dice.join("-")}</td>` +
        `<td>${k.points}</td><td>${percent(k.farkle_next)}</td><td${pick("throw")}>${roll}</td>` +
        `<td${pick("bank")}>${bank}</td></tr>`;
    }).join("");
    $("advice-keeps").hidden = false;
  }

  function draw(state) {
    const advice = state.advice;
    panel.dataset.version = String(state.version);
    if (!advice) {
      panel.dataset.action = "none";
      $("advice-summary").textContent = state.finished ? "The game is over." : "No advice for these rules.";
      $("advice-farkle").textContent = "";
      $("advice-keeps").hidden = true;
      return;
    }
    if (advice.throw) drawKeeps(state, advice); else drawBeforeThrow(state, advice);
  }

  $("advice-toggle").addEventListener("click", () => setHidden(!hidden));
  document.addEventListener("dicekeeper:state", (event) => draw(event.detail));
  applyHidden(hidden);
  draw(config.state);
})();
