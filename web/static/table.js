// The table view on a big screen: a full-screen button, and the screen kept awake while a game runs.
"use strict";

(() => {
  const button = document.getElementById("fullscreen");
  const wakeState = document.getElementById("wake-state");
  let lock = null;
  let asking = false;
  let running = false;

  function showFullscreen() {
    const on = Boolean(document.fullscreenElement);
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "Leave full screen" : "Full screen";
  }

  button.hidden = !document.fullscreenEnabled;
  button.addEventListener("click", async () => {
    try {
      if (document.fullscreenElement) await document.exitFullscreen();
      else await document.documentElement.requestFullscreen();
    } catch (error) { /* refused by the browser: the page stays as it is */ }
    showFullscreen();
  });
  document.addEventListener("fullscreenchange", showFullscreen);

  function say(text) { wakeState.textContent = text; document.body.dataset.wakeLock = text ? "on" : "off"; }

  async function keepAwake() {
    if (!running || lock || asking || document.visibilityState !== "visible") return;
    if (!("wakeLock" in navigator)) { wakeState.textContent = ""; document.body.dataset.wakeLock = "unsupported"; return; }
    asking = true;
    try {
      const granted = await navigator.wakeLock.request("screen");
      if (!running) { granted.release(); return; }  // the game ended while the browser was asked
      lock = granted;
      say("screen kept awake");
      lock.addEventListener("release", () => { if (lock === granted) { lock = null; say(""); } });
    } catch (error) {
      document.body.dataset.wakeLock = "refused";
    } finally {
      asking = false;
    }
  }

  function letSleep() {
    if (lock) { lock.release(); lock = null; }
    say("");
  }

  document.addEventListener("dicekeeper:state", (event) => {
    running = !event.detail.finished;
    if (running) keepAwake(); else letSleep();
  });
  // The browser drops the lock when the page is hidden; it is asked for again on return.
  document.addEventListener("visibilitychange", keepAwake);
})();
