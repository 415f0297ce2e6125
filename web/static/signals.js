// What just happened that deserves a buzz or a sound: a farkle, hot dice or the win.
"use strict";

window.dicekeeperNews = (before, after) => {
  if (!before || after.version <= before.version) return null;
  if (after.finished && !before.finished) return "win";
  const farkle = after.last_farkle;
  if (farkle && farkle.faces.length && (!before.last_farkle || after.turn_number !== before.turn_number)) return "farkle";
  if (after.hot_dice && !before.hot_dice) return "hot";
  return null;
};
