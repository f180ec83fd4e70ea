"""The build backend of the `warpsight` package: maturin's, after building the plugins.

The architecture plugins are separate cdylib crates of the Cargo workspace (the members under
plugins/ whose library name starts with `warpsight_plugin_`, as core/plugin-host discovers
them). maturin builds only the extension crate, so before each wheel this backend runs
`cargo build` for those crates with the same profile, in the workspace's own target directory
(reusing what `cargo build --workspace` compiled), and copies the libraries into
python/warpsight/plugins/, where the package finds them at run time.

Environment:
- WARPSIGHT_BUILD_PROFILE: the Cargo profile of the extension and the plugins (default `dev`,
  the workspace's; `release` for an optimised wheel, which compiles polars again).
- CARGO: the cargo executable (default `cargo`).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import maturin
from maturin import *  # noqa: F401,F403  (the hooks this backend does not wrap)

HERE = Path(__file__).resolve().parent.parent
PACKAGE_PLUGINS = HERE / "python" / "warpsight" / "plugins"
PLUGIN_PREFIX = "warpsight_plugin_"


def _profile():
    return os.environ.get("WARPSIGHT_BUILD_PROFILE", "dev")


def _profile_dir(profile):
    return {"dev": "debug", "test": "debug", "bench": "release"}.get(profile, profile)


def _library_file(name):
    if sys.platform == "darwin":
        return f"lib{name}.dylib"
    if sys.platform == "win32":
        return f"{name}.dll"
    return f"lib{name}.so"


def _plugin_crates(metadata):
    """(package name, library name) of every shipped plugin crate of the workspace."""
    root = Path(metadata["workspace_root"])
    crates = []
    for package in metadata["packages"]:
        manifest = Path(package["manifest_path"])
        if root / "plugins" not in manifest.parents:
            continue
        for target in package["targets"]:
            if "cdylib" in target["kind"] and target["name"].startswith(PLUGIN_PREFIX):
                crates.append((package["name"], target["name"]))
    return crates


def build_plugins():
    """Builds the plugin crates and copies them into the package; returns their file names."""
    cargo = os.environ.get("CARGO", "cargo")
    manifest = HERE / "Cargo.toml"
    metadata = json.loads(
        subprocess.run(
            [cargo, "metadata", "--no-deps", "--format-version", "1", "--manifest-path", str(manifest)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    crates = _plugin_crates(metadata)
    if not crates:
        raise RuntimeError("warpsight build: no plugin crate found under plugins/ in the workspace")
    profile = _profile()
    command = [cargo, "build", "--manifest-path", str(manifest), "--profile", profile]
    for package, _ in crates:
        command += ["-p", package]
    print("warpsight build: " + " ".join(command), file=sys.stderr)
    subprocess.run(command, check=True)
    built = Path(metadata["target_directory"]) / _profile_dir(profile)
    if PACKAGE_PLUGINS.exists():
        shutil.rmtree(PACKAGE_PLUGINS)
    PACKAGE_PLUGINS.mkdir(parents=True)
    names = []
    for _, library in crates:
        source = built / _library_file(library)
        shutil.copy2(source, PACKAGE_PLUGINS / source.name)
        names.append(source.name)
    print(f"warpsight build: bundled {len(names)} plugins: {', '.join(sorted(names))}", file=sys.stderr)
    return names


def _maturin_args():
    """maturin's arguments: the profile unless the caller chose one."""
    args = os.environ.get("MATURIN_PEP517_ARGS", "")
    profile = _profile()
    if profile != "dev" and "--profile" not in args and "--release" not in args:
        os.environ["MATURIN_PEP517_ARGS"] = f"{args} --profile {profile}".strip()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    build_plugins()
    _maturin_args()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    build_plugins()
    _maturin_args()
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)
