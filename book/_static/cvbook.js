/* cvbook: mark every table frame that scrolls sideways, so cvbook.css can show a cue and keep the first column
   in view (a 390 px phone scrolls the widest tables to 600-700 px). A frame that fits gets neither. */
(function () {
  "use strict";
  var FRAMES = ".bd-article .cvtable-wrap, .bd-article .pst-scrollable-table-container";

  function mark() {
    document.querySelectorAll(FRAMES).forEach(function (frame) {
      var table = frame.querySelector("table");
      var scrolls = table !== null && frame.clientWidth > 0 && table.scrollWidth > frame.clientWidth + 1;
      frame.classList.toggle("cv-scrolls", scrolls);
      frame.classList.toggle("cv-at-end", scrolls && frame.scrollLeft + frame.clientWidth >= frame.scrollWidth - 2);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    mark();
    window.addEventListener("resize", mark);
    /* a folded table is measured when it is opened */
    document.querySelectorAll(".bd-article details").forEach(function (d) { d.addEventListener("toggle", mark); });
    document.querySelectorAll(FRAMES).forEach(function (frame) {
      frame.addEventListener("scroll", function () {
        frame.classList.toggle("cv-at-end", frame.scrollLeft + frame.clientWidth >= frame.scrollWidth - 2);
      }, {passive: true});
    });
  });
})();
