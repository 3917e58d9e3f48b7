"""The Kubernetes manifests render, validate strictly, and keep the issue-6 contract.

`deploy/validate.sh` is the CI gate (kubectl kustomize | kubernetes-validate --strict); these
tests run it, prove it rejects a bad manifest, and check what schema validation cannot: probe
paths, security context, replica counts, where the Redis URL comes from, and that every
setting the ConfigMap carries is a real `KILLMATH_*` setting.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from service.settings import Settings

REPO = Path(__file__).resolve().parents[1]
VALIDATE = REPO / "deploy" / "validate.sh"
OVERLAYS = REPO / "deploy" / "k8s" / "overlays"
OVERLAY_NAMES = ("dev", "prod", "prod-cluster")

if shutil.which("kubectl") is None:
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        pytest.fail("kubectl is required in CI to validate deploy/k8s", pytrace=False)
    pytest.skip(
        "kubectl is not installed (CI unset); deploy/k8s not validated", allow_module_level=True
    )


def _env() -> dict[str, str]:
    """PATH with this interpreter's scripts first, where the dev extra put kubernetes-validate."""
    bin_dir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}


def _validate(*overlays: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(VALIDATE), *map(str, overlays)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )


def _render(overlay: str) -> list[dict]:
    out = subprocess.run(
        ["kubectl", "kustomize", str(OVERLAYS / overlay)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def _one(docs: list[dict], kind: str, name: str) -> dict:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind}/{name}, found {len(found)}"
    return found[0]


def _api_container(docs: list[dict]) -> dict:
    return _one(docs, "Deployment", "killmath")["spec"]["template"]["spec"]["containers"][0]


def test_every_overlay_validates_strictly():
    result = _validate()
    assert result.returncode == 0, result.stdout + result.stderr
    for overlay in OVERLAY_NAMES:
        assert f"overlays/{overlay} (Kubernetes" in result.stdout
    assert "passed for resource deployment/killmath" in result.stdout


def test_validation_rejects_unknown_fields(tmp_path):
    """Strict mode is what makes the gate worth having: a misspelt field must fail it."""
    (tmp_path / "kustomization.yaml").write_text("resources:\n  - svc.yaml\n")
    (tmp_path / "svc.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n"
        "spec:\n  ports:\n    - port: 80\n      targetPorts: 8000\n"
    )
    result = _validate(tmp_path)
    assert result.returncode != 0
    assert "did not validate" in result.stdout


def test_validation_rejects_kinds_without_schema(tmp_path):
    (tmp_path / "kustomization.yaml").write_text("resources:\n  - thing.yaml\n")
    (tmp_path / "thing.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: x\n"
    )
    result = _validate(tmp_path)
    assert result.returncode != 0
    assert "without a schema" in result.stderr


def test_validation_fails_loudly_without_kubernetes_validate(tmp_path):
    env = {**os.environ, "KUBERNETES_VALIDATE": str(tmp_path / "missing")}
    result = subprocess.run(
        ["bash", str(VALIDATE)], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert result.returncode != 0
    assert "not found" in result.stderr


@pytest.mark.parametrize("overlay", OVERLAY_NAMES)
def test_pod_is_probed_and_locked_down(overlay):
    docs = _render(overlay)
    pod = _one(docs, "Deployment", "killmath")["spec"]["template"]
    container = pod["spec"]["containers"][0]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert {"cpu", "memory"} <= container["resources"]["requests"].keys()
    assert {"cpu", "memory"} <= container["resources"]["limits"].keys()
    security = container["securityContext"]
    assert security["runAsNonRoot"] is True
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    annotations = pod["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    assert annotations["prometheus.io/port"] == str(container["ports"][0]["containerPort"])


@pytest.mark.parametrize("overlay", OVERLAY_NAMES)
def test_selectors_match_the_pods(overlay):
    docs = _render(overlay)
    pod_labels = _one(docs, "Deployment", "killmath")["spec"]["template"]["metadata"]["labels"]

    def selects(selector: dict) -> bool:
        return selector.items() <= pod_labels.items()

    assert selects(_one(docs, "Service", "killmath")["spec"]["selector"])
    assert selects(_one(docs, "PodDisruptionBudget", "killmath")["spec"]["selector"]["matchLabels"])
    assert selects(_one(docs, "NetworkPolicy", "killmath")["spec"]["podSelector"]["matchLabels"])
    hpa = _one(docs, "HorizontalPodAutoscaler", "killmath")["spec"]
    target = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "killmath"}
    assert hpa["scaleTargetRef"] == target
    assert [m["resource"]["name"] for m in hpa["metrics"]] == ["cpu"]


@pytest.mark.parametrize("overlay", OVERLAY_NAMES)
def test_network_policy_allows_only_http_in_and_redis_and_dns_out(overlay):
    docs = _render(overlay)
    policy = _one(docs, "NetworkPolicy", "killmath")["spec"]
    assert sorted(policy["policyTypes"]) == ["Egress", "Ingress"]
    container_port = _api_container(docs)["ports"][0]
    assert [p["port"] for rule in policy["ingress"] for p in rule["ports"]] == [
        container_port["name"]
    ]
    egress = sorted((p["protocol"], p["port"]) for rule in policy["egress"] for p in rule["ports"])
    assert egress == [("TCP", 53), ("TCP", 6379), ("UDP", 53)]
    dns = next(rule for rule in policy["egress"] if rule.get("to"))
    assert dns["to"][0]["podSelector"]["matchLabels"] == {"k8s-app": "kube-dns"}


@pytest.mark.parametrize("overlay", OVERLAY_NAMES)
def test_configmap_holds_real_settings(overlay):
    docs = _render(overlay)
    (config,) = [d for d in docs if d["kind"] == "ConfigMap"]
    container = _api_container(docs)
    assert container["envFrom"] == [{"configMapRef": {"name": config["metadata"]["name"]}}]
    known = {f"KILLMATH_{name.upper()}" for name in Settings.model_fields}
    assert set(config["data"]) <= known, set(config["data"]) - known
    settings = {k.removeprefix("KILLMATH_").lower(): v for k, v in config["data"].items()}
    Settings.model_validate(settings)


MEBI = {"Mi": 2**20, "Gi": 2**30}


@pytest.mark.parametrize("overlay", OVERLAY_NAMES)
def test_the_memory_budget_is_set_from_the_pods_limit(overlay):
    """KILLMATH_MEMORY_LIMIT is the container's own limit (Downward API), and the budget the
    settings derive from it with the ConfigMap's reserve stays below it (issue 34)."""
    docs = _render(overlay)
    container = _api_container(docs)
    env = {e["name"]: e for e in container.get("env", [])}
    source = env["KILLMATH_MEMORY_LIMIT"]["valueFrom"]["resourceFieldRef"]
    assert source == {"containerName": container["name"], "resource": "limits.memory"}
    limit = container["resources"]["limits"]["memory"]
    limit_bytes = int(limit[:-2]) * MEBI[limit[-2:]]
    (config,) = [d for d in docs if d["kind"] == "ConfigMap"]
    settings = {k.removeprefix("KILLMATH_").lower(): v for k, v in config["data"].items()}
    budget = Settings.model_validate({**settings, "memory_limit": limit_bytes}).admitted_bytes
    assert "KILLMATH_MEMORY_BUDGET" not in config["data"]  # derived, never set apart
    assert 256 * 2**20 <= budget <= limit_bytes - 256 * 2**20


def test_dev_runs_one_replica_with_in_cluster_redis():
    docs = _render("dev")
    assert _one(docs, "Deployment", "killmath")["spec"]["replicas"] == 1
    redis = _one(docs, "Deployment", "killmath-redis")
    service = _one(docs, "Service", "killmath-redis")
    assert (
        service["spec"]["selector"].items()
        <= redis["spec"]["template"]["metadata"]["labels"].items()
    )
    (config,) = [d for d in docs if d["kind"] == "ConfigMap"]
    port = service["spec"]["ports"][0]["port"]
    assert config["data"]["KILLMATH_REDIS_URL"] == f"redis://killmath-redis:{port}/0"


@pytest.mark.parametrize("overlay", ["prod", "prod-cluster"])
def test_prod_runs_three_replicas_with_redis_url_from_a_secret(overlay):
    docs = _render(overlay)
    assert _one(docs, "Deployment", "killmath")["spec"]["replicas"] >= 3
    assert _one(docs, "HorizontalPodAutoscaler", "killmath")["spec"]["minReplicas"] >= 3
    (config,) = [d for d in docs if d["kind"] == "ConfigMap"]
    assert "KILLMATH_REDIS_URL" not in config["data"]
    env = {e["name"]: e for e in _api_container(docs)["env"]}
    assert "secretKeyRef" in env["KILLMATH_REDIS_URL"]["valueFrom"]
    assert not [d for d in docs if d["kind"] == "Secret"], "secrets are never committed"


def test_prod_cluster_is_prod_with_the_url_a_cluster_seed_node():
    """The Redis Cluster variant differs from prod in one setting, which the service reads as
    a boolean; prod itself talks to one Redis."""

    def settings(overlay: str) -> dict[str, str]:
        (config,) = [d for d in _render(overlay) if d["kind"] == "ConfigMap"]
        return config["data"]

    cluster, single = settings("prod-cluster"), settings("prod")
    assert cluster == single | {"KILLMATH_REDIS_CLUSTER": "true"}
    assert Settings(redis_cluster=cluster["KILLMATH_REDIS_CLUSTER"]).redis_cluster is True


@pytest.mark.parametrize("overlay", OVERLAY_NAMES)
def test_every_replica_signs_redis_entries_with_one_key_from_a_secret(overlay):
    """KILLMATH_CACHE_KEY comes from a Secret every replica reads (none would share an entry
    otherwise), required: dev's is generated beside the manifests, prod's is the operators'."""
    docs = _render(overlay)
    env = {e["name"]: e for e in _api_container(docs)["env"]}
    ref = env["KILLMATH_CACHE_KEY"]["valueFrom"]["secretKeyRef"]
    assert ref["optional"] is False
    secrets = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Secret"}
    if overlay == "dev":
        assert ref["name"] in secrets and ref["key"] in secrets[ref["name"]]["data"]
    else:
        assert ref["name"].startswith("killmath-cache-key") and not secrets


def test_matrix_is_an_indexed_job_of_the_service_image_and_secrets():
    """Issue 31: `killmath matrix` as an Indexed Job, N written three times and agreeing, the
    service's image (tag as prod's), Redis URL and cache key from the service's Secrets, the
    parts on a volume shared by every index, locked down like the API pods."""
    docs = _render("matrix")
    job = _one(docs, "Job", "killmath-matrix")["spec"]
    assert job["completionMode"] == "Indexed"
    pod = job["template"]["spec"]
    (container,) = pod["containers"]
    args = container["args"]
    assert args[0] == "matrix"
    shards = int(args[args.index("--shards") + 1])
    assert job["completions"] == job["parallelism"] == shards
    assert pod["restartPolicy"] == "Never"
    api = _api_container(_render("prod"))
    assert container["image"] == api["image"]
    env = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in container["env"]}
    assert env["KILLMATH_REDIS_URL"] == {"name": "killmath-redis", "key": "url", "optional": False}
    assert env["KILLMATH_CACHE_KEY"]["name"] == "killmath-cache-key"
    out = args[args.index("--out") + 1]
    (mount,) = [m for m in container["volumeMounts"] if m["mountPath"] == out]
    (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    claim = _one(docs, "PersistentVolumeClaim", volume["persistentVolumeClaim"]["claimName"])
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["capabilities"]["drop"] == ["ALL"]
    (config,) = [d for d in docs if d["kind"] == "ConfigMap"]
    assert container["envFrom"] == [{"configMapRef": {"name": config["metadata"]["name"]}}]
    known = {f"KILLMATH_{name.upper()}" for name in Settings.model_fields}
    assert set(config["data"]) <= known, set(config["data"]) - known
    policy = _one(docs, "NetworkPolicy", "killmath-matrix")["spec"]
    labels = job["template"]["metadata"]["labels"]
    assert policy["podSelector"]["matchLabels"].items() <= labels.items()
    assert "ingress" not in policy
    assert not [d for d in docs if d["kind"] in ("Secret", "Deployment")]


def test_the_image_entry_point_runs_the_matrix(tmp_path):
    """The Job's first argument `matrix` runs `killmath matrix`; anything else is `serve`'s."""
    fake = tmp_path / "killmath"
    fake.write_text('#!/bin/sh\necho "$@"\n')
    fake.chmod(0o755)
    entry = REPO / "deploy" / "entrypoint.sh"
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")

    def run(*args: str) -> str:
        done = subprocess.run(["sh", str(entry), *args], capture_output=True, text=True,
                              env=env, timeout=30, check=True)  # fmt: skip
        return done.stdout.strip()

    assert run("matrix", "--shards", "8") == "matrix --shards 8"
    assert run("--host", "0.0.0.0") == "serve --host 0.0.0.0"
