// History pages: offer the table view for games this browser holds a token for, and refresh live.
"use strict";

(() => {
  function addResumeLinks(root) {
    root.querySelectorAll(".resume[data-game]").forEach((slot) => {
      let token = null;
      try { token = localStorage.getItem(`dicekeeper.token.${slot.dataset.game}`); } catch (e) { /* private mode */ }
      if (!token) return;
      const link = document.createElement("a");
      link.href = `/games/${slot.dataset.game}/table?token=${encodeURIComponent(token)}`;
      link.textContent = "open table";
      slot.replaceChildren(link);
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
