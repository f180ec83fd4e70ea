"""Readers for Nsight Compute CSV exports (raw page and details page).

Pure standard library, deterministic. Every numeric cell is read as its aggregate: the part
before an instance list `( … )`, without thousands separators. Units are scaled by their SI
prefix where the unit is a scaled one (`Kbyte`, `us`, `Ghz`, …); the kit exports use
`--print-units base`, so the scaling is a no-op there.
"""
import csv
import re

# SI prefixes of ncu unit strings (decimal; FORMATS.md §1.5).
_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_TIME = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
         "s": 1e9, "second": 1e9}


def cell_number(cell):
    """Aggregate value of a cell: `186,449,920 (67,108,864; …)` -> 186449920.0; None if empty/text."""
    if cell is None:
        return None
    s = cell.strip()
    if s.startswith("("):
        # Instance values only, no aggregate before them: not a number.
        return None
    if "(" in s:
        s = s.split("(", 1)[0].strip()
    s = s.replace(",", "")
    if s == "" or s.lower() in ("n/a", "nan", "no data"):
        return None
    try:
        return float(s)
    except ValueError:
        return None


def unit_scale(unit):
    """Factor that converts a value in `unit` to the base unit (byte, ns, hz, …)."""
    if not unit:
        return 1.0
    u = unit.strip()
    if u in _TIME:
        return _TIME[u]
    head = u.split("/")[0]
    if len(head) > 1 and head[0] in _PREFIX and head[1:] in ("byte", "hz", "sector", "inst", "cycle"):
        return _PREFIX[head[0]]
    if head.lower().endswith("hz") and len(head) > 2 and head[0] in _PREFIX:
        return _PREFIX[head[0]]
    return 1.0


def _dim3(text):
    nums = [int(x) for x in re.findall(r"\d+", text or "")]
    return tuple(nums) if len(nums) == 3 else None


def load_raw(path):
    """Raw page: one record per launch; returns list of dicts {metric name: float or str}."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    header = rows[0]
    units = rows[1] if len(rows) > 1 else [""] * len(header)
    launches = []
    for rec in rows[2:]:
        if not rec or not rec[0].strip().isdigit():
            continue
        d = {}
        for name, unit, cell in zip(header, units, rec):
            v = cell_number(cell)
            if v is None:
                d[name] = cell
            else:
                d[name] = v * unit_scale(unit)
        d["_kernel"] = d.get("Kernel Name", "")
        d["_block"] = _dim3(d.get("Block Size", ""))
        d["_grid"] = _dim3(d.get("Grid Size", ""))
        d["_id"] = int(float(rec[0]))
        launches.append(d)
    return launches


def load_details(path):
    """Details page: returns list of dicts per launch (ordered by ID).

    Keys: ('Section Name', 'Metric Name') -> float or str, plus for the section
    "Command line profiler metrics" the bare metric name -> float (so a raw-page name looks it up).
    Rule rows are kept under ('rule', Rule Name) -> [descriptions].
    """
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    header = rows[0]
    by_id = {}
    for rec in rows[1:]:
        if not rec or not rec[0].strip().isdigit():
            continue
        d = dict(zip(header, rec))
        lid = int(d["ID"])
        L = by_id.setdefault(lid, {"_kernel": d.get("Kernel Name", ""), "_block": _dim3(d.get("Block Size")),
                                   "_grid": _dim3(d.get("Grid Size")), "_id": lid, "CC": d.get("CC", "")})
        mname = d.get("Metric Name", "")
        if mname:
            v = cell_number(d.get("Metric Value"))
            val = v * unit_scale(d.get("Metric Unit", "")) if v is not None else d.get("Metric Value")
            L[(d.get("Section Name", ""), mname)] = val
            if d.get("Section Name") == "Command line profiler metrics":
                L[mname] = val
        elif d.get("Rule Name"):
            L.setdefault(("rule", d["Rule Name"]), []).append(d.get("Rule Description", ""))
    return [by_id[k] for k in sorted(by_id)]
