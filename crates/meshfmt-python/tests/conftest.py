"""Where the tests find the repository's fixtures, the samples, the hostile corpus and
the meshfmt command."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _required() -> bool:
    return os.environ.get("MESHFMT_REQUIRE_SAMPLES", "") not in ("", "0")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def samples() -> Path:
    """../shared/samples beside the checkout (or $MESHFMT_SAMPLES); skipped with a
    notice when absent, a failure when MESHFMT_REQUIRE_SAMPLES is set."""
    d = Path(os.environ.get("MESHFMT_SAMPLES", ROOT.parent / "shared" / "samples"))
    if not d.is_dir():
        if _required():
            pytest.fail(f"samples folder {d} not found (MESHFMT_REQUIRE_SAMPLES is set)")
        pytest.skip(f"samples folder {d} not found")
    return d


@pytest.fixture(scope="session")
def meshfmt_bin() -> Path:
    """The meshfmt command: $MESHFMT_BIN, else the workspace's target/release or
    target/debug build, else the one on PATH."""
    for c in (
        os.environ.get("MESHFMT_BIN"),
        ROOT / "target" / "release" / "meshfmt",
        ROOT / "target" / "debug" / "meshfmt",
        shutil.which("meshfmt"),
    ):
        if c and Path(c).is_file():
            return Path(c)
    if _required():
        pytest.fail("the meshfmt command is not built (cargo build -p meshfmt)")
    pytest.skip("the meshfmt command is not built")


@pytest.fixture(scope="session")
def hostile(tmp_path_factory) -> Path:
    """fuzz_checks::hostile's corpus as files: $MESHFMT_HOSTILE_DIR, else written by
    `cargo xtask hostile`."""
    given = os.environ.get("MESHFMT_HOSTILE_DIR")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("hostile")
    cargo = shutil.which("cargo")
    if cargo is None:
        if _required():
            pytest.fail("no MESHFMT_HOSTILE_DIR and no cargo to write the corpus")
        pytest.skip("no MESHFMT_HOSTILE_DIR and no cargo")
    subprocess.run([cargo, "xtask", "hostile", str(out)], cwd=ROOT, check=True)
    return out
