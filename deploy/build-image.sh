#!/usr/bin/env bash
# Build the service image and print its tag as the last line.
#
#   deploy/build-image.sh [TAG]          # default killmath:<version in pyproject.toml>
#
# BASE_IMAGE (default killmath-base:bookworm) is the image both stages start from: any Debian
# or python:3.11-slim-bookworm-like image with `python3 -m venv`. When it is not present
# locally and is the default, it is made here from Debian's own packages with debootstrap
# (bookworm's python3 is 3.11), so no registry of images is needed; the root file system is
# kept as a tarball in BASE_CACHE (default ~/.cache/killmath) for the next build.
# The build runs with host networking: pip reaches the package index directly.
# DOCKER (default docker) is the client; DOCKER_HOST picks the daemon as usual.
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(python3 -c "import tomllib; print(tomllib.load(open('pyproject.toml', 'rb'))['project']['version'])")"
tag="${1:-killmath:$version}"
DOCKER="${DOCKER:-docker}"
BASE_IMAGE="${BASE_IMAGE:-killmath-base:bookworm}"
BASE_CACHE="${BASE_CACHE:-$HOME/.cache/killmath}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

say() { echo "build-image: $*" >&2; }

make_base() {
    # A minimal Debian with Python 3.11, venv and CA certificates: nothing else is needed at
    # run time, and the build stage needs no compiler (the lock file pins wheels only).
    local tarball="$BASE_CACHE/debian-bookworm-python3.tar"
    if [[ ! -s "$tarball" ]]; then
        command -v debootstrap >/dev/null || {
            say "FAILED: no base image '$BASE_IMAGE' and no debootstrap (apt-get install debootstrap)"
            exit 2
        }
        mkdir -p "$BASE_CACHE"
        local root
        root="$(mktemp -d "$BASE_CACHE/rootfs.XXXXXX")"
        trap 'rm -rf "$root"' RETURN
        say "making $BASE_IMAGE with debootstrap from $DEBIAN_MIRROR (once; cached in $tarball)"
        debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
            bookworm "$root" "$DEBIAN_MIRROR" >&2
        rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin \
            "$root"/var/cache/apt/archives/*.deb "$root"/var/log/*
        tar -C "$root" --numeric-owner -cf "$tarball.tmp" .
        mv "$tarball.tmp" "$tarball"
    fi
    "$DOCKER" import --change 'CMD ["/bin/bash"]' "$tarball" "$BASE_IMAGE" >/dev/null
}

if ! "$DOCKER" image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    if [[ "$BASE_IMAGE" != killmath-base:* ]]; then
        say "FAILED: base image '$BASE_IMAGE' is not present (docker pull or load it first)"
        exit 2
    fi
    make_base
fi

# The builder's CA certificates, for pip inside the build (a network whose TLS a local CA
# re-signs): BUILD_CA_BUNDLE, else pip's own `cert` setting, else the system bundle; an empty
# file when there is none (the image's own certificates are then used).
ca="${BUILD_CA_BUNDLE:-$(python3 -m pip config get global.cert 2>/dev/null || true)}"
[[ -n "$ca" && -s "$ca" ]] || ca=/etc/ssl/certs/ca-certificates.crt
if [[ -s "$ca" ]]; then cp "$ca" build-ca.pem; else : >build-ca.pem; fi
trap 'rm -f build-ca.pem' EXIT

# killmath's own wheel, built here: its build step vendors the pages' pinned assets with npm
# (setup.py), which the image then needs no more than a compiler.
rm -rf build/image-wheel
python3 -m pip wheel --quiet --no-deps --wheel-dir build/image-wheel . >&2

say "building $tag from $BASE_IMAGE"
# The classic builder: it needs neither BuildKit's frontend image nor a buildx plugin.
DOCKER_BUILDKIT=0 "$DOCKER" build --network host --build-arg "BASE_IMAGE=$BASE_IMAGE" \
    -f deploy/Dockerfile -t "$tag" . >&2
echo "$tag"
