"""Reads deploy/docker/Dockerfile (no Docker engine runs here) and checks that it stays the image
deploy/README.md describes and mirrors the release folder: a Swift build stage that runs
deploy/release/build, a bookworm-slim runtime with only the C libraries, the folder copied to
/opt/herald with HERALD_MIGRATIONS_DIR/HERALD_PUBLIC_DIR pointing into it, a numeric non-root
user (the one the Kubernetes manifests run as), a health check on a file in the image, port 8080
on 0.0.0.0, and every file it copies admitted by Dockerfile.dockerignore.
Prints one line per check and "N passed, M failed" last; exits 1 when any check failed."""
import fnmatch
import os
import re
import shlex
import sys

root = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
dockerfile = os.path.join(root, "deploy", "docker", "Dockerfile")
results = []


def check(condition, description, detail=""):
    results.append(bool(condition))
    print(("ok   - docker: " if condition else "FAIL - docker: ") + description + ("" if condition or not detail else f" ({detail})"))


with open(dockerfile, encoding="utf-8") as stream:
    text = re.sub(r"\\\n", " ", stream.read())  # join continuation lines
instructions = []
for line in text.splitlines():
    line = line.strip()
    if line and not line.startswith("#"):
        keyword, _, rest = line.partition(" ")
        instructions.append((keyword.upper(), rest.strip()))

args = dict(re.match(r"(\w+)=(\S+)", rest).groups() for keyword, rest in instructions
            if keyword == "ARG" and "=" in rest and re.match(r"(\w+)=(\S+)", rest))
stages = [i for i, (keyword, _) in enumerate(instructions) if keyword == "FROM"]
check(len(stages) == 2, "two stages (build, runtime)", f"{len(stages)} FROM lines")
runtime = instructions[stages[-1]:] if stages else []
build = instructions[stages[0]:stages[-1]] if len(stages) == 2 else []


def image(from_line):
    name = from_line.split()[0]
    return re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), m.group(0)), name)


if len(stages) == 2:
    check(re.fullmatch(r"swift:6\.\d+(\.\d+)?-bookworm", image(build[0][1])), "build stage is a Swift 6 bookworm image", image(build[0][1]))
    check(image(runtime[0][1]) == "debian:bookworm-slim", "runtime stage is debian:bookworm-slim", image(runtime[0][1]))

build_runs = " ".join(rest for keyword, rest in build if keyword == "RUN")
output = re.search(r"deploy/release/build\s+--output\s+(\S+)", build_runs)
check(output, "build stage assembles the folder with deploy/release/build --output")
copies = [rest for keyword, rest in runtime if keyword == "COPY"]
folder_copy = [c for c in copies if output and c.startswith("--from=build") and c.split()[1] == output.group(1)]
check(folder_copy and folder_copy[0].split()[2].rstrip("/") == "/opt/herald", "runtime copies that folder to /opt/herald")

installed = set()
for keyword, rest in runtime:
    if keyword == "RUN":
        for match in re.finditer(r"apt-get install ([^&;|]*)", rest):
            installed |= {word for word in match.group(1).split() if not word.startswith("-")}
check({"libpq5", "libcurl4", "libssl3", "ca-certificates"} <= installed, "runtime installs libpq5, libcurl4, libssl3, ca-certificates", f"{sorted(installed)}")
extra = installed - {"libpq5", "libcurl4", "libssl3", "ca-certificates", "libstdc++6", "tzdata"}
check(not extra, "runtime installs nothing else (no compilers, no curl)", f"{sorted(extra)}")

environment = {}
for keyword, rest in runtime:
    if keyword == "ENV":
        environment.update(dict(pair.split("=", 1) for pair in shlex.split(rest) if "=" in pair))
check(environment.get("HERALD_HOST") == "0.0.0.0", "HERALD_HOST=0.0.0.0")
check(environment.get("HERALD_MIGRATIONS_DIR") == "/opt/herald/Migrations", "HERALD_MIGRATIONS_DIR is the folder's Migrations")
check(environment.get("HERALD_PUBLIC_DIR") == "/opt/herald/Public", "HERALD_PUBLIC_DIR is the folder's Public")
with open(os.path.join(root, "deploy", "release", "build"), encoding="utf-8") as stream:
    release = stream.read()
check('"$staging/Migrations"' in release and '"$staging/Public"' in release and '"$staging/bin/herald"' in release,
      "deploy/release/build makes bin/herald, Migrations and Public, the paths the image uses")

users = [rest for keyword, rest in runtime if keyword == "USER"]
uid = users[-1].split(":")[0] if users else ""
check(uid.isdigit() and int(uid) != 0, "runs as a numeric non-root user", f"USER {uid}")
kubernetes_users = set()
for name in os.listdir(os.path.join(root, "deploy", "kubernetes")):
    with open(os.path.join(root, "deploy", "kubernetes", name), encoding="utf-8") as stream:
        kubernetes_users |= set(re.findall(r"runAsUser:\s*(\d+)", stream.read()))
check(kubernetes_users == {uid}, "the Kubernetes manifests run as the image's user", f"{kubernetes_users} vs {uid}")

check(any(k == "EXPOSE" and r.split()[0] in ("8080", "8080/tcp") for k, r in runtime), "EXPOSE 8080")
health = [rest for keyword, rest in runtime if keyword == "HEALTHCHECK"]
check(health and "CMD" in health[0], "has a HEALTHCHECK")
probe = re.search(r'CMD \["([^"]+)"', health[0]) if health else None
copied_to = {c.split()[-1] for c in copies}
check(probe and probe.group(1) in copied_to, "the health check runs a file copied into the image", probe.group(1) if probe else "")
check(any(k == "ENTRYPOINT" and "/opt/herald/bin/herald" in r for k, r in runtime), "ENTRYPOINT is /opt/herald/bin/herald")

# Every path copied from the build context must exist and pass Dockerfile.dockerignore.
with open(dockerfile + ".dockerignore", encoding="utf-8") as stream:
    rules = [line.strip() for line in stream if line.strip() and not line.startswith("#")]


def admitted(path):
    verdict = True
    for rule in rules:
        negate = rule.startswith("!")
        pattern = rule.lstrip("!").rstrip("/")
        if fnmatch.fnmatch(path, pattern) or path.startswith(pattern + "/"):
            verdict = negate
    return verdict


sources = []
for keyword, rest in build + runtime:
    if keyword == "COPY" and not rest.startswith("--from"):
        sources += [s for s in rest.split()[:-1] if not s.startswith("--")]
for source in sources:
    paths = [source] if "*" not in source else [p for p in os.listdir(root) if fnmatch.fnmatch(p, source)]
    for path in paths:
        check(os.path.exists(os.path.join(root, path)) and admitted(path), f"COPY {path} exists and is in the build context")

passed = sum(results)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
