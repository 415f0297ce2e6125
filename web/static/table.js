// The table view on a big screen: a full-screen button, the screen kept awake while a game runs,
// and, when switched on, a short sound on a farkle, hot dice and the win.
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

  // ---- sound ----
  const soundButton = document.getElementById("sound");
  const TUNES = { farkle: [330, 220], hot: [660, 880], win: [523, 659, 784] };
  let soundOn = false;
  let audio = null;
  try { soundOn = localStorage.getItem("dicekeeper.sound") === "on"; } catch (error) { /* private mode */ }

  function showSound() {
    soundButton.setAttribute("aria-pressed", String(soundOn));
    soundButton.textContent = soundOn ? "Sound: on" : "Sound: off";
  }

  function play(kind) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!soundOn || !Context) return;
    audio = audio || new Context();
    TUNES[kind].forEach((frequency, i) => {
      const tone = audio.createOscillator();
      const volume = audio.createGain();
      const start = audio.currentTime + i * 0.16;
      tone.frequency.value = frequency;
      volume.gain.setValueAtTime(0.2, start);
      volume.gain.exponentialRampToValueAtTime(0.001, start + 0.15);
      tone.connect(volume).connect(audio.destination);
      tone.start(start);
      tone.stop(start + 0.16);
    });
  }

  soundButton.addEventListener("click", () => {
    soundOn = !soundOn;
    try { localStorage.setItem("dicekeeper.sound", soundOn ? "on" : "off"); } catch (error) { /* private mode */ }
    showSound();
  });
  showSound();

  let seen = null;
  document.addEventListener("dicekeeper:state", (event) => {
    running = !event.detail.finished;
    if (running) keepAwake(); else letSleep();
    const kind = window.dicekeeperNews(seen, event.detail);
    seen = event.detail;
    if (kind) play(kind);
  });
  // The browser drops the lock when the page is hidden; it is asked for again on return.
  document.addEventListener("visibilitychange", keepAwake);
})();
