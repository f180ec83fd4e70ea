#!/usr/bin/env python3
"""Progress of the ingest fuzz campaign (campaign.sh), per target, from its logs, as a Markdown table:
executions and seconds summed over every attempt, the last coverage line, the kept crash / timeout /
OOM inputs and the peak RSS. Usage: python3 core/ingest/fuzz/status.py [OUT] (default
$TMPDIR/fuzz-campaign)."""
import glob, os, re, sys
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("TMPDIR", "/tmp"), "fuzz-campaign")
print("| target | executions | seconds (sum of attempts) | edges | features | corpus | crash / timeout / OOM files | peak RSS MB |")
print("|---|---|---|---|---|---|---|---|")
for target in ["ncu_details", "ncu_raw", "ncu_rep", "nsys_gpu_trace", "nsys_kern_sum", "nsys_sqlite", "parquet_ipc"]:
    logs = sorted(glob.glob(f"{out}/{target}.*.log"), key=lambda p: int(p.rsplit(".", 2)[1]))
    if not logs:
        continue
    total, secs, peak, last = 0, 0, 0, None
    for log in logs:
        text = open(log, errors="replace").read()
        m = re.findall(r"^stat::number_of_executed_units: *(\d+)", text, re.M)
        status = re.findall(r"^#(\d+)\s.*?cov: (\d+) ft: (\d+) corp: (\d+)/.*?exec/s: (\d+) rss: (\d+)Mb", text, re.M)
        if m:
            total += int(m[-1])
        elif status:
            total += int(status[-1][0])
        t = re.findall(r"^Done \d+ runs in (\d+) second", text, re.M)
        if t:
            secs += int(t[-1])
        elif status and int(status[-1][4]) > 0:
            secs += int(status[-1][0]) // int(status[-1][4])
        r = re.findall(r"rss: (\d+)Mb", text) + re.findall(r"^stat::peak_rss_mb: *(\d+)", text, re.M)
        if r:
            peak = max(peak, max(int(x) for x in r))
        if status:
            last = status[-1]
    arts = os.listdir(f"{out}/artifacts/{target}") if os.path.isdir(f"{out}/artifacts/{target}") else []
    kinds = {k: sum(1 for a in arts if a.startswith(k)) for k in ["crash", "timeout", "oom"]}
    print(f"| `{target}` | {total:,} | {secs} | {last[1] if last else '?'} | {last[2] if last else '?'} | {last[3] if last else '?'} | {kinds['crash']} / {kinds['timeout']} / {kinds['oom']} | {peak} |".replace(",", " "))
