//! The layout check the review embeds when asked (`warpsight report --layout-check`, a hidden
//! option for tests): once the page is laid out, a script measures it in the browser that opened
//! it and writes the verdict into `<pre id="layout-check">`, where a headless browser's
//! `--dump-dom` output shows it.
//!
//! It checks that the page has no horizontal scroll (`scrollWidth <= clientWidth`), that no table
//! or chart reaches past the window's right edge, and, per chart (`svg`), that no two `text`
//! elements overlap and that none sticks out of its chart. The verdict's first line is `ok` or
//! `FAIL`; the next lines give what was measured or each problem found.

/// The id of the element the verdict is written to.
pub const RESULT_ID: &str = "layout-check";

/// The inline script (no `</script>` inside).
pub const SCRIPT: &str = r#"(function () {
  var problems = [];
  var root = document.documentElement;
  var width = root.clientWidth;
  if (root.scrollWidth > width) {
    problems.push('horizontal scroll: scrollWidth ' + root.scrollWidth + ' > clientWidth ' + width);
  }
  var charts = document.querySelectorAll('svg');
  var labels = 0;
  var name = function (el) {
    return JSON.stringify((el.textContent || '').trim().slice(0, 40));
  };
  document.querySelectorAll('table, svg').forEach(function (el) {
    var box = el.getBoundingClientRect();
    if (box.right > width + 0.5) {
      problems.push(el.tagName.toLowerCase() + ' ' + name(el) + ' ends at ' + Math.round(box.right) + ' px, past ' + width);
    }
  });
  charts.forEach(function (svg, chart) {
    var frame = svg.getBoundingClientRect();
    var title = svg.getAttribute('aria-label') || ('chart ' + chart);
    var boxes = [];
    svg.querySelectorAll('text').forEach(function (text) {
      var b = text.getBoundingClientRect();
      if (b.width === 0 || b.height === 0) { return; }
      boxes.push({ el: text, b: b });
      if (b.left < frame.left - 1 || b.right > frame.right + 1 || b.top < frame.top - 1 || b.bottom > frame.bottom + 1) {
        problems.push(title + ': label ' + name(text) + ' sticks out of the chart');
      }
    });
    labels += boxes.length;
    for (var i = 0; i < boxes.length; i++) {
      for (var j = i + 1; j < boxes.length; j++) {
        var a = boxes[i].b, c = boxes[j].b;
        var w = Math.min(a.right, c.right) - Math.max(a.left, c.left);
        var h = Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top);
        if (w > 1 && h > 1) {
          problems.push(title + ': ' + name(boxes[i].el) + ' overlaps ' + name(boxes[j].el));
        }
      }
    }
  });
  var out = document.getElementById('layout-check');
  out.textContent = (problems.length === 0 ? 'ok' : 'FAIL') + '\n' +
    'window ' + width + ' px, page ' + root.scrollWidth + ' px wide, ' + charts.length + ' charts, ' + labels + ' labels' +
    (problems.length === 0 ? '' : '\n' + problems.join('\n'));
})();"#;
