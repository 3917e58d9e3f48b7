"""TypeScript types generated from a live server's `/openapi.json` compile against the
README's recipe (issue 15): openapi-typescript writes `paths`, openapi-fetch is typed by them,
and `tsc --strict` compiles `answer.expectedDamage` (which the untyped document refused with
TS2339) and rejects a member the answer does not declare.

Node and npm are the machine's; the three npm packages (pinned in
`tests/typescript/package.json`) are installed once into `tests/typescript/node_modules`
(git-ignored). Without node or npm the test is skipped, except under CI=true, where it fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from service_harness import Server

HERE = Path(__file__).resolve().parent / "typescript"
PACKAGES = HERE / "node_modules"
TSC_OPTIONS = (
    "--strict",
    "--noEmit",
    "--skipLibCheck",
    "--module",
    "esnext",
    "--moduleResolution",
    "bundler",
    "--target",
    "es2022",
)


def run(*command: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def toolchain() -> Path:
    """The installed node_modules (installed on first use)."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true and no node/npm to compile the TypeScript client")
        pytest.skip("no node/npm on this machine")
    if not (PACKAGES / ".bin" / "tsc").exists():
        done = run(
            npm, "install", "--no-package-lock", "--no-audit", "--no-fund", cwd=HERE, timeout=600
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return PACKAGES / ".bin"


def test_generated_types_compile_the_readme_recipe(
    toolchain: Path, server: Server, tmp_path: Path
) -> None:
    (tmp_path / "openapi.json").write_bytes(httpx.get(server.url + "/openapi.json").content)
    for name in ("answer.ts", "misread.ts"):
        shutil.copy(HERE / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(PACKAGES)
    generated = run(
        str(toolchain / "openapi-typescript"),
        "openapi.json",
        "-o",
        "killmath.d.ts",
        "--default-non-nullable",
        "false",
        cwd=tmp_path,
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    tsc = [str(toolchain / "tsc"), *TSC_OPTIONS]
    ok = run(*tsc, "answer.ts", cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    wrong = run(*tsc, "misread.ts", cwd=tmp_path)
    assert wrong.returncode != 0
    # every answer schema is closed: a member the answer does not declare is TS2339
    assert wrong.stdout.startswith("misread.ts(9,"), wrong.stdout
    assert "does not exist on type" in wrong.stdout, wrong.stdout  # TS2339 / TS2551
