"""Build step: the pages' JavaScript and CSS, vendored from npm before the package data is
collected (everything else about the package is in pyproject.toml).

`service/static/vendor.json` pins each npm package by version and integrity and lists the
files the pages use. `npm pack` (npm's own client and cache; no install, no scripts run)
fetches each tarball, its sha512 is checked against the pin, and only the listed files are
unpacked into `service/static/vendor/<name>@<version>/` (git-ignored), so the minified
bundles never enter the repository. setuptools runs `build_py` for a wheel and for an editable
install alike: `pip install .`, `pip install -e .` and the Docker image all carry the assets, and
the service then needs no network to serve its pages. A stamp (the manifest copied beside the
files) makes a rebuild with unchanged pins a no-op that needs no npm at all. Without npm and
without the files the build fails and says why: a package whose pages are blank is broken.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

STATIC = Path(__file__).resolve().parent / "service" / "static"
MANIFEST = STATIC / "vendor.json"
VENDOR = STATIC / "vendor"
STAMP = VENDOR / "vendor.json"


def _integrity(path: Path) -> str:
    """npm's Subresource Integrity string of a file (`sha512-<base64>`)."""
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def _complete(wanted: str) -> bool:
    if not STAMP.is_file() or STAMP.read_text() != wanted:
        return False
    packages = json.loads(wanted)["packages"]
    return all(
        (VENDOR / f"{name}@{pin['version']}" / file).is_file()
        for name, pin in packages.items()
        for file in pin["files"]
    )


def vendor() -> None:
    """Fill `service/static/vendor/` from the pinned npm packages, unless it is current."""
    wanted = MANIFEST.read_text()
    if _complete(wanted):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(
            "killmath: the pages' assets (service/static/vendor.json) come from the npm "
            "registry at build time and npm is not installed (Debian: apt-get install npm)"
        )
    packages = json.loads(wanted)["packages"]
    with tempfile.TemporaryDirectory() as tmp:
        specs = [f"{name}@{pin['version']}" for name, pin in packages.items()]
        packed = subprocess.run(
            [npm, "pack", *specs, "--json", "--ignore-scripts", "--prefer-offline"],
            cwd=tmp,
            check=True,
            capture_output=True,
            text=True,
        )
        tarballs = {
            entry["name"]: Path(tmp) / entry["filename"] for entry in json.loads(packed.stdout)
        }
        shutil.rmtree(VENDOR, ignore_errors=True)
        for name, pin in packages.items():
            tarball = tarballs[name]
            if _integrity(tarball) != pin["integrity"]:
                raise SystemExit(
                    f"killmath: {name}@{pin['version']} does not match its pinned integrity"
                )
            target = VENDOR / f"{name}@{pin['version']}"
            with tarfile.open(tarball) as archive:
                for file in pin["files"]:
                    member = archive.extractfile(f"package/{file}")
                    if member is None:
                        raise SystemExit(f"killmath: {name}@{pin['version']} has no {file}")
                    (target / file).parent.mkdir(parents=True, exist_ok=True)
                    (target / file).write_bytes(member.read())
    STAMP.write_text(wanted)


class BuildPy(build_py):
    """setuptools' build_py, after vendoring the pages' assets into the source tree."""

    def run(self) -> None:
        vendor()
        super().run()


setup(cmdclass={"build_py": BuildPy})
