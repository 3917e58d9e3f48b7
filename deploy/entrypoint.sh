#!/bin/sh
# The image's entry point: `killmath serve "$@"`, after copying the numba kernels compiled
# into the image to NUMBA_CACHE_DIR (writable, unlike the image's read-only root), once per
# cache directory. Copying takes milliseconds; compiling them again would take some 20 s.
set -eu
baked=/opt/killmath/numba-cache
if [ -d "$baked" ] && [ ! -e "$NUMBA_CACHE_DIR/.from-image" ]; then
    mkdir -p "$NUMBA_CACHE_DIR"
    cp -R "$baked/." "$NUMBA_CACHE_DIR/"
    touch "$NUMBA_CACHE_DIR/.from-image"
fi
exec killmath serve "$@"
