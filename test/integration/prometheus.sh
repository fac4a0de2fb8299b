# shellcheck shell=bash
# A real node_exporter and Prometheus (Debian's prometheus-node-exporter and prometheus) for
# the live tests, on loopback ports, in the test's scratch directories; sourced after lib.sh.
# The caller stops them with prometheus_stop (its EXIT trap too).
#
#   node_exporter_start DIR LOG    textfile collector on DIR only -> EXPORTER_PORT
#   prometheus_start DIR RULES LOG scrapes node_exporter every 2 s, evaluates RULES every
#                                  2 s, its data in DIR -> PROMETHEUS_PORT
#   quick_rules OUT                the shipped rules with every `for:` 4 s and the 6-hour
#                                  window 20 s, so that an alert fires within a test
#   prometheus_api PATH            the JSON of /api/v1/PATH
#   alerts_in_state NAME STATE     "account|user" (or "partition") of NAME's alerts in STATE,
#                                  sorted, on one line

EXPORTER_PID="" PROMETHEUS_PID="" EXPORTER_PORT="" PROMETHEUS_PORT=""
FAIRWAY_RULES=$FW_ROOT/packaging/prometheus/fairway.rules.yml

loopback_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

node_exporter_start() { # dir log
	EXPORTER_PORT=$(loopback_port)
	prometheus-node-exporter --web.listen-address="127.0.0.1:$EXPORTER_PORT" --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$1" >"$2" 2>&1 &
	EXPORTER_PID=$!
}

prometheus_start() { # dir rules log
	PROMETHEUS_PORT=$(loopback_port)
	cat >"$1/prometheus.yml" <<EOF
global:
  scrape_interval: 2s
  evaluation_interval: 2s
rule_files:
  - $2
scrape_configs:
  - job_name: slurmctld
    static_configs:
      - targets: ['127.0.0.1:$EXPORTER_PORT']
EOF
	prometheus --config.file="$1/prometheus.yml" --storage.tsdb.path="$1/data" \
		--web.listen-address="127.0.0.1:$PROMETHEUS_PORT" >"$3" 2>&1 &
	PROMETHEUS_PID=$!
}

prometheus_stop() {
	local p
	for p in "$PROMETHEUS_PID" "$EXPORTER_PID"; do
		if [ -n "$p" ] && alive "$p"; then
			kill "$p" 2>/dev/null || true
			wait_for 10 bash -c "! kill -0 $p 2>/dev/null" || kill -KILL "$p" 2>/dev/null || true
		fi
	done
	PROMETHEUS_PID="" EXPORTER_PID=""
}

quick_rules() { # out
	sed -E 's/^( *for: ).*/\14s/; s/\[6h\]/[20s]/g' "$FAIRWAY_RULES" >"$1"
}

prometheus_api() { # path
	python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:'"$PROMETHEUS_PORT"'/api/v1/" + sys.argv[1], timeout=5).read().decode())' "$1"
}

alerts_in_state() { # alertname state
	prometheus_api alerts | python3 -c '
import json, sys
name, state = sys.argv[1], sys.argv[2]
a = json.load(sys.stdin)["data"]["alerts"]
def key(l):
    # (Prometheus drops a label whose value is empty: user="" of an account)
    return l["partition"] if "partition" in l else "%s|%s" % (l["account"], l.get("user", ""))
print(" ".join(sorted(key(x["labels"]) for x in a
                      if x["labels"]["alertname"] == name and x["state"] == state)))' "$1" "$2"
}
