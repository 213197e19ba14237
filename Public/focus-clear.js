// Herald: a control that takes focus under a form's sticky bar (.form-actions: Save, Save and
// review) is scrolled clear of it. The CSS's scroll-padding does this for most controls, but the
// browser brings a textarea's caret into view rather than its whole box, which can leave the rest
// of the box under the bar. Runs on focusin, before the browser's own scroll, which then finds
// nothing left to do. Without this script the CSS does it (see `@media (scripting: none)`).
(function () {
  "use strict";
  var gap = 8;
  document.addEventListener("focusin", function (event) {
    var target = event.target;
    var form = target && target.closest ? target.closest("form") : null;
    var bar = form ? form.querySelector(".form-actions") : null;
    if (!bar || bar.contains(target) || getComputedStyle(bar).position !== "sticky") { return; }
    // Focus by keyboard (or into a text field) only: a click on a radio or a button must not move
    // it from under the pointer between the press and the release.
    if (target.matches && !target.matches(":focus-visible")) { return; }
    var box = target.getBoundingClientRect();
    var edge = Math.min(bar.getBoundingClientRect().top, window.innerHeight);
    if (box.bottom + gap <= edge || box.height === 0) { return; }
    // Its bottom just above the bar; a control taller than the room left shows from its top.
    var by = box.bottom + gap - edge;
    if (box.top - by < gap) { by = box.top - gap; }
    if (by > 0) { window.scrollBy(0, by); }
  });
})();
