// The live camera on the pages: its state on the table view, and on the phone the throws the
// camera could not record by itself, to confirm or correct.
"use strict";

(() => {
  const script = document.currentScript;
  const $ = (id) => document.getElementById(id);
  const PHASES = {
    waiting: "waiting for dice",
    moving: "dice rolling or a hand on the table",
    hand: "a hand in the picture",
    steadying: "dice coming to rest…",
    settled: "settled",
  };

  // ---- table view: what the camera is doing -----------------------------------------------------
  function followState() {
    const box = $("camera-state");
    if (!box) return;
    async function poll() {
      try {
        const response = await fetch(box.dataset.stateUrl, { cache: "no-store" });
        const state = await response.json();
        const source = state.source;
        box.dataset.status = source.status;
        box.dataset.phase = state.phase;
        $("camera-source").textContent = source.status === "live"
          ? `camera: ${source.name} · ${Math.round(state.fps)} frames/s`
          : `camera: ${source.status}${source.message ? ` — ${source.message}` : ""}`;
        const dice = state.in_play.length ? `: ${state.in_play.join(" ")}` : "";
        $("camera-phase").textContent = `${PHASES[state.phase] || state.phase}${state.phase === "settled" ? dice : ""}`;
        const last = state.last_throw;
        $("camera-last").textContent = last ? `last throw ${last.dice.join(" ")} — ${last.outcome}` : "";
        $("camera-advice").textContent = state.advice ? `camera: ${state.advice}` : "";
      } catch (error) {
        box.dataset.status = "unreachable";
        $("camera-source").textContent = "camera: the server does not answer";
      }
      setTimeout(poll, 700);
    }
    poll();
  }

  // ---- phone view: confirm or correct ------------------------------------------------------------
  function followProposals() {
    const panel = $("camera-confirm");
    const config = JSON.parse($("game-config").textContent);
    const auth = { Authorization: `Bearer ${config.token}` };
    let proposal = null;
    let faces = [];

    function draw() {
      // Dice whose reading kept changing while they lay still are marked, so the player checks them first.
      const unsure = new Set(proposal && proposal.doubtful ? proposal.doubtful : []);
      $("camera-faces").innerHTML = faces.map((face, i) => {
        const doubt = unsure.has(i) ? " doubtful" : "";
        const none = face === null ? " not-a-die" : "";
        const shown = face === null ? "✕" : face;
        const label = `die ${i + 1}: ${face === null ? "not a die" : face}${doubt ? ", the camera is unsure" : ""}`;
        return `<button type="button" class="face-button camera-face${doubt}${none}" data-index="${i}" aria-label="${label}">${shown}</button>`;
      }).join("");
    }

    function show(next) {
      if (!next) {
        proposal = null;
        panel.hidden = true;
        return;
      }
      if (!proposal || proposal.id !== next.id) {
        proposal = next;
        faces = [...next.faces];
        $("camera-reason").textContent = `The camera is unsure: ${next.reason}.`;
        $("camera-message").textContent = "";
        draw();
      }
      panel.hidden = false;
    }

    async function poll() {
      try {
        const response = await fetch(script.dataset.pendingUrl, { headers: auth, cache: "no-store" });
        if (response.ok) show((await response.json()).pending);
      } catch (error) { /* offline for a moment: try again */ }
      setTimeout(poll, 1000);
    }

    async function send(url, body) {
      const board = $("board");
      const version = board && board.dataset.version ? Number(board.dataset.version) : undefined;
      const response = await fetch(url, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ ...body, version }),
      });
      const answer = await response.json();
      if (!response.ok) {
        $("camera-message").textContent = answer.error || "that did not work";
        $("camera-message").classList.add("error");
        return false;
      }
      show(null);
      return true;
    }

    $("camera-faces").addEventListener("click", (event) => {
      const button = event.target.closest("button[data-index]");
      if (!button) return;
      const i = Number(button.dataset.index);
      // The camera's own dice go on from 6 to "not a die" (null), for a spot or a coin it took for one.
      const seen = proposal ? proposal.faces.length : 0;
      if (faces[i] === null) faces[i] = 1;
      else if (faces[i] === 6 && i < seen) faces[i] = null;
      else faces[i] = faces[i] % 6 + 1;
      draw();
    });
    $("camera-add").addEventListener("click", () => { if (faces.length < 8) { faces.push(1); draw(); } });
    // Removing takes off a die the player added; the camera's own dice stay in place, marked ✕,
    // so that each of them still matches its picture when the table learns from the throw.
    $("camera-remove").addEventListener("click", () => {
      const seen = proposal ? proposal.faces.length : 0;
      if (faces.length > seen) faces.pop();
      else {
        const last = faces.map((face, i) => (face === null ? -1 : i)).filter((i) => i >= 0).pop();
        if (last !== undefined && faces.filter((face) => face !== null).length > 1) faces[last] = null;
      }
      draw();
    });
    $("camera-ok").addEventListener("click", () => proposal && send(script.dataset.confirmUrl,
      { proposal: proposal.id, dice: faces }));
    $("camera-dismiss").addEventListener("click", () => proposal && send(script.dataset.dismissUrl,
      { proposal: proposal.id }));
    poll();
  }

  if (script.dataset.view === "phone") followProposals();
  else followState();
})();
