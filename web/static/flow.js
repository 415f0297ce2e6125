// Game flow beyond the dice: the roll-off for the first turn, typed points, undo of a turn, redo,
// and (on the table view) renames, the target and players who join or leave. Acts through game.js.
"use strict";

(() => {
  const game = window.dicekeeper;
  const $ = (id) => document.getElementById(id);
  const isTable = game.config.seat === null;

  const nameOf = (state, seat) => state.players[seat].name;

  function renderRollOff(state) {
    const panel = $("roll-off");
    panel.hidden = !state.roll_off_open;
    if (panel.hidden) return;
    const rollOff = state.roll_off;
    const rolls = rollOff ? rollOff.rolls.map((r) => `${nameOf(state, r.player)} ${r.face}`) : [];
    const tied = rollOff && rollOff.rolls.length === 0;  // a round of rolls begun afresh: the last one tied
    const next = rollOff ? rollOff.next : state.current;
    let text = `${nameOf(state, next)} rolls`;
    if (tied) text = `Tie: ${rollOff.contenders.map((s) => nameOf(state, s)).join(" and ")} roll again. ${text}`;
    if (rolls.length) text = `${rolls.join(", ")}. ${text}`;
    $("roll-off-status").textContent = text;
    if (state.phase === "roll-off") $("turn-line").textContent = `Who starts? ${nameOf(state, next)} rolls one die`;
    panel.querySelectorAll("button").forEach((button) => { button.disabled = game.busy; });
  }

  function renderPoints(state) {
    const open = !state.finished && state.phase === "throw" && state.turn_mode !== "dice";
    if (open && state.turn_mode === "points") {
      $("turn-line").textContent = `${nameOf(state, state.current)}: type more points, bank or farkle`;
    }
    $("points-entry").hidden = !open;
    $("points-add").disabled = game.busy;
    $("points-farkle").disabled = game.busy;
  }

  function renderUndo(state) {
    $("flow-actions").hidden = !isTable;
    $("undo-turn").disabled = game.busy || state.version === 0;
    $("redo").disabled = game.busy || !state.can_redo;
  }

  function fillPlayers(select, state) {
    const chosen = select.value;
    select.replaceChildren(...state.players.map((p, seat) => ({ p, seat })).filter(({ p }) => p.playing)
      .map(({ p, seat }) => new Option(p.name, String(seat))));
    if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
  }

  function renderChanges(state) {
    if (!$("changes")) return;
    fillPlayers($("rename-player"), state);
    fillPlayers($("remove-player"), state);
    $("target-value").placeholder = String(state.target);
  }

  function render(state) {
    renderRollOff(state);
    renderPoints(state);
    renderUndo(state);
    renderChanges(state);
  }

  // ---- actions ---------------------------------------------------------------------------------------
  async function addPoints() {
    const text = $("points-input").value.trim();
    if (!text) { game.say("Type the points of the throw, e.g. +350.", true); return; }
    if (await game.act("points", { points: text })) $("points-input").value = "";
  }

  async function change(action, body, input) {
    if (await game.act(action, body) && input) input.value = "";
  }

  function onSubmit(id, handler) {
    const form = $(id);
    if (form) form.addEventListener("submit", (event) => { event.preventDefault(); handler(); });
  }

  if ($("roll-off-roll")) $("roll-off-roll").addEventListener("click", () => game.act("roll-off"));
  if ($("roll-off-pad")) {
    $("roll-off-pad").addEventListener("click", (event) => {
      const button = event.target.closest("button[data-face]");
      if (button) game.act("roll-off", { face: Number(button.dataset.face) });
    });
  }
  $("points-add").addEventListener("click", addPoints);
  $("points-input").addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); addPoints(); }
  });
  $("points-farkle").addEventListener("click", () => game.act("farkle"));
  $("undo-turn").addEventListener("click", () => game.act("undo-turn"));
  $("redo").addEventListener("click", () => game.act("redo"));
  onSubmit("rename-form", () => change("rename", { player: Number($("rename-player").value), name: $("rename-name").value },
    $("rename-name")));
  onSubmit("target-form", () => change("target", { target: $("target-value").value.trim() }, $("target-value")));
  onSubmit("add-form", () => change("add-player", { name: $("add-name").value }, $("add-name")));
  onSubmit("remove-form", () => change("remove-player", { player: Number($("remove-player").value) }));

  document.addEventListener("dicekeeper:state", (event) => render(event.detail));
  render(game.state);
})();
