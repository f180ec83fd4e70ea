//! The review's only always-present script: clicking a header of a `table.sortable` sorts its rows
//! by that column, descending first, numbers by their `data-v` raw value (cells without one last),
//! text alphabetically. The page works without it; it reaches nothing outside the page.

/// The inline script (no `</script>` inside).
pub(crate) const SCRIPT: &str = r#"(function () {
  document.querySelectorAll('table.sortable').forEach(function (table) {
    table.querySelectorAll('th').forEach(function (th, column) {
      th.addEventListener('click', function () {
        var descending = th.getAttribute('data-order') !== 'desc';
        table.querySelectorAll('th').forEach(function (h) { h.removeAttribute('data-order'); });
        th.setAttribute('data-order', descending ? 'desc' : 'asc');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[column], y = b.cells[column];
          var vx = x.getAttribute('data-v'), vy = y.getAttribute('data-v');
          if (vx === null || vy === null) {
            if (vx !== null || vy !== null) { return vx === null ? 1 : -1; }
            var text = x.textContent.localeCompare(y.textContent);
            return descending ? -text : text;
          }
          var diff = parseFloat(vx) - parseFloat(vy);
          return descending ? -diff : diff;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();"#;
