"""Checks the Kubernetes manifests in deploy/kubernetes (or the folder given as the first
argument) for what Herald's operation depends on: every file parses, the Deployment runs 3
replicas with /readyz, /healthz and startup probes on a declared port, resource requests, a
non-root read-only container, no migrations at start; the Service and the PodDisruptionBudget
select its pods (and not the migration Job's); the Job runs `herald migrate` with the same image;
every Secret and ConfigMap referenced exists; the Secret example holds placeholders only.
Prints one line per check and "N passed, M failed" last; exits 1 when any check failed."""
import os
import sys

import yaml

folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "kubernetes")
results = []


def check(condition, description, detail=""):
    results.append(bool(condition))
    line = ("ok   - k8s: " if condition else "FAIL - k8s: ") + description
    if not condition and detail:
        line += f" ({detail})"
    print(line)
    return bool(condition)


def get(obj, path, default=None):
    """obj at a dotted path ("spec.template.spec"), or default when any step is missing."""
    for key in path.split("."):
        if not isinstance(obj, dict) or key not in obj:
            return default
        obj = obj[key]
    return obj


# Field names Kubernetes accepts where a typo would silently switch a safeguard off
# (the API server only warns about unknown fields by default).
CONTAINER_FIELDS = {"name", "image", "imagePullPolicy", "command", "args", "workingDir", "ports", "env",
                    "envFrom", "resources", "volumeMounts", "volumeDevices", "livenessProbe", "readinessProbe",
                    "startupProbe", "lifecycle", "securityContext", "terminationMessagePath",
                    "terminationMessagePolicy", "stdin", "stdinOnce", "tty", "resizePolicy", "restartPolicy"}
POD_FIELDS = {"containers", "initContainers", "volumes", "restartPolicy", "terminationGracePeriodSeconds",
              "activeDeadlineSeconds", "dnsPolicy", "nodeSelector", "serviceAccountName",
              "automountServiceAccountToken", "securityContext", "imagePullSecrets", "affinity", "tolerations",
              "topologySpreadConstraints", "priorityClassName", "enableServiceLinks", "hostname", "subdomain",
              "schedulerName", "runtimeClassName", "dnsConfig", "hostAliases", "shareProcessNamespace",
              "readinessGates", "preemptionPolicy", "overhead", "setHostnameAsFQDN", "os", "hostUsers",
              "schedulingGates", "resourceClaims", "hostNetwork", "hostPID", "hostIPC", "nodeName"}
PROBE_FIELDS = {"httpGet", "tcpSocket", "exec", "grpc", "initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                "successThreshold", "failureThreshold", "terminationGracePeriodSeconds"}
CONTAINER_SECURITY_FIELDS = {"allowPrivilegeEscalation", "readOnlyRootFilesystem", "runAsNonRoot", "runAsUser",
                             "runAsGroup", "capabilities", "privileged", "seccompProfile", "procMount",
                             "seLinuxOptions", "windowsOptions", "appArmorProfile"}


def unknown(fields, allowed):
    return sorted(set(fields or {}) - allowed)


def selects(selector, labels):
    match = (selector or {}).get("matchLabels", selector) or {}
    return bool(match) and all(labels.get(key) == value for key, value in match.items())


# ---- parse ---------------------------------------------------------------------------------
documents = []
files = sorted(name for name in os.listdir(folder) if name.endswith((".yaml", ".yml")))
check(files, f"{folder} holds YAML files")
for name in files:
    path = os.path.join(folder, name)
    try:
        with open(path, encoding="utf-8") as stream:
            loaded = [document for document in yaml.safe_load_all(stream) if document is not None]
    except yaml.YAMLError as error:
        check(False, f"{name} parses", str(error).replace("\n", " "))
        continue
    complete = all(isinstance(d, dict) and d.get("apiVersion") and d.get("kind") and get(d, "metadata.name")
                   for d in loaded)
    if check(loaded and complete, f"{name} parses, each object with apiVersion, kind and metadata.name"):
        documents += [(name, document) for document in loaded]


def objects(kind):
    return [document for _, document in documents if document.get("kind") == kind]


def one(kind):
    found = objects(kind)
    check(len(found) == 1, f"exactly one {kind}", f"found {len(found)}")
    return found[0] if found else None


namespaces = {get(d, "metadata.namespace") for _, d in documents if d.get("kind") != "Namespace"}
check(len(namespaces) == 1 and None not in namespaces, "every object names the same namespace", f"{namespaces}")
declared_namespaces = {get(d, "metadata.name") for d in objects("Namespace")}
if declared_namespaces:
    check(namespaces <= declared_namespaces, "the namespace used is the one declared")

secrets = {get(d, "metadata.name"): d for d in objects("Secret")}
config_maps = {get(d, "metadata.name"): d for d in objects("ConfigMap")}


def secret_keys(name):
    secret = secrets.get(name) or {}
    return set(secret.get("data") or {}) | set(secret.get("stringData") or {})


def check_references(pod, owner):
    """Every Secret and ConfigMap the pod reads exists in the manifests, with the keys read."""
    for container in pod.get("containers", []):
        for source in container.get("envFrom", []):
            if "secretRef" in source:
                name = source["secretRef"]["name"]
                check(name in secrets, f"{owner}: Secret {name} (envFrom) is in the manifests")
            if "configMapRef" in source:
                name = source["configMapRef"]["name"]
                check(name in config_maps, f"{owner}: ConfigMap {name} (envFrom) is in the manifests")
        for variable in container.get("env", []):
            reference = get(variable, "valueFrom.secretKeyRef")
            if reference:
                check(reference["key"] in secret_keys(reference["name"]),
                      f"{owner}: {variable['name']} comes from Secret {reference['name']}, key {reference['key']}, "
                      f"which the manifests hold")
    for volume in pod.get("volumes", []):
        if "secret" in volume:
            name = volume["secret"]["secretName"]
            keys = {item["key"] for item in volume["secret"].get("items", [])}
            check(name in secrets and keys <= secret_keys(name),
                  f"{owner}: volume {volume['name']} mounts Secret {name} (keys {sorted(keys)}) from the manifests")


def effective_environment(container):
    environment = {}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            environment.update((config_maps.get(source["configMapRef"]["name"]) or {}).get("data") or {})
    for variable in container.get("env", []):
        environment[variable["name"]] = variable.get("value", variable.get("valueFrom"))
    return environment


def check_security(pod, container, owner):
    pod_context = pod.get("securityContext") or {}
    context = container.get("securityContext") or {}
    non_root = context.get("runAsNonRoot", pod_context.get("runAsNonRoot")) is True
    user = context.get("runAsUser", pod_context.get("runAsUser"))
    check(non_root and user not in (0, None), f"{owner}: runs as a non-root user", f"runAsNonRoot={non_root}, runAsUser={user}")
    check(context.get("readOnlyRootFilesystem") is True, f"{owner}: read-only root file system")
    check(context.get("allowPrivilegeEscalation") is False, f"{owner}: no privilege escalation")
    check("ALL" in (get(context, "capabilities.drop") or []), f"{owner}: drops all capabilities")
    check(not unknown(context, CONTAINER_SECURITY_FIELDS), f"{owner}: securityContext has only known fields",
          f"unknown: {unknown(context, CONTAINER_SECURITY_FIELDS)}")


def check_resources(container, owner):
    requests = get(container, "resources.requests") or {}
    limits = get(container, "resources.limits") or {}
    check(requests.get("cpu") and requests.get("memory"), f"{owner}: resources.requests sets cpu and memory", f"{requests}")
    check(limits.get("memory"), f"{owner}: resources.limits sets memory", f"{limits}")


# ---- the Deployment ------------------------------------------------------------------------
deployment = one("Deployment")
pod_labels = {}
container = {}
if deployment:
    pod = get(deployment, "spec.template.spec") or {}
    pod_labels = get(deployment, "spec.template.metadata.labels") or {}
    containers = pod.get("containers") or []
    container = containers[0] if containers else {}
    check(get(deployment, "spec.replicas") == 3, "Deployment runs 3 replicas", f"replicas={get(deployment, 'spec.replicas')}")
    check(selects(get(deployment, "spec.selector"), pod_labels), "Deployment selector matches its pod labels")
    check(len(containers) == 1, "Deployment has one container")
    check(not unknown(pod, POD_FIELDS), "Deployment pod spec has only known fields", f"unknown: {unknown(pod, POD_FIELDS)}")
    check(not unknown(container, CONTAINER_FIELDS), "Deployment container has only known fields",
          f"unknown: {unknown(container, CONTAINER_FIELDS)}")
    check(container.get("args", container.get("command", [])) in (["serve"], ["herald", "serve"], ["/opt/herald/bin/herald", "serve"]),
          "Deployment runs `herald serve`", f"args={container.get('args')}")

    ports = container.get("ports") or []
    port_refs = {p.get("name") for p in ports} | {p.get("containerPort") for p in ports}
    for probe_name, expected_path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz"), ("startupProbe", None)):
        probe = container.get(probe_name) or {}
        path = get(probe, "httpGet.path")
        port = get(probe, "httpGet.port")
        if expected_path:
            check(path == expected_path, f"{probe_name} asks {expected_path}", f"path={path}")
        else:
            check(path in ("/healthz", "/readyz"), f"{probe_name} asks /healthz or /readyz", f"path={path}")
        check(port in port_refs and port is not None, f"{probe_name} uses a declared container port", f"port={port}")
        check(not unknown(probe, PROBE_FIELDS), f"{probe_name} has only known fields", f"unknown: {unknown(probe, PROBE_FIELDS)}")
    check_resources(container, "Deployment")
    check_security(pod, container, "Deployment")

    environment = effective_environment(container)
    check(str(environment.get("HERALD_MIGRATE_ON_START", "")).lower() == "false",
          "Deployment sets HERALD_MIGRATE_ON_START=false (the Job migrates)")
    check(str(environment.get("HERALD_HOST")) == "0.0.0.0", "Deployment listens on 0.0.0.0")
    check(get(environment, "DATABASE_URL.secretKeyRef"), "DATABASE_URL comes from a Secret")
    key_path = environment.get("HERALD_SERVICE_ACCOUNT_KEY") or ""
    mounts = {m["name"]: m["mountPath"] for m in container.get("volumeMounts", [])}
    secret_volumes = {v["name"]: v["secret"] for v in pod.get("volumes", []) if "secret" in v}
    key_mounted = any(key_path == f"{mounts[name].rstrip('/')}/{item['path']}"
                      for name, source in secret_volumes.items() if name in mounts
                      for item in source.get("items", []))
    check(key_mounted, "HERALD_SERVICE_ACCOUNT_KEY names a file of a mounted Secret", f"{key_path}")
    check_references(pod, "Deployment")

    grace = pod.get("terminationGracePeriodSeconds", 30)
    pre_stop = get(container, "lifecycle.preStop.exec.command") or []
    pre_stop_seconds = int(pre_stop[-1]) if len(pre_stop) == 2 and pre_stop[0] == "sleep" else 0
    check(grace > pre_stop_seconds + 10, "terminationGracePeriodSeconds leaves Herald its 10 s to finish requests",
          f"grace={grace}, preStop sleep={pre_stop_seconds}")

# ---- Service and PodDisruptionBudget --------------------------------------------------------
job = one("Job")
job_labels = get(job, "spec.template.metadata.labels") or {}
service = one("Service")
if service and deployment:
    check(selects(get(service, "spec.selector"), pod_labels), "Service selects the Deployment's pods")
    check(not selects(get(service, "spec.selector"), job_labels), "Service does not select the migration Job's pod")
    names = {p.get("name") for p in container.get("ports", [])} | {p.get("containerPort") for p in container.get("ports", [])}
    targets = [p.get("targetPort") for p in get(service, "spec.ports") or []]
    check(targets and all(t in names for t in targets), "Service targets a declared container port", f"{targets}")

pdb = one("PodDisruptionBudget")
if pdb and deployment:
    check(selects(get(pdb, "spec.selector"), pod_labels), "PodDisruptionBudget selects the Deployment's pods")
    check(not selects(get(pdb, "spec.selector"), job_labels), "PodDisruptionBudget does not select the Job's pod")
    replicas = get(deployment, "spec.replicas") or 0
    minimum, most = get(pdb, "spec.minAvailable"), get(pdb, "spec.maxUnavailable")
    check((isinstance(minimum, int) and 1 <= minimum < replicas) or (isinstance(most, int) and most >= 1),
          "PodDisruptionBudget keeps pods up yet lets a node drain", f"minAvailable={minimum}, maxUnavailable={most}")

# ---- the migration Job ----------------------------------------------------------------------
if job:
    job_pod = get(job, "spec.template.spec") or {}
    job_container = (job_pod.get("containers") or [{}])[0]
    command = (job_container.get("command") or []) + (job_container.get("args") or [])
    check("migrate" in command, "Job runs `herald migrate`", f"{command}")
    check(job_pod.get("restartPolicy") in ("Never", "OnFailure"), "Job restartPolicy is Never or OnFailure")
    check(get(job, "spec.backoffLimit") is not None and get(job, "spec.activeDeadlineSeconds"),
          "Job has a backoffLimit and a deadline")
    if deployment:
        check(job_container.get("image") == container.get("image"), "Job uses the Deployment's image",
              f"{job_container.get('image')} vs {container.get('image')}")
    check(get(effective_environment(job_container), "DATABASE_URL.secretKeyRef"), "Job reads DATABASE_URL from a Secret")
    check(not unknown(job_container, CONTAINER_FIELDS), "Job container has only known fields",
          f"unknown: {unknown(job_container, CONTAINER_FIELDS)}")
    check_resources(job_container, "Job")
    check_security(job_pod, job_container, "Job")
    check_references(job_pod, "Job")

# ---- the Secret example holds no secret -----------------------------------------------------
for name, secret in secrets.items():
    values = list((secret.get("stringData") or {}).values()) + list((secret.get("data") or {}).values())
    leaked = [v for v in values if "PRIVATE KEY" in str(v) or "private_key" in str(v)]
    placeholders = all("REPLACE" in str(v) for v in values)
    check(not leaked and placeholders, f"Secret {name} holds placeholders only")

passed = sum(results)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
