#!/usr/bin/env bash
# Validate the rendered Kubernetes manifests of every overlay, offline, without a cluster.
#
#   deploy/validate.sh                 # every overlay under deploy/k8s/overlays/
#   deploy/validate.sh path/to/overlay # only these kustomize directories
#
# Each overlay is rendered with `kubectl kustomize` and checked by kubernetes-validate in strict
# mode (unknown fields are errors) against the schemas it bundles for K8S_VERSION. A missing
# tool is a failure, never a skip: CI must not go green without having validated anything.
# A resource whose kind has no bundled schema is reported by kubernetes-validate as a WARN and
# would pass; here it fails, so every manifest we ship is really checked.
set -euo pipefail

# The oldest schema set every kubernetes-validate allowed by the dev extra (>=1.30) bundles;
# the manifests use nothing newer (autoscaling/v2, policy/v1, networking.k8s.io/v1).
K8S_VERSION="${K8S_VERSION:-1.30.0}"
KUBECTL="${KUBECTL:-kubectl}"
KUBERNETES_VALIDATE="${KUBERNETES_VALIDATE:-kubernetes-validate}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

for tool in "$KUBECTL" "$KUBERNETES_VALIDATE"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "deploy/validate.sh: FAILED: '$tool' not found on PATH (kubectl ships with the" \
             "machine; kubernetes-validate comes with the dev lock: pip install -r requirements-dev.lock)" >&2
        exit 2
    fi
done

if [[ $# -gt 0 ]]; then
    overlays=("$@")
else
    overlays=("$here"/k8s/overlays/*/)
fi

status=0
for overlay in "${overlays[@]}"; do
    overlay="${overlay%/}"
    echo "== $overlay (Kubernetes $K8S_VERSION, strict)"
    rendered="$("$KUBECTL" kustomize "$overlay")" || {
        echo "FAILED: kubectl kustomize $overlay" >&2
        status=1
        continue
    }
    if [[ -z "$rendered" ]]; then
        echo "FAILED: $overlay renders no resources" >&2
        status=1
        continue
    fi
    report="$("$KUBERNETES_VALIDATE" --strict --kubernetes-version "$K8S_VERSION" - <<<"$rendered")" \
        || status=1
    echo "$report"
    if grep -q '^WARN' <<<"$report"; then
        echo "FAILED: $overlay has resources without a schema to validate against" >&2
        status=1
    fi
done

if [[ $status -ne 0 ]]; then
    echo "deploy/validate.sh: FAILED" >&2
else
    echo "deploy/validate.sh: all overlays valid"
fi
exit "$status"
