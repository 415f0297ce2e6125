// The live board of one game: renders the state, sends actions, follows the event stream.
"use strict";

(() => {
  const config = JSON.parse(document.getElementById("game-config").textContent);
  const $ = (id) => document.getElementById(id);

  let state = config.state;
  let selected = new Set();  // indices into state.throw
  let entry = [];            // faces typed for a manual throw
  let fixing = false;        // "Fix a die" mode
  let fixIndex = null;       // the die being corrected
  let busy = false;
  let typing = config.source === "manual";  // camera games type a throw only when asked to

  if (config.seat === null) {  // a seat's token cannot open the table view, so the history must not offer it
    try { localStorage.setItem(`dicekeeper.token.${config.id}`, config.token); } catch (e) { /* private mode */ }
  }

  // ---- dice --------------------------------------------------------------------------------------
  const PIPS = {
    1: [[50, 50]],
    2: [[27, 27], [73, 73]],
    3: [[27, 27], [50, 50], [73, 73]],
    4: [[27, 27], [73, 27], [27, 73], [73, 73]],
    5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
    6: [[27, 25], [73, 25], [27, 50], [73, 50], [27, 75], [73, 75]],
  };

  function dieSvg(face) {
    const pips = (PIPS[face] || []).map(([x, y]) => `<circle cx="${x}" cy="${y}" r="9"/>`).join("");
    return `<svg viewBox="0 0 100 100" aria-hidden="true"><rect x="4" y="4" width="92" height="92" rx="16"/>${pips}</svg>`;
  }

  function diceRow(faces) {
    return faces.map((f) => `<span class="mini-die" title="${f}">${dieSvg(f)}</span>`).join("");
  }

  const key = (faces) => [...faces].sort((a, b) => a - b).join(",");
  // The throw that "Fix a die" corrects: the one waiting for a keep, or the farkle just thrown.
  const fixableFaces = () => state.throw
    || (state.last_farkle && state.last_farkle.faces.length && !state.finished ? state.last_farkle.faces : null);
  const selectedFaces = () => [...selected].sort((a, b) => a - b).map((i) => state.throw[i]);
  const matchingKeep = () => {
    if (!state.throw || selected.size === 0) return null;
    const wanted = key(selectedFaces());
    return state.keeps.find((k) => key(k.dice) === wanted) || null;
  };

  // ---- talking to the server -------------------------------------------------------------------------
  function say(text, isError = false) {
    const box = $("message");
    box.textContent = text || "";
    box.classList.toggle("error", Boolean(isError));
  }

  async function act(action, body = {}) {
    if (busy) return null;
    busy = true;
    render();
    try {
      const response = await fetch(`/api/games/${config.id}/${action}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${config.token}` },
        body: JSON.stringify({ ...body, version: state.version }),
      });
      const data = await response.json();
      if (response.ok) {
        say("");
        show(data);
        return data;
      }
      if (response.status === 409) {
        show(data.state);
        say("Someone else acted first; the game is up to date now, try again.", true);
      } else {
        say(data.error || `The server answered ${response.status}.`, true);
      }
    } catch (error) {
      say("The server cannot be reached.", true);
    } finally {
      busy = false;
      render();
    }
    return null;
  }

  function show(next) {
    if (!next || next.version < state.version) return;  // an older state arriving late
    if (next.version !== state.version) {
      selected = new Set();
      entry = [];
      fixing = false;
      fixIndex = null;
    }
    state = next;
    render();
  }

  // ---- the player's moves --------------------------------------------------------------------------------
  async function rollOn() {
    if (state.finished) return;
    if (state.phase === "roll-off") {  // one die for the start, rolled here or typed in the roll-off panel
      if (config.source === "virtual") await act("roll-off");
      else say(`${playerName(state.current)}: roll one die and tap what it shows.`);
      return;
    }
    if (state.throw) {
      const keep = matchingKeep();
      if (!keep) { say("Pick dice that score first.", true); return; }
      if (!(await act("keep", { dice: keep.dice }))) return;
    }
    if (state.finished || state.throw) return;
    if (config.source === "virtual") await act("throw");
    else if (typing) say(`Throw ${state.dice_left} dice and type what they show.`);
    else say(`Throw ${state.dice_left} dice under the camera.`);
  }

  async function bank() {
    if (state.throw) {
      const keep = matchingKeep();
      if (!keep) { say("Pick dice that score first.", true); return; }
      await act("bank", { dice: keep.dice });
    } else {
      await act("bank");
    }
  }

  function toggleDie(index) {
    const shown = fixableFaces();
    if (fixing && shown && index < shown.length && !busy) {
      fixIndex = index;
      render();
      return;
    }
    if (!state.throw || index >= state.throw.length || busy) return;
    if (fixing) {
      fixIndex = index;
    } else if (selected.has(index)) {
      selected.delete(index);
    } else {
      selected.add(index);
    }
    render();
  }

  function pickKeep(dice) {
    // Select the dice of a listed keep, one die per face in the keep.
    const free = state.throw.map((face, index) => ({ face, index }));
    selected = new Set();
    for (const face of dice) {
      const hit = free.find((d) => d.face === face && !selected.has(d.index));
      if (hit) selected.add(hit.index);
    }
    render();
  }

  async function correctDie(face) {
    const shown = fixableFaces();
    if (fixIndex === null || !shown) return;
    const faces = [...shown];
    faces[fixIndex] = face;
    await act("correct", { dice: faces });
  }

  // ---- drawing -----------------------------------------------------------------------------------------
  function playerName(index) { return state.players[index].name; }

  function render() {
    const board = $("board");
    board.dataset.version = String(state.version);
    board.dataset.phase = state.phase;
    const current = playerName(state.current);

    const banner = $("banner");
    let bannerText = "";
    let bannerKind = "";
    if (state.finished) { bannerText = `${state.winner} wins!`; bannerKind = "win"; }
    else if (state.final_round) { bannerText = "Final round: everyone else gets one last turn."; bannerKind = "final"; }
    banner.hidden = !bannerText;
    banner.textContent = bannerText;
    banner.className = `banner ${bannerKind}`;

    if (state.finished) {
      $("turn-line").textContent = `Game over: ${state.winner} wins with ${state.players[state.current].score}`;
    } else if (state.throw) {
      $("turn-line").textContent = `${current}: pick the dice to keep`;
    } else {
      const more = state.turn_total ? " or bank" : "";
      $("turn-line").textContent = `${current} to throw ${state.dice_left} dice${more} · round ${state.round_number}`;
    }

    const dice = $("dice");
    const shown = fixableFaces();
    if (shown) {
      dice.innerHTML = shown.map((face, i) => {
        const classes = ["die"];
        if (selected.has(i)) classes.push("selected");
        if (fixing && fixIndex === i) classes.push("fixing");
        return `<button type="button" class="${classes.join(" ")}" data-index="${i}" data-face="${face}" ` +
          `aria-pressed="${selected.has(i)}" aria-label="die ${i + 1} shows ${face}">${dieSvg(face)}</button>`;
      }).join("");
    } else {
      dice.innerHTML = Array.from({ length: state.finished ? 0 : state.dice_left },
        () => `<span class="die ghost">${dieSvg(0)}</span>`).join("");
    }

    const keep = matchingKeep();
    const selection = $("selection");
    if (!state.throw) {
      const farkle = state.last_farkle;
      selection.textContent = farkle && !state.finished
        ? (farkle.faces.length ? `Farkle: ${farkle.player} threw ${farkle.faces.join("-")}.` : `Farkle: ${farkle.player}.`)
        : "";
      if (fixing) selection.textContent = fixIndex === null ? "Tap the misread die." : "Tap the die's real face.";
      if (state.hot_dice && !state.finished) selection.textContent = "Hot dice! Every die scored: throw them all again.";
    } else if (selected.size === 0) {
      selection.textContent = fixing ? "Tap the misread die." : "Tap dice to keep, or a keep below.";
    } else if (keep) {
      selection.textContent = `Keep ${keep.dice.join("-")}: ${keep.points} points → turn total ${state.turn_total + keep.points}`;
    } else {
      selection.textContent = `${selectedFaces().join("-")} is not a scoring keep.`;
    }
    selection.classList.toggle("bad", Boolean(state.throw && selected.size && !keep));

    $("keeps").innerHTML = (state.throw ? state.keeps : []).map((k) =>
      `<li><button type="button" class="keep${keep && key(keep.dice) === key(k.dice) ? " chosen" : ""}" ` +
      `data-dice="${k.dice.join(",")}">${diceRow(k.dice)}<strong>${k.points}</strong>` +
      `${k.instant_win ? " <em>wins at once</em>" : ""}</button></li>`).join("");

    $("turn-total").textContent = String(state.turn_total);
    $("dice-left").textContent = state.finished ? "" : `${state.dice_left} dice ${state.throw ? "thrown" : "to throw"}`;
    $("kept").innerHTML = state.kept.length ? `kept ${state.kept.map((k) => diceRow(k.dice)).join(" ")}` : "";

    const manual = config.source !== "virtual";
    const waiting = manual && !state.throw && !state.finished && state.phase !== "roll-off"
      && state.turn_mode !== "points";
    $("entry").hidden = !(waiting && typing);
    $("camera-wait").hidden = !(waiting && !typing);
    $("camera-wait-text").textContent = `Throw ${state.dice_left} dice under the camera.`;
    $("entry-faces").innerHTML = entry.length ? diceRow(entry) : `<em>0 of ${state.dice_left}</em>`;
    $("entry-done").disabled = busy || entry.length !== state.dice_left;

    // With real dice and no throw yet, the keypad above is the way to go on.
    $("roll").hidden = state.finished || (manual && !state.throw);
    $("roll").disabled = busy || state.finished || (state.throw ? !keep : manual);
    $("bank").disabled = busy || state.finished || (state.throw ? !(keep && keep.can_bank) : !state.can_bank);
    $("bank").hidden = state.finished;
    $("piggyback").hidden = !state.can_piggyback;
    $("piggyback").disabled = busy;
    $("correct").hidden = !fixableFaces();
    $("correct").classList.toggle("active", fixing);
    $("correct").textContent = fixing ? "Cancel fixing" : "Fix a die";
    $("correct-picker").hidden = !(fixing && fixIndex !== null);
    $("undo").disabled = busy || state.version === 0;
    $("game-over").hidden = !state.finished;

    const rows = state.players.map((p, i) =>
      `<tr class="${i === state.current && !state.finished ? "current" : ""}${p.name === state.winner ? " winner" : ""}">` +
      `<td class="name">${escapeHtml(p.name)}${p.computer ? ' <small class="badge">computer</small>' : ""}` +
      `${p.playing === false ? ' <small class="badge">left</small>' : ""}</td>` +
      `<td class="score">${p.score}</td><td>${p.on_board ? "yes" : "no"}</td></tr>`).join("");
    document.querySelector("#scores tbody").innerHTML = rows;
    // Other panels (advice.js) draw from the same state.
    document.dispatchEvent(new CustomEvent("dicekeeper:state", { detail: state }));
  }

  function escapeHtml(text) {
    return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }

  // ---- wiring --------------------------------------------------------------------------------------------------
  $("dice").addEventListener("click", (event) => {
    const die = event.target.closest("button.die");
    if (die) toggleDie(Number(die.dataset.index));
  });
  $("keeps").addEventListener("click", (event) => {
    const button = event.target.closest("button.keep");
    if (button) pickKeep(button.dataset.dice.split(",").map(Number));
  });
  $("roll").addEventListener("click", rollOn);
  $("bank").addEventListener("click", bank);
  $("undo").addEventListener("click", () => act("undo"));
  $("piggyback").addEventListener("click", () => act("piggyback"));
  $("correct").addEventListener("click", () => { fixing = !fixing; fixIndex = null; selected = new Set(); render(); });
  $("correct-picker").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-face]");
    if (button) correctDie(Number(button.dataset.face));
  });
  $("entry").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-face]");
    if (button && entry.length < state.dice_left) { entry.push(Number(button.dataset.face)); render(); }
  });
  $("type-instead").addEventListener("click", () => { typing = true; render(); });
  $("entry-back").addEventListener("click", () => { entry.pop(); render(); });
  $("entry-done").addEventListener("click", () => act("throw", { dice: entry }));

  // Other scripts (shortcuts.js, flow.js) act through these.
  window.dicekeeper = {
    config, act, rollOn, bank, toggleDie, say,
    get state() { return state; },
    get busy() { return busy; },
  };

  const live = $("live-text");
  function follow() {
    const stream = new EventSource(`/api/games/${config.id}/stream`);
    stream.addEventListener("state", (event) => show(JSON.parse(event.data)));
    stream.addEventListener("gone", () => {
      stream.close();
      live.textContent = "this game was deleted";
      $("live-dot").classList.remove("on");
      say("This game was deleted from the history.", true);
    });
    stream.onopen = () => { live.textContent = "live"; $("live-dot").classList.add("on"); };
    stream.onerror = () => { live.textContent = "reconnecting…"; $("live-dot").classList.remove("on"); };
    window.addEventListener("pagehide", () => stream.close());
  }

  render();
  follow();
})();
