// Herald composer: a live character counter and a live preview. The form works without this file;
// it only adds feedback while typing. Counting matches the server: grapheme clusters.
(function () {
  "use strict";
  var form = document.querySelector("form.campaign-form");
  if (!form) { return; }
  var limit = 1000;
  var segmenter = (typeof Intl !== "undefined" && Intl.Segmenter) ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;
  function count(text) {
    if (!text) { return 0; }
    if (segmenter) { var n = 0; for (var _ of segmenter.segment(text)) { n++; } return n; }
    return Array.from(text).length;
  }
  var title = form.querySelector("#title");
  var body = form.querySelector("#body");
  var imageURL = form.querySelector("#image_url");
  var imageFile = form.querySelector("#image_file");
  var color = form.querySelector("#color");
  var counter = document.querySelector("[data-counter]");
  var counterLine = document.querySelector("#counter");
  var uploadedURL = null;

  function setAll(selector, text, placeholder) {
    document.querySelectorAll(selector).forEach(function (node) { node.textContent = text || placeholder; });
  }
  function localImage(url) {
    var match = /\/images\/([0-9a-f]{64}\.(png|jpg|gif))$/.exec(url || "");
    return match ? "/images/" + match[1] : url;
  }
  function update() {
    var n = count(title.value) + count(body.value);
    if (counter) { counter.textContent = String(n); }
    if (counterLine) { counterLine.classList.toggle("over", n > limit); }
    setAll("[data-preview-title]", title.value, "Notification title");
    setAll("[data-preview-body]", body.value, "Notification text");
    var src = uploadedURL || (imageURL.value.indexOf("https://") === 0 ? localImage(imageURL.value) : "");
    document.querySelectorAll("[data-preview-image]").forEach(function (img) {
      if (src) { img.src = src; img.hidden = false; img.alt = "Notification image"; } else { img.hidden = true; img.removeAttribute("src"); }
    });
    var c = color && /^#[0-9a-fA-F]{6}$/.test(color.value) ? color.value : "";
    document.querySelectorAll(".device.android .app-icon").forEach(function (icon) { icon.style.background = c; });
  }
  [title, body, imageURL, color].forEach(function (input) { if (input) { input.addEventListener("input", update); } });
  if (imageFile) {
    imageFile.addEventListener("change", function () {
      // A data: URL, since the page's CSP allows data: images but not blob: ones.
      uploadedURL = null;
      var file = imageFile.files && imageFile.files[0];
      if (!file) { update(); return; }
      var reader = new FileReader();
      reader.onload = function () { uploadedURL = String(reader.result); update(); };
      reader.readAsDataURL(file);
    });
  }
  update();
  var summary = document.querySelector(".error-summary");
  if (summary) { summary.focus(); }
})();
