// kschedx HTML report: the page reads fine without this; with it, node tables get a
// filter box, and printing opens every collapsed section.
(function () {
  "use strict";
  var inputs = document.querySelectorAll("input[data-filter]");
  Array.prototype.forEach.call(inputs, function (input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    if (!table || !table.tBodies.length) { return; }
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var texts = null;
    var count = document.getElementById(input.getAttribute("data-count"));
    input.hidden = false;
    input.addEventListener("input", function () {
      if (texts === null) { texts = rows.map(function (r) { return r.textContent.toLowerCase(); }); }
      var q = input.value.trim().toLowerCase();
      var shown = 0;
      rows.forEach(function (r, i) {
        var on = q === "" || texts[i].indexOf(q) !== -1;
        r.hidden = !on;
        if (on) { shown += 1; }
      });
      if (count) { count.textContent = q === "" ? "" : shown + " of " + rows.length + " shown"; }
    });
  });
  var reopen = [];
  window.addEventListener("beforeprint", function () {
    reopen = Array.prototype.filter.call(document.querySelectorAll("details"), function (d) { return !d.open; });
    reopen.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () {
    reopen.forEach(function (d) { d.open = false; });
    reopen = [];
  });
  document.documentElement.setAttribute("data-kschedx", "ready");
}());
