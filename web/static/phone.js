// The phone view: who this phone is and whose turn it is, and a buzz on a farkle, hot dice or a win.
"use strict";

(() => {
  const game = window.dicekeeper;
  const who = document.getElementById("whoami");
  const turn = document.getElementById("whose-turn");
  const PATTERNS = { farkle: [220, 90, 220], hot: [70, 50, 70, 50, 70], win: [400] };

  function buzz(kind) {
    if (typeof navigator.vibrate !== "function") return;  // iOS and desktops: no vibration
    try { navigator.vibrate(PATTERNS[kind]); } catch (error) { /* refused: not worth a message */ }
  }

  function draw(state) {
    const seat = game.config.seat;
    const current = state.players[state.current].name;
    if (seat === null) {
      who.textContent = "This phone: the table";
    } else {
      who.textContent = `This phone: ${state.players[seat].name}`;
    }
    const mine = seat !== null && seat === state.current;
    turn.classList.toggle("mine", mine && !state.finished);
    if (state.finished) turn.textContent = `${state.winner} won`;
    else turn.textContent = mine ? "Your turn" : `${current}'s turn`;
  }

  let seen = game.state;
  draw(seen);
  document.addEventListener("dicekeeper:state", (event) => {
    const kind = window.dicekeeperNews(seen, event.detail);
    seen = event.detail;
    draw(seen);
    if (kind) buzz(kind);
  });
})();
