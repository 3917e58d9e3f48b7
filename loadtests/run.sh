#!/usr/bin/env bash
# Load-test a local killmath server with Locust, headless, and judge the run.
#
#   loadtests/run.sh [-t 60s] [-u 30] [-r 10] [--p95-ms 250] [--workers 1] [--name run]
#                    [--soak] [--redis-restarts N] [--redis-down SECONDS]
#
# Starts `killmath serve` on a free loopback port (with Redis only when KILLMATH_REDIS_URL is
# set in the environment, otherwise the in-process cache alone), waits until /readyz answers,
# runs loadtests/locustfile.py for the given duration, and writes under loadtests/reports/:
#   <name>_stats.csv, <name>_stats_history.csv, <name>_failures.csv, <name>_exceptions.csv,
#   <name>.html, <name>_summary.json (req/s, p50/p95/p99, cache hit ratio from /metrics),
#   <name>_server.log.
# --soak: a 10-minute run (-t still overrides; name "soak", p95 bound 1000 ms unless given)
#   against a Redis of its own on a spare port (loadtests/redis_process.py; KILLMATH_REDIS_URL
#   is ignored), killed and restarted empty --redis-restarts times (default 2, evenly spaced:
#   at 1/3 and 2/3 of the run), each time down for --redis-down seconds (default 5: longer
#   than the breaker's cool-down); <name>_redis.log says when. The soak also fails if Redis
#   holds no entry at the end, i.e. caching did not resume after the last restart.
# The server (and the soak's Redis) is always stopped, whatever happens (trap). Exit status: 0
# only if Locust saw no failed request and the aggregated p95 stayed within --p95-ms.
# PYTHON selects the interpreter (default: the active venv's or python3); it needs the dev extra.
set -euo pipefail

duration=60s
users=30
spawn_rate=10
p95_ms=250
workers=1
name=""
soak=0
redis_restarts=""
redis_down=""

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        -t|--duration) duration="$2"; duration_given=1; shift 2 ;;
        -u|--users) users="$2"; shift 2 ;;
        -r|--spawn-rate) spawn_rate="$2"; shift 2 ;;
        --p95-ms) p95_ms="$2"; p95_given=1; shift 2 ;;
        --workers) workers="$2"; shift 2 ;;
        --name) name="$2"; shift 2 ;;
        --soak) soak=1; shift ;;
        --redis-restarts) redis_restarts="$2"; shift 2 ;;
        --redis-down) redis_down="$2"; shift 2 ;;
        -h|--help) usage 0 ;;
        *) echo "run.sh: unknown argument $1" >&2; usage 2 ;;
    esac
done
if [[ $soak -eq 1 ]]; then
    [[ -n "${duration_given:-}" ]] || duration=10m
    [[ -n "${p95_given:-}" ]] || p95_ms=1000
    name="${name:-soak}"
    redis_restarts="${redis_restarts:-2}"
    redis_down="${redis_down:-5}"
elif [[ -n "$redis_restarts$redis_down" ]]; then
    echo "run.sh: --redis-restarts and --redis-down need --soak (only the soak's own Redis" \
        "can be restarted)" >&2
    usage 2
fi
name="${name:-run}"
[[ "$redis_restarts" =~ ^[0-9]*$ ]] || { echo "run.sh: --redis-restarts takes a count" >&2; usage 2; }
[[ "$redis_down" =~ ^[0-9]*\.?[0-9]*$ ]] || { echo "run.sh: --redis-down takes seconds" >&2; usage 2; }

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
if [[ -z "${PYTHON:-}" ]]; then
    if [[ -n "${VIRTUAL_ENV:-}" ]]; then PYTHON="$VIRTUAL_ENV/bin/python"
    elif [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python
    else PYTHON="$(command -v python3)"; fi
fi
"$PYTHON" -c "import locust, service" 2>/dev/null || {
    echo "run.sh: $PYTHON cannot import locust and killmath; install the dev extra" >&2
    exit 2
}

reports="$repo/loadtests/reports"
mkdir -p "$reports"
port="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"
server_log="$reports/${name}_server.log"

stop_group() {  # TERM a process group, KILL it after 5 s; $1 = its leader's pid
    kill -TERM -- "-$1" 2>/dev/null || true
    for _ in $(seq 50); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL -- "-$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

server_pid=""
stop_server() {
    [[ -n "$server_pid" ]] || return 0
    # The server runs in a process group of its own: TERM reaches uvicorn's workers too.
    stop_group "$server_pid"
    server_pid=""
}
redis_pid=""
stop_redis() {
    [[ -n "$redis_pid" ]] || return 0
    # redis_process.py and its redis-server share a process group (and the server dies with
    # its parent anyway).
    stop_group "$redis_pid"
    redis_pid=""
}
temp_files=()
cleanup() {
    stop_server
    stop_redis
    rm -f "${temp_files[@]}"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ $soak -eq 1 ]]; then
    seconds="$("$PYTHON" -c '
import re, sys
units = {"h": 3600, "m": 60, "s": 1, "": 1}
print(sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([hms]?)", sys.argv[1])))' "$duration")"
    restart_args=()
    for k in $(seq "$redis_restarts"); do
        restart_args+=(--restart-at "$((seconds * k / (redis_restarts + 1)))")
    done
    url_file="$(mktemp)"; temp_files+=("$url_file"); rm -f "$url_file"
    redis_log="$reports/${name}_redis.log"
    setsid "$PYTHON" loadtests/redis_process.py --url-file "$url_file" "${restart_args[@]}" \
        --down "$redis_down" >"$redis_log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 150); do
        [[ -s "$url_file" ]] && break
        kill -0 "$redis_pid" 2>/dev/null || break
        sleep 0.1
    done
    [[ -s "$url_file" ]] || { echo "run.sh: the soak's Redis did not start" >&2; cat "$redis_log" >&2; exit 1; }
    KILLMATH_REDIS_URL="$(cat "$url_file")"
    export KILLMATH_REDIS_URL
fi

echo "run.sh: killmath on $base (workers=$workers, redis=${KILLMATH_REDIS_URL:-none})"
setsid "$PYTHON" -m service.cli serve --host 127.0.0.1 --port "$port" --workers "$workers" \
    >"$server_log" 2>&1 &
server_pid=$!

"$PYTHON" - "$base" "$server_pid" <<'PY' || { tail -n 30 "$server_log" >&2; exit 1; }
import os, sys, time, urllib.request
base, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.exit("run.sh: the server exited during start-up")
    try:
        with urllib.request.urlopen(base + "/readyz", timeout=2) as response:
            if response.status == 200:
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.25)
sys.exit("run.sh: the server was not ready within 60 s")
PY

metrics_before="$(mktemp)"; metrics_after="$(mktemp)"
temp_files+=("$metrics_before" "$metrics_after")
scrape_metrics() {  # the server's /metrics text, on stdout
    "$PYTHON" -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' \
        "$base/metrics"
}
scrape_metrics >"$metrics_before"

# Locust runs in the background so that an INT or TERM sent to this script is handled at
# once (bash runs traps only between foreground commands) and stops Locust and the server.
status=0
# the soak's Redis restart clock starts with the load
[[ -z "$redis_pid" ]] || kill -USR1 "$redis_pid"
"$PYTHON" -m locust -f loadtests/locustfile.py --headless --only-summary \
    --host "$base" -u "$users" -r "$spawn_rate" -t "$duration" --stop-timeout 15 \
    --max-p95-ms "$p95_ms" \
    --csv "$reports/$name" --html "$reports/$name.html" &
locust_pid=$!
trap 'kill -TERM "$locust_pid" 2>/dev/null; wait "$locust_pid" 2>/dev/null; exit 130' INT TERM
wait "$locust_pid" || status=$?
trap 'exit 130' INT TERM

if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "run.sh: FAILED: the server died during the run (see $server_log)" >&2
    exit 1
fi
scrape_metrics >"$metrics_after"
# Peak resident memory of the server process (with one worker, the whole server): the figure
# the Kubernetes memory limit is sized from.
peak_rss_kib="$(awk '/^VmHWM:/ {print $2}' "/proc/$server_pid/status" 2>/dev/null || echo 0)"
soak_args=()
if [[ -n "$redis_pid" ]]; then
    if ! kill -0 "$redis_pid" 2>/dev/null; then
        echo "run.sh: FAILED: the soak's Redis driver died (see $redis_log)" >&2
        exit 1
    fi
    # Redis restarts empty: entries in it now were written after the last restart.
    redis_keys="$("$PYTHON" -c 'import redis, sys; print(redis.Redis.from_url(sys.argv[1]).dbsize())' \
        "$KILLMATH_REDIS_URL")"
    soak_args=(--redis-log "$redis_log" --redis-keys "$redis_keys")
fi
"$PYTHON" loadtests/summary.py "$reports/${name}_stats.csv" "$metrics_before" "$metrics_after" \
    --duration "$duration" --users "$users" --workers "$workers" \
    --peak-rss-kib "${peak_rss_kib:-0}" \
    --redis "${KILLMATH_REDIS_URL:+yes}" "${soak_args[@]}" >"$reports/${name}_summary.json"
cat "$reports/${name}_summary.json"

if [[ -n "$redis_pid" && "$redis_keys" -eq 0 && $status -eq 0 ]]; then
    echo "run.sh: FAILED: the soak's Redis is empty at the end: caching did not resume" >&2
    status=1
elif [[ $status -ne 0 ]]; then
    echo "run.sh: FAILED (locust exit status $status: failed requests or p95 above ${p95_ms} ms)" >&2
else
    echo "run.sh: passed (no failures, p95 within ${p95_ms} ms); reports in $reports"
fi
exit "$status"
