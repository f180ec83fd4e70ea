"""The single-process functions: frames equal to the CLI's, plugins found, errors raised."""

import io
import json
import subprocess

import polars as pl
import pytest

import warpsight
from conftest import H100, TRACES


def cli_csv(cli, *args):
    out = subprocess.run([str(cli), *args, "--format", "csv"], check=True, capture_output=True,
                         env={"NO_COLOR": "1", "WARPSIGHT_PLUGIN_PATH": warpsight.PACKAGE_DIR + "/plugins"})
    return out.stdout.decode()


def same_as_cli(frame, text):
    """The frame written as CSV by polars equals the CLI's CSV, parsed, value by value."""
    ours = pl.read_csv(io.StringIO(frame.write_csv()), infer_schema_length=0)
    theirs = pl.read_csv(io.StringIO(text), infer_schema_length=0)
    assert ours.columns == theirs.columns
    assert ours.height == theirs.height
    for name in ours.columns:
        a, b = ours[name].to_list(), theirs[name].to_list()
        for x, y in zip(a, b):
            if x == y:
                continue
            # Floats may be printed with another number of digits: equal as numbers.
            assert x is not None and y is not None, (name, x, y)
            assert float(x) == pytest.approx(float(y), rel=1e-12), (name, x, y)


def test_plugins_are_bundled():
    report = warpsight.plugin_report()
    assert any(p["file"].startswith(warpsight.PACKAGE_DIR) for p in report["loaded"]), report
    devices = warpsight.devices()
    assert "NVIDIA H100 80GB HBM3" in devices["name"].to_list()
    assert "9.0" in warpsight.archs()["cc"].to_list()


def test_analyze_per_kernel_equals_the_cli(cli, h100_raw):
    frame = warpsight.analyze(h100_raw)
    assert isinstance(frame, pl.DataFrame) and frame.height > 0
    same_as_cli(frame, cli_csv(cli, "analyze", *map(str, h100_raw)))


def test_analyze_per_launch_equals_the_cli(cli, h100_raw):
    frame = warpsight.analyze(h100_raw[0], per="launch")
    same_as_cli(frame, cli_csv(cli, "analyze", "--per", "launch", str(h100_raw[0])))


def test_predict_equals_the_cli(cli, h100_raw):
    frame = warpsight.predict(h100_raw[0], on="A100 SXM4 80GB")
    same_as_cli(frame, cli_csv(cli, "predict", "--on", "A100 SXM4 80GB", str(h100_raw[0])))


def test_globs_directories_top_and_read(h100_raw):
    by_glob = warpsight.analyze(str(H100 / "*.ncu-raw.csv"), top=3)
    assert by_glob.height == 3
    launches = warpsight.read(h100_raw[0])
    assert launches.height > 0 and "kernel_name" in launches.columns


def cli_json(cli, *args):
    out = subprocess.run([str(cli), *args, "--format", "json"], check=True, capture_output=True,
                         env={"NO_COLOR": "1", "WARPSIGHT_PLUGIN_PATH": warpsight.PACKAGE_DIR + "/plugins"})
    return json.loads(out.stdout)


def test_devices_archs_and_occupancy_equal_the_cli(cli):
    """The same records as `warpsight devices/archs/occupancy --format json` (the CLI also finds
    the bundled plugins, besides any of its own, so the package's rows are compared by key)."""
    by_name = {d["name"]: d for d in cli_json(cli, "devices")}
    devices = warpsight.devices()
    assert devices.height > 0
    for row in devices.iter_rows(named=True):
        theirs = by_name[row["name"]]
        for key in ("cc", "aliases", "sm_count", "sm_clock_hz", "base_clock_hz", "dram_bandwidth_bytes_per_s"):
            assert row[key] == theirs[key], (row["name"], key)
        assert row["peak_flops"]["fp32"] == theirs["peak_flops"]["fp32"]
    by_cc = {a["cc"]: a for a in cli_json(cli, "archs")}
    archs = warpsight.archs()
    for row in archs.iter_rows(named=True):
        theirs = by_cc[row["cc"]]
        for key in ("max_warps_per_sm", "regs_per_sm", "smem_per_sm_bytes", "carveouts_bytes"):
            assert row[key] == theirs[key], (row["cc"], key)
        assert row["latency_cycles"] == theirs["latency_cycles"]
    ours = warpsight.occupancy(cc="8.0", block_size=256, registers=64, dynamic_smem=48 << 10)
    assert ours == cli_json(cli, "occupancy", "--cc", "8.0", "--block-size", "256",
                            "--registers", "64", "--dynamic-smem", "48K")


def test_findings_accuracy_occupancy(h100_raw):
    assert warpsight.findings(h100_raw).height > 0
    assert warpsight.accuracy(h100_raw).height > 0
    result = warpsight.occupancy(cc="7.0", block_size=128, registers=37)
    assert result["active_blocks"] == 12 and result["occupancy"] == 0.75


def test_both_findings_frames_have_a_severity(h100_raw):
    ranked = warpsight.findings(h100_raw)
    every = warpsight.findings(h100_raw, ranked=False)
    assert ranked.columns == ["kernel", "severity", "source", "rule_id", "message", "launches", "saving"]
    assert every.columns == ["file", "launch_id", "kernel", "severity", "source", "rule_id", "message",
                             "time_share", "launches"]
    assert every.height >= ranked.height > 0
    assert set(every["severity"]) <= {"info", "warning", "error"}
    # The same advice has the same severity in both lists.
    pairs = set(zip(every["rule_id"], every["severity"]))
    assert set(zip(ranked["rule_id"], ranked["severity"])) <= pairs


def test_errors_carry_the_cli_text(tmp_path):
    with pytest.raises(warpsight.InputError) as missing:
        warpsight.analyze(tmp_path / "nothing.csv")
    assert str(missing.value).startswith("error: ")
    with pytest.raises(warpsight.Error):
        warpsight.analyze(42)
    with pytest.raises(warpsight.DeviceError) as device:
        warpsight.analyze(TRACES / "h100-80gb-hbm3" / "sgemm.ncu-raw.csv", device="GeForce 256")
    assert "hint: known devices:" in str(device.value)
    with pytest.raises(warpsight.InputError):
        warpsight.read(TRACES / "h100-80gb-hbm3" / "sgemm.ncu-raw.csv", input_format="nope")


def test_strict_raises_on_rows_that_cannot_be_used(tmp_path):
    bad = tmp_path / "bad.csv"
    source = (TRACES / "h100-80gb-hbm3" / "sgemm.ncu-raw.csv").read_text().splitlines()
    # A launch row cut short cannot be used: counted without strict, an error with it.
    bad.write_text("\n".join(source + [source[-1].split(",")[0] + ",1"]) + "\n")
    warpsight.read(bad)
    with pytest.raises(warpsight.Error):
        warpsight.read(bad, strict=True)
