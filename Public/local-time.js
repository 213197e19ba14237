// Herald: a time marked data-local-time is also shown on the viewer's own clock, beside the
// campaign's zone that the server wrote (the server does not know the viewer's zone).
(function () {
  "use strict";
  if (typeof Intl === "undefined") { return; }
  // The page's language and calendar (a Persian page shows the Solar Hijri date), the viewer's zone.
  var lang = document.documentElement.lang || undefined;
  var label = document.body.getAttribute("data-your-time") || "your time:";
  // Hindi pages write Devanagari digits, as the server does (CLDR's default for "hi" is Latin).
  var format = new Intl.DateTimeFormat(lang === "hi" ? "hi-u-nu-deva" : lang, {
    weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit",
    hourCycle: "h23", timeZoneName: "short"
  });
  document.querySelectorAll("time[data-local-time]").forEach(function (element) {
    var date = new Date(element.getAttribute("datetime"));
    if (isNaN(date.getTime())) { return; }
    var yours = document.createElement("span");
    yours.className = "muted local-time";
    yours.textContent = " · " + label + " " + format.format(date);
    element.parentNode.insertBefore(yours, element.nextSibling);
  });
})();
