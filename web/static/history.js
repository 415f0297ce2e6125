// History pages: offer the table view for games this browser holds a token for, and refresh live.
"use strict";

(() => {
  function postButton(gameId, token, action, label, question) {
    const form = document.createElement("form");
    form.method = "post";
    form.action = `/history/${gameId}/${action}?token=${encodeURIComponent(token)}`;
    const button = document.createElement("button");
    button.type = "submit";
    button.textContent = label;
    button.className = `manage-${action}`;
    form.append(button);
    if (question) form.addEventListener("submit", (event) => { if (!window.confirm(question)) event.preventDefault(); });
    return form;
  }

  // Offers what this browser may do with each game it holds the table token for.
  function addResumeLinks(root) {
    root.querySelectorAll(".resume[data-game]").forEach((slot) => {
      let token = null;
      const id = slot.dataset.game;
      try { token = localStorage.getItem(`dicekeeper.token.${id}`); } catch (e) { /* private mode */ }
      if (!token) return;
      const parts = [];
      if (slot.dataset.abandoned === "true") {
        parts.push(postButton(id, token, "resume", "Resume"));
      } else {
        const link = document.createElement("a");
        link.href = `/games/${id}/table?token=${encodeURIComponent(token)}`;
        link.textContent = slot.dataset.finished === "false" ? "Resume" : "open table";
        parts.push(link);
        if (slot.dataset.finished === "false") parts.push(postButton(id, token, "abandon", "Abandon"));
      }
      if (slot.dataset.finished !== undefined) {
        parts.push(postButton(id, token, "delete", "Delete", `Delete game #${id} and its whole record for good?`));
      }
      slot.replaceChildren(...parts);
    });
  }

  const part = document.getElementById("live-part");
  addResumeLinks(document);
  if (!part || !part.dataset.live) return;

  let refreshing = false;
  let again = false;
  async function refresh() {
    if (refreshing) { again = true; return; }
    refreshing = true;
    try {
      const response = await fetch(window.location.pathname, { headers: { Accept: "text/html" } });
      if (response.ok) {
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = page.getElementById("live-part");
        if (fresh) {
          part.replaceChildren(...fresh.childNodes);
          part.dataset.version = fresh.dataset.version || "";
          addResumeLinks(part);
        }
      }
    } finally {
      refreshing = false;
      if (again) { again = false; refresh(); }
    }
  }

  let first = true;
  const stream = new EventSource(part.dataset.live);
  const onChange = (event) => {
    const data = JSON.parse(event.data);
    if (first) { first = false; return; }  // the stream always opens with the current state
    if (data.version !== undefined && String(data.version) === part.dataset.version) return;
    refresh();
  };
  stream.addEventListener("state", onChange);
  stream.addEventListener("change", onChange);
  window.addEventListener("pagehide", () => stream.close());
})();
