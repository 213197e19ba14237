# Shared by the deploy checks (source it; set `label` first): counting, the summary line that
# check-manifests adds up, and installing missing Debian packages.

passed=0
failed=0

# pass DESCRIPTION
pass() { passed=$((passed + 1)); echo "ok   - ${label:+$label: }$1"; }

# fail DESCRIPTION [DETAIL] — the detail (command output) is shown indented, last 20 lines.
fail() {
    failed=$((failed + 1))
    echo "FAIL - ${label:+$label: }$1"
    [ $# -lt 2 ] || sed 's/^/       /' <<<"$2" | tail -n 20
}

# Prints "N passed, M failed" and exits 1 when anything failed.
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && exit 0
    exit 1
}

# ensure_packages COMMAND:PACKAGE … — installs the Debian package of each missing command
# (with sudo when not root). Returns 1 when something is still missing afterwards.
ensure_packages() {
    local pair missing=()
    for pair in "$@"; do
        command -v "${pair%%:*}" >/dev/null || [ -x "/usr/sbin/${pair%%:*}" ] || missing+=("${pair#*:}")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "Installing ${missing[*]} …" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
        { $sudo apt-get update -qq >/dev/null 2>&1 &&
          $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; }
    for pair in "$@"; do
        command -v "${pair%%:*}" >/dev/null || [ -x "/usr/sbin/${pair%%:*}" ] || return 1
    done
}

# A free TCP port on 127.0.0.1.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# N free ports, all different: each socket stays bound until all are chosen (two calls of
# free_port may both get the port the first one just let go).
free_ports() {
    python3 -c 'import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))' "$1"
}

# wait_for_port PORT — up to 10 s for something to accept connections on 127.0.0.1:PORT.
wait_for_port() {
    local _
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
