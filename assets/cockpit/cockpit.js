// The cockpit's only script: it refreshes the server-rendered content. The first paint needs
// no JavaScript; without it the page is simply not refreshed.
(function () {
  "use strict";
  var main = document.getElementById("main");
  function refresh() {
    fetch("/cockpit/fragment", { cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var focused = document.activeElement && document.activeElement.id;
        main.innerHTML = html;
        if (focused) { var el = document.getElementById(focused); if (el) { el.focus(); } }
        document.body.setAttribute("data-ready", "1");
      })
      .catch(function () { document.body.setAttribute("data-stale", "1"); });
  }
  document.addEventListener("keydown", function (e) {
    if (e.key === "r" && !e.ctrlKey && !e.metaKey && !e.altKey) { refresh(); }
  });
  refresh();
  setInterval(refresh, 5000);
})();
