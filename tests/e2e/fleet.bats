#!/usr/bin/env bats
# fleet.bats: a run sent where a fleet looks, end to end on loopback.
# Prometheus: Debian's prometheus-pushgateway and prometheus, started here on
# free ports with a temporary data directory (stopped by pid): a run pushed
# with --push, or after the fact with spacetime push, is scraped, and a query
# of Prometheus's HTTP API returns the run's figures as its JSON summary says
# them, under the labels given. OpenTelemetry: a receiver stub (fleet/
# otlp_stub.py) takes the POSTs; fleet/otlp_check.py checks them against the
# OTLP JSON encoding rules and prints the values, compared here with the JSON
# summary, and the spans, compared with the process tree spacetime exported.
# Failures (endpoint down, 500, no answer): one line, within the timeout,
# with the exit status and the summary unchanged.

load helpers

FLEET="$BATS_TEST_DIRNAME/fleet"

# A free loopback port (free when asked: the servers start at once).
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_http URL: until URL answers 200 (15 s at most).
wait_http() {
	local i
	for i in $(seq 150); do
		curl -sf -o /dev/null "$1" && return 0
		sleep 0.1
	done
	return 1
}

setup_file() {
	command -v prometheus-pushgateway >/dev/null && command -v prometheus >/dev/null ||
		{ echo "prometheus and prometheus-pushgateway are missing: run 'make deps'" >&2; return 1; }
	export PGW_PORT PROM_PORT
	PGW_PORT=$(free_port)
	PROM_PORT=$(free_port)
	local d="$BATS_FILE_TMPDIR/prom"
	mkdir -p "$d/data"
	cat >"$d/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: pushgateway
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$PGW_PORT']
EOF
	# its own persistence file: Debian's default is one shared file
	# (/var/lib/prometheus/pushgateway.data) that another run's groups come back from
	prometheus-pushgateway --web.listen-address="127.0.0.1:$PGW_PORT" --persistence.file="$d/pgw.data" \
		>"$d/pgw.log" 2>&1 </dev/null &
	echo $! >"$d/pgw.pid"
	prometheus --config.file="$d/prometheus.yml" --storage.tsdb.path="$d/data" \
		--web.listen-address="127.0.0.1:$PROM_PORT" >"$d/prom.log" 2>&1 </dev/null &
	echo $! >"$d/prom.pid"
	wait_http "http://127.0.0.1:$PGW_PORT/-/ready" || { cat "$d/pgw.log" >&2; return 1; }
	wait_http "http://127.0.0.1:$PROM_PORT/-/ready" || { cat "$d/prom.log" >&2; return 1; }
}

teardown_file() {
	local p
	for p in "$BATS_FILE_TMPDIR"/prom/*.pid "$BATS_FILE_TMPDIR"/stub-*/pid; do
		[ -e "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	return 0
}

setup() {
	st_require
	st_require_workloads fill exitwith fanout
}

# prom_query QUERY: PROM_VAL, the value of QUERY's one series, once
# Prometheus has scraped it (30 s at most), and PROM_JSON, the answer.
prom_query() {
	local i
	for i in $(seq 60); do
		PROM_JSON=$(curl -sf -G "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1") || true
		if [ "$(printf '%s' "$PROM_JSON" | jq -r '.data.result | length' 2>/dev/null)" = 1 ]; then
			PROM_VAL=$(printf '%s' "$PROM_JSON" | jq -r '.data.result[0].value[1]')
			return 0
		fi
		sleep 0.5
	done
	st_fail "no single series for $1: $PROM_JSON"
}

# stub MODE: an OTLP receiver stub; sets STUB (its directory) and STUB_URL.
stub() {
	STUB="$BATS_FILE_TMPDIR/stub-$1-$BATS_TEST_NUMBER"
	mkdir -p "$STUB"
	python3 "$FLEET/otlp_stub.py" "$STUB" "$1" </dev/null >/dev/null 2>&1 &
	echo $! >"$STUB/pid"
	local i
	for i in $(seq 100); do
		[ -e "$STUB/port" ] && break
		sleep 0.05
	done
	STUB_URL="http://127.0.0.1:$(cat "$STUB/port")"
}

# push_lines: stderr's lines from spacetime about the endpoints.
push_lines() {
	printf '%s\n' "$stderr" | grep -E '^spacetime: (push|pushed|OTLP)' || true
}

@test "--push: the run reaches Prometheus through the Pushgateway, with its labels and host" {
	stj --no-record --label runner=ci-17 --label branch=feat/fleet \
		--push "http://127.0.0.1:$PGW_PORT" -- "$WL/fill" 48 200
	assert_status 0
	[ "$(push_lines | wc -l)" -eq 1 ] || st_fail "not one line about the push: $(push_lines)"
	push_lines | grep -q '^spacetime: pushed to http' || st_fail "the push was not said: $(push_lines)"
	local host peak
	host=$(hostname)
	peak=$(jv .peak_pss_bytes)
	# the truth: 48 MiB touched, and the figure Prometheus holds is the summary's
	[ "$peak" -ge $((48 * 1048576)) ] || st_fail "peak $peak below the 48 MiB touched"
	prom_query "spacetime_peak_pss_bytes{runner=\"ci-17\",branch=\"feat/fleet\",host=\"$host\",job=\"spacetime\"}"
	[ "$PROM_VAL" = "$peak" ] || st_fail "Prometheus says $PROM_VAL, the summary $peak"
	prom_query "spacetime_processes{runner=\"ci-17\"}"
	[ "$PROM_VAL" = "$(jv .processes)" ]
	prom_query "spacetime_exit_status{runner=\"ci-17\"}"
	[ "$PROM_VAL" = 0 ]
	prom_query "spacetime_minor_faults{runner=\"ci-17\"}"
	[ "$PROM_VAL" = "$(jv .minflt)" ]
	# the heaviest job: the fill, at its own peak
	prom_query "spacetime_job_peak_pss_bytes{runner=\"ci-17\",rank=\"1\"}"
	[ "$(printf '%s' "$PROM_JSON" | jq -r '.data.result[0].metric.program')" = fill ]
	[ "$PROM_VAL" = "$(($(jq -r '.top_jobs_by_peak_pss[0].peak_pss_kib' "$JSON") * 1024))" ] ||
		st_fail "job peak $PROM_VAL vs $(jq -c '.top_jobs_by_peak_pss[0]' "$JSON")"
}

@test "spacetime push: a recorded run pushed after the fact, its labels and those given" {
	local db="$BATS_TEST_TMPDIR/r.db"
	stj --record "$db" --label runner=ci-18 -- "$WL/fill" 24 100
	assert_status 0
	local peak
	peak=$(jv .peak_pss_bytes)
	st push "$db" --push "http://127.0.0.1:$PGW_PORT" --label when=later
	assert_status 0
	printf '%s\n' "$stderr" | grep -q '^spacetime: pushed to http.*/runner/ci-18/when/later' ||
		st_fail "not pushed under both labels: $stderr"
	prom_query "spacetime_peak_pss_bytes{runner=\"ci-18\",when=\"later\"}"
	[ "$PROM_VAL" = "$peak" ]
	# the command's name is the grouping key of a run without labels
	stj --record "$db" -- "$WL/exitwith" 3
	assert_status 3
	st push "$db" --push "http://127.0.0.1:$PGW_PORT"
	assert_status 0
	prom_query 'spacetime_exit_status{command="exitwith"}'
	[ "$PROM_VAL" = 3 ]
}

@test "--otlp: metrics in the OTLP JSON encoding, values as the summary's, the environment honoured" {
	stub ok
	export OTEL_EXPORTER_OTLP_HEADERS='authorization=Bearer%20s3cret'
	export OTEL_RESOURCE_ATTRIBUTES='deployment.environment=ci,service.namespace=a%2Cb'
	stj --no-record --label runner=ci-19 --otlp "$STUB_URL" -- "$WL/fill" 32 150
	assert_status 0
	grep -q '^POST /v1/metrics$' "$STUB/1.hdr"
	grep -qx 'authorization: Bearer s3cret' "$STUB/1.hdr" || st_fail "no header: $(cat "$STUB/1.hdr")"
	grep -qx 'content-type: application/json' "$STUB/1.hdr"
	local pts
	pts=$(python3 "$FLEET/otlp_check.py" metrics "$STUB/1.json") || st_fail "encoding: $pts"
	val() { printf '%s\n' "$pts" | sed -n "s/^$1 //p"; }
	[ "$(val spacetime.peak_pss)" = "$(jv .peak_pss_bytes)" ] || st_fail "peak: $pts"
	[ "$(val spacetime.peak_pss)" -ge $((32 * 1048576)) ]
	[ "$(val spacetime.peak_pss.anonymous)" = "$(jv .peak_pss_anon_bytes)" ]
	[ "$(val spacetime.processes)" = "$(jv .processes)" ]
	[ "$(val 'process.paging.faults system.paging.type=minor')" = "$(jv .minflt)" ]
	[ "$(val 'process.paging.faults system.paging.type=major')" = "$(jv .majflt)" ]
	[ "$(val 'process.context_switches process.context_switch_type=voluntary')" = "$(jv .nvcsw)" ]
	awk -v a="$(val 'process.cpu.time cpu.mode=user')" -v b="$(jv .user_us)" 'BEGIN { exit !(a * 1e6 - b < 1 && b - a * 1e6 < 1) }'
	awk -v a="$(val process.uptime)" -v b="$(jv .wall_us)" 'BEGIN { exit !(a * 1e6 - b < 1 && b - a * 1e6 < 1) }'
	[ "$(val 'resource runner')" = ci-19 ]
	[ "$(val 'resource deployment.environment')" = ci ]
	[ "$(val 'resource service.namespace')" = a,b ]
	[ "$(val 'resource service.name')" = spacetime ]
	[ "$(val 'resource host.name')" = "$(hostname)" ]
	[ "$(val 'resource process.exit.code')" = 0 ]
}

@test "--otlp-traces: one span per process, the span tree the recorded process tree" {
	stub ok
	local snap="$BATS_TEST_TMPDIR/snap"
	mkdir -p "$snap"
	stj --no-record --otlp "$STUB_URL" --otlp-traces --export "$snap" --export-format json -- \
		sh -c "'$WL/fanout' 4 100; sh -c '$WL/fill 8 100'"
	assert_status 0
	grep -q '^POST /v1/traces$' "$STUB/2.hdr" || st_fail "no traces posted: $(cat "$STUB"/*.hdr)"
	local spans
	spans=$(python3 "$FLEET/otlp_check.py" traces "$STUB/2.json") || st_fail "encoding: $spans"
	# one span for the run (the root) and one for each process: sh, fanout
	# and its 4 children, sh, fill
	[ "$(jv .processes)" -eq 8 ]
	[ "$(printf '%s\n' "$spans" | wc -l)" -eq 9 ] || st_fail "spans: $spans"
	[ "$(printf '%s\n' "$spans" | awk '$2 == "-"' | wc -l)" -eq 1 ]
	# one trace, and every parent a span of it
	[ "$(python3 -c 'import json,sys; print(len({s["traceId"] for rs in json.load(open(sys.argv[1]))["resourceSpans"]
		for ss in rs["scopeSpans"] for s in ss["spans"]}))' "$STUB/2.json")" -eq 1 ]
	printf '%s\n' "$spans" | awk '{ id[$1] = 1; par[NR] = $2 } END { for (i in par) if (par[i] != "-" && !(par[i] in id)) exit 1 }' ||
		st_fail "a parent that is no span: $spans"
	# each process's span under its parent's: pid -> ppid by the spans
	# against the process table of the snapshot
	local tree_spans tree_snap
	tree_spans=$(printf '%s\n' "$spans" | awk '{ id[$1] = $3; par[$1] = $2 }
		END { for (s in id) if (id[s] != "-") print id[s], (par[s] in id && id[par[s]] != "-") ? id[par[s]] : "root" }' | sort)
	local f
	f=$(ls "$snap"/*.json | head -n 1)
	tree_snap=$(jq -r '.processes as $p | [$p[].pid] as $pids | $p[] |
		"\(.pid) \(if ([.ppid] | inside($pids)) then .ppid else "root" end)"' "$f" | sort)
	[ "$tree_spans" = "$tree_snap" ] || st_fail "spans: $tree_spans / snapshot: $tree_snap"
	printf '%s\n' "$spans" | grep -q ' fill 8 100$' || st_fail "no fill span: $spans"
}

@test "endpoints down: one line each, the exit status and the summary unchanged" {
	local port
	port=$(free_port)
	stj --no-record --push "http://127.0.0.1:$port" --otlp "http://127.0.0.1:$port" -- "$WL/exitwith" 3
	assert_status 3
	assert_json .exit_status -eq 3
	printf '%s\n' "$stderr" | grep -q '^  status          exited 3$' || st_fail "no summary"
	[ "$(push_lines | wc -l)" -eq 2 ] || st_fail "not a line each: $(push_lines)"
	push_lines | grep -q "^spacetime: push to http://127.0.0.1:$port/metrics/job/spacetime/command/exitwith/host/.* failed: "
	push_lines | grep -q "^spacetime: OTLP metrics to http://127.0.0.1:$port/v1/metrics failed: "
}

@test "an endpoint answering 500: one line with its answer, the exit status unchanged" {
	stub fail
	stj --no-record --push "$STUB_URL" --otlp "$STUB_URL" -- "$WL/exitwith" 0
	assert_status 0
	push_lines | grep -q 'failed: HTTP 500: {"code": 13, "message": "stub told to fail"}' ||
		st_fail "$(push_lines)"
	[ "$(push_lines | wc -l)" -eq 2 ]
}

@test "an endpoint that never answers: the wait bounded by --push-timeout" {
	stub hang
	local t0 t1
	t0=$(date +%s%N)
	stj --no-record --push "$STUB_URL" --push-timeout 1 -- "$WL/exitwith" 4
	t1=$(date +%s%N)
	assert_status 4
	push_lines | grep -q 'failed: no answer within 1.0 s' || st_fail "$(push_lines)"
	# a second for the push, the run itself well under the rest
	[ $(((t1 - t0) / 1000000)) -lt 4000 ] || st_fail "took $(((t1 - t0) / 1000000)) ms"
}

@test "spacetime push: usage errors exit 2, an endpoint that does not take the run 1" {
	local db="$BATS_TEST_TMPDIR/r.db"
	st push "$db"
	assert_status 2
	assert_one_line "$stderr" "push without a destination"
	st push --push ftp://x "$db"
	assert_status 2
	[[ "$stderr" == *"expected the Pushgateway's http:// or https:// URL"* ]]
	st push "$db" --push "http://127.0.0.1:1"
	assert_status 2 # no such recording
	stj --record "$db" -- "$WL/exitwith" 0
	st push "$db" --push "http://127.0.0.1:$(free_port)"
	assert_status 1
	[[ "$stderr" == *"failed: "* ]]
	st push "$db" --otlp env
	assert_status 2
	[[ "$stderr" == *"OTEL_EXPORTER_OTLP_ENDPOINT is not set"* ]]
	st --no-record --otlp-traces -- true
	assert_status 2
	st --no-record --push-timeout 0 -- true
	assert_status 2
}
