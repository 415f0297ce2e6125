// The table view's keyboard: the ten-thousand web game's keys (R, 1-6, G or +, Ctrl+Z, S, L, P)
// and ? for their help. Keys typed into a field are left to the field.
"use strict";

(() => {
  const game = window.dicekeeper;
  const help = document.getElementById("shortcuts-help");

  function showHelp(open) {
    help.hidden = !open;
    if (open) document.getElementById("shortcuts-close").focus();
  }

  function save() {
    const link = document.createElement("a");
    link.href = `/history/${game.config.id}.json`;
    link.download = `dicekeeper-game-${game.config.id}.json`;
    document.body.append(link);
    link.click();
    link.remove();
  }

  function digit(face) {
    const state = game.state;
    if (state.roll_off_open && !state.throw && game.config.source !== "virtual") {
      game.act("roll-off", { face });  // in a typed roll-off, the key is the face rolled
    } else {
      game.toggleDie(face - 1);
    }
  }

  const KEYS = {
    r: () => game.rollOn(),
    g: () => game.bank(),
    "+": () => game.bank(),
    s: save,
    l: () => { window.location.href = "/history/#import-form"; },
    p: () => { window.location.href = "/"; },
    "?": () => showHelp(help.hidden),
  };

  document.getElementById("shortcuts-close").addEventListener("click", () => showHelp(false));
  help.addEventListener("click", (event) => { if (event.target === help) showHelp(false); });

  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, textarea")) return;
    const key = event.key.toLowerCase();
    if (key === "escape" && !help.hidden) { showHelp(false); return; }
    if ((event.ctrlKey || event.metaKey) && key === "z") { event.preventDefault(); game.act("undo"); return; }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (!help.hidden && key !== "?") return;  // the help is open: only ? or Esc closes it
    if (/^[1-6]$/.test(key)) { digit(Number(key)); return; }
    const action = KEYS[key];
    if (action) { event.preventDefault(); action(); }
  });
})();
