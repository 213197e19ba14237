// Herald composer: live feedback while typing (the counter in characters and bytes, the previews),
// rows added and removed at once, and the viewer's own time zone offered first. The form works
// without this file: every button here also posts the form, and the server does the same.
(function () {
  "use strict";
  var form = document.querySelector("form.campaign-form");
  if (!form) { return; }
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
  var uploadedURL = null;
  // The page's language writes the figures (Persian digits on a Persian page) and the placeholders.
  var lang = document.documentElement.lang || "en";
  // Hindi pages write Devanagari digits, as the server does (CLDR's default for "hi" is Latin).
  var numbers = lang === "hi" ? "hi-u-nu-deva" : lang;
  function figure(n) { return lang === "en" ? String(n) : Number(n).toLocaleString(numbers); }
  var texts = document.querySelector("[data-preview]") || document.body;
  var placeholderTitle = texts.getAttribute("data-placeholder-title") || "Notification title";
  var placeholderBody = texts.getAttribute("data-placeholder-body") || "Notification text";
  var imageAlt = texts.getAttribute("data-image-alt") || "Notification image";

  function setAll(root, selector, text, placeholder) {
    root.querySelectorAll(selector).forEach(function (node) { node.textContent = text || placeholder; });
  }
  function localImage(url) {
    var match = /\/images\/([0-9a-f]{64}\.(png|jpg|gif))$/.exec(url || "");
    return match ? "/images/" + match[1] : url;
  }

  // The budget: characters are counted here at once; bytes need the renderer, so the server
  // measures the form as typed (debounced) and says what to cut.
  var budget = document.querySelector("[data-budget]");
  var budgetTimer = null;
  var budgetRequest = 0;
  function showBudget(figures) {
    if (!budget) { return; }
    budget.querySelector("[data-counter]").textContent = figure(figures.characters);
    budget.querySelector("[data-bytes]").textContent = figure(figures.bytes);
    budget.querySelector("[data-byte-limit]").textContent = figure(figures.byte_limit);
    budget.querySelector("[data-budget-advice]").textContent = figures.advice || "";
    budget.classList.toggle("over", !!figures.over);
  }
  function measure() {
    var data = new FormData(form);
    data.delete("image_file");
    var request = ++budgetRequest;
    fetch("/composer/budget", { method: "POST", body: data, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (figures) { if (figures && request === budgetRequest) { showBudget(figures); } })
      .catch(function () { /* the counter keeps its last figures; saving still checks */ });
  }
  function scheduleMeasure() {
    // What the server measured before this keystroke is out of date: its answer is dropped, not
    // shown over the count of what is typed now.
    budgetRequest++;
    if (budget) {
      // Characters are known at once; the bytes follow when the server has measured them.
      var n = count(title.value) + count(body.value);
      budget.querySelector("[data-counter]").textContent = figure(n);
      if (n > 1000) { budget.classList.add("over"); }
    }
    clearTimeout(budgetTimer);
    budgetTimer = setTimeout(measure, 250);
  }

  function updatePreview() {
    setAll(document, "[data-preview-title]", title.value, placeholderTitle);
    setAll(document, "[data-preview-body]", body.value, placeholderBody);
    var src = uploadedURL || (imageURL.value.indexOf("https://") === 0 ? localImage(imageURL.value) : "");
    document.querySelectorAll("[data-preview-image]").forEach(function (img) {
      if (src) { img.src = src; img.hidden = false; img.alt = imageAlt; } else { img.hidden = true; img.removeAttribute("src"); }
    });
    var c = color && /^#[0-9a-fA-F]{6}$/.test(color.value) ? color.value : "";
    document.querySelectorAll(".device.android .app-icon").forEach(function (icon) { icon.style.background = c; });
    form.querySelectorAll("[data-variant]").forEach(updateVariant);
  }
  // A variant shows its own title and text, else the notification's.
  function updateVariant(variant) {
    var ownTitle = variant.querySelector("[data-variant-title]");
    var ownBody = variant.querySelector("[data-variant-body]");
    var key = variant.querySelector("input[name^='variant_key_']");
    setAll(variant, "[data-variant-preview-title]", (ownTitle && ownTitle.value) || title.value, placeholderTitle);
    setAll(variant, "[data-variant-preview-body]", (ownBody && ownBody.value) || body.value, placeholderBody);
    var label = variant.querySelector("[data-variant-label]");
    if (label && key && key.value) { label.textContent = key.value; }
  }

  form.addEventListener("input", function () { updatePreview(); scheduleMeasure(); });
  form.addEventListener("change", scheduleMeasure);
  if (imageFile) {
    imageFile.addEventListener("change", function () {
      // A data: URL, since the page's CSP allows data: images but not blob: ones.
      uploadedURL = null;
      var file = imageFile.files && imageFile.files[0];
      if (!file) { updatePreview(); return; }
      var reader = new FileReader();
      reader.onload = function () { uploadedURL = String(reader.result); updatePreview(); };
      reader.readAsDataURL(file);
    });
  }

  // Rows: the same buttons the server answers without JavaScript, done here at once.
  var variants = form.querySelector("[data-variants]");
  var variantTemplate = document.getElementById("variant-template");
  var rowTemplate = document.getElementById("data-row-template");
  var addVariant = form.querySelector("[data-add-variant]");
  var maximumVariants = 10;
  function nextNumber(names, pattern) {
    var highest = -1;
    names.forEach(function (name) { var m = pattern.exec(name); if (m) { highest = Math.max(highest, Number(m[1])); } });
    return highest + 1;
  }
  function fieldNames() { return Array.prototype.map.call(form.elements, function (e) { return e.name || ""; }); }
  function fromTemplate(template, replacements) {
    var html = template.innerHTML;
    Object.keys(replacements).forEach(function (from) { html = html.split(from).join(replacements[from]); });
    var holder = document.createElement("div");
    holder.innerHTML = html.trim();
    return holder.firstElementChild;
  }
  function refreshAddVariant() {
    if (addVariant) { addVariant.disabled = variants.querySelectorAll("[data-variant]").length >= maximumVariants; }
  }
  form.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button || !form.contains(button)) { return; }
    if (button.hasAttribute("data-add-variant") && variantTemplate) {
      event.preventDefault();
      if (variants.querySelectorAll("[data-variant]").length >= maximumVariants) { return; }
      var id = String(nextNumber(fieldNames(), /^variant_key_(\d+)$/));
      var row = fromTemplate(variantTemplate, { "__ID__": id });
      var number = variants.querySelectorAll("[data-variant]").length + 1;
      row.querySelector("[data-variant-label]").textContent = figure(number);
      variants.appendChild(row);
      updateVariant(row);
      row.querySelector("input").focus();
    } else if (button.hasAttribute("data-remove-variant")) {
      event.preventDefault();
      var variant = button.closest("[data-variant]");
      if (variant) { variant.remove(); }
      scheduleMeasure();
    } else if (button.hasAttribute("data-add-row") && rowTemplate) {
      event.preventDefault();
      var rows = button.closest("[data-rows]");
      var prefix = rows.getAttribute("data-rows");
      var escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      var n = String(nextNumber(fieldNames(), new RegExp("^" + escaped + "_key_(\\d+)$")));
      var line = fromTemplate(rowTemplate, { "__PREFIX__": prefix, "__ROW__": n });
      rows.insertBefore(line, button);
      line.querySelector("input").focus();
    } else {
      return;
    }
    refreshAddVariant();
  });
  refreshAddVariant();

  // The viewer's own zone first among the suggestions, and as the default of a new campaign.
  var zone = (typeof Intl !== "undefined") ? Intl.DateTimeFormat().resolvedOptions().timeZone : "";
  var zones = document.getElementById("time-zones");
  var zoneField = form.querySelector("#time_zone");
  if (zone && zones) {
    var own = zones.querySelector("option[value='" + zone.replace(/'/g, "") + "']");
    if (own) { zones.insertBefore(own, zones.firstChild); }
    if (zoneField && form.querySelector("input[name='version']").value === "0" && zoneField.value === "UTC") { zoneField.value = zone; }
  }

  // The chosen segment's devices split by the variants' weights and the holdout, as the plan
  // splits them (approximately: the server's figure is exact when the page is rendered).
  var armReach = form.querySelector("[data-arm-reach]");
  function updateArmReach() {
    if (!armReach) { return; }
    var select = form.querySelector("#segment");
    var target = form.querySelector("input[name='target_kind']:checked");
    var option = select && select.selectedOptions[0];
    var devices = option ? Number(option.getAttribute("data-reach")) : NaN;
    var variants = Array.prototype.map.call(form.querySelectorAll("[data-variant]"), function (row) {
      var key = row.querySelector("input[name^='variant_key_']");
      var weight = row.querySelector("input[name^='variant_weight_']");
      return { key: key ? key.value.trim() : "", weight: Math.max(0, parseInt(weight && weight.value, 10) || 0) };
    }).filter(function (v) { return v.key !== ""; });  // a row not filled in yet is no variant
    if (variants.length === 0) { variants = [{ key: "A", weight: 100 }]; }
    var holdout = Math.min(99, Math.max(0, parseInt(form.querySelector("#holdout_percent").value, 10) || 0));
    if (!target || target.value !== "segment" || isNaN(devices) || (variants.length < 2 && holdout === 0)) {
      armReach.hidden = true;
      return;
    }
    var total = variants.reduce(function (sum, v) { return sum + v.weight; }, 0) || 1;
    var number = new Intl.NumberFormat(numbers);
    var shared = devices * (100 - holdout) / 100;
    var parts = variants.map(function (v) {
      return armReach.getAttribute("data-variant").replace("%@", v.key).replace("%@", number.format(Math.round(shared * v.weight / total)));
    });
    if (holdout > 0) { parts.push(armReach.getAttribute("data-holdout").replace("%@", number.format(Math.round(devices - shared)))); }
    armReach.textContent = armReach.getAttribute("data-label").replace("%@", parts.join(armReach.getAttribute("data-separator")));
    armReach.hidden = false;
  }
  form.addEventListener("input", updateArmReach);
  form.addEventListener("change", updateArmReach);
  form.addEventListener("click", function () { setTimeout(updateArmReach, 0); });

  updatePreview();
  var summary = document.querySelector(".error-summary");
  if (summary) { summary.focus(); }
})();
