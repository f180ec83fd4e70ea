"""Shared fixtures of the pytest suite: the repository's traces and the `warpsight` binary.

The binary is taken from WARPSIGHT_CLI, else target/debug/warpsight of the workspace; tests that
compare with it fail when it is missing and WARPSIGHT_REQUIRE_CLI=1 (CI), and skip otherwise.
"""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
TRACES = REPO / "traces"
H100 = TRACES / "h100-80gb-hbm3"


@pytest.fixture(scope="session")
def cli():
    path = Path(os.environ.get("WARPSIGHT_CLI", REPO / "target" / "debug" / "warpsight"))
    if not path.is_file():
        if os.environ.get("WARPSIGHT_REQUIRE_CLI") == "1":
            pytest.fail(f"the warpsight binary is missing at {path}")
        pytest.skip(f"the warpsight binary is not built ({path})")
    return path


@pytest.fixture(scope="session")
def h100_raw():
    files = sorted(H100.glob("*.ncu-raw.csv"))
    assert files, "traces/h100-80gb-hbm3 has no ncu-raw exports"
    return files
