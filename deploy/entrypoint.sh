#!/bin/sh
# The image's entry point: `killmath serve "$@"` (`killmath matrix ...` when the first argument
# is `matrix`: the matrix Job, deploy/k8s/matrix), after copying the numba kernels compiled
# into the image to NUMBA_CACHE_DIR (writable, unlike the image's read-only root), once per
# cache directory. Copying takes milliseconds; compiling them again would take some 20 s.
set -eu
baked=/opt/killmath/numba-cache
if [ -d "$baked" ] && [ ! -e "$NUMBA_CACHE_DIR/.from-image" ]; then
    mkdir -p "$NUMBA_CACHE_DIR"
    cp -R "$baked/." "$NUMBA_CACHE_DIR/"
    touch "$NUMBA_CACHE_DIR/.from-image"
fi
if [ "${1:-}" = matrix ]; then
    exec killmath "$@"
fi
exec killmath serve "$@"
