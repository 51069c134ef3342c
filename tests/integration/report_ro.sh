#!/bin/sh
# report_ro.sh - `reveal report --store` by an operator who may only read
# the store: the file and its folder are not writable, the store is in WAL
# mode and no -wal or -shm lies beside it (the agent is stopped).
#
# Two stores: one of the current schema, made by `reveal agent` (a replay of
# a short recording of this host, which opens and creates the store) with
# two incidents written into it with sqlite3 (the evidence of one with
# them; the second a follow-on phase of the first), and one of schema
# version 1, as the first agent wrote it, which the
# report must upgrade in memory. Each is copied into a folder, made
# read-only (chmod a-w, file and folder) and reported on in text and JSON
# as nobody (the tests run as root, which ignores permission bits; as
# another user, by that user). The report must succeed and the folder must
# be as it was: no new file, the store's bytes unchanged.
#
# Needs sqlite3 and python3; as root setpriv (util-linux) or runuser.

. "$SRC/tests/integration/lib.sh.inc"
it_setup

PY=${PYTHON3:-python3}
for tool in sqlite3 "$PY"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "$tool is installed (scripts/install-deps.sh)"
		it_finish
	fi
done

# as_reader CMD...: runs CMD as a user who cannot write the read-only folders.
if [ "$(id -u)" -eq 0 ]; then
	NOBODY_GID=$(id -g nobody 2>/dev/null)
	if [ -z "$NOBODY_GID" ]; then
		not_ok "the user nobody exists"
		it_finish
	fi
	if command -v setpriv >/dev/null 2>&1; then
		as_reader() { setpriv --reuid=nobody --regid="$NOBODY_GID" --clear-groups "$@"; }
	elif command -v runuser >/dev/null 2>&1; then
		as_reader() { runuser -u nobody -- "$@"; }
	else
		not_ok "setpriv or runuser is installed (util-linux)"
		it_finish
	fi
	READER=nobody
else
	as_reader() { "$@"; }
	READER=$(id -un)
fi
chmod 755 "$IT_TMP"
if ! as_reader test -x "$REVEAL"; then
	# the build folder may be closed to nobody: a copy it can run
	mkdir bin && cp "$REVEAL" bin/reveal && chmod 755 bin bin/reveal
	REVEAL=$IT_TMP/bin/reveal
fi
echo "# the report runs as $READER"

# ---- a store of the current schema, with incidents ----------------------

"$REVEAL" record -q -o tiny.rvl --interval 100ms --duration 1500ms >rec.txt 2>&1
check "reveal record of 1.5 s" test $? -eq 0
"$REVEAL" agent --replay tiny.rvl --learn 1s --store cur.db --listen "" --state-dir st \
	--set detect.window=1s --set detect.step=200ms --set refit=0 >agent.txt 2>&1
check "the agent made its store" test -s cur.db
# the store as the agent left it, with no incident yet
cp cur.db empty.db
"$REVEAL" report --store empty.db >empty.txt 2>empty.err
check "a store with no incident reports (exit 0)" test $? -eq 0
check "... and says it holds none" grep -qi "no incident" empty.txt empty.err
sqlite3 cur.db "
INSERT INTO incidents (id, start_ts, end_ts, open, windows, peak_score, mean_score,
  detectors, subsystem, host, subsystems) VALUES
 (1, 1764800000, 1764800030, 0, 30, 6.5, 4.2, 3, 'net', 'ro-host', 'net:0.800,cpu:0.200');
INSERT INTO incidents (id, start_ts, end_ts, open, windows, peak_score, mean_score,
  detectors, subsystem, host, subsystems, phase, follows) VALUES
 (2, 1764800100, 1764800160, 0, 60, 4.1, 3.0, 1, 'cpu', 'ro-host', 'cpu:1.000', 2, 1);
INSERT INTO incident_signals (incident_id, pos, name, share, baseline, value) VALUES
 (1, 0, 'net.tcp_retrans_segs', 0.8, 0.5, 212), (1, 1, 'cpu.softirq_pct', 0.2, 1.2, 5),
 (2, 0, 'cpu.busy_pct', 1.0, 20, 97);
INSERT INTO incident_details (incident_id, base_from, base_to, start_ts, end_ts)
 VALUES (1, 1764799800, 1764799990, 1764800000, 1764800030);
INSERT INTO incident_evidence (incident_id, pos, name, skew, base_n, inc_n, base_mean,
  base_sd, value, inc_sd, peak, z, change, dir, onset_ts) VALUES
 (1, 0, 'net.tcp_retrans_segs', 0, 600, 40, 0.5, 0.5, 212, 20, 300, 423, 423, 1, 1764800002),
 (1, 1, 'net.tcp_retrans_pct', 0, 600, 40, 0.01, 0.01, 2.5, 0.5, 4, 249, 249, 1, 1764800002);
INSERT INTO incident_causes (incident_id, rank, rule_id, title, confidence)
 VALUES (1, 0, 'packet-loss', 'Packet loss', 0.82);" >sql.txt 2>&1
check "two incidents written into it" test "$(sqlite3 cur.db 'SELECT count(*) FROM incidents')" = 2
check "it is in WAL mode" test "$(sqlite3 cur.db 'PRAGMA journal_mode')" = wal
check "no -wal or -shm beside it" test ! -e cur.db-wal -a ! -e cur.db-shm

# ---- a store of schema version 1 (the first agent's, frozen here) -------

sqlite3 v1.db "PRAGMA journal_mode = WAL;
CREATE TABLE incidents (id INTEGER PRIMARY KEY, start_ts REAL NOT NULL, end_ts REAL NOT NULL,
  open INTEGER NOT NULL, windows INTEGER NOT NULL, peak_score REAL, mean_score REAL,
  detectors INTEGER NOT NULL, subsystem TEXT NOT NULL, host TEXT NOT NULL,
  subsystems TEXT NOT NULL DEFAULT '');
CREATE INDEX incidents_by_start ON incidents (start_ts, id);
CREATE INDEX incidents_by_end ON incidents (end_ts);
CREATE TABLE incident_signals (incident_id INTEGER NOT NULL, pos INTEGER NOT NULL,
  name TEXT NOT NULL, share REAL, baseline REAL, value REAL,
  PRIMARY KEY (incident_id, pos)) WITHOUT ROWID;
CREATE TRIGGER incidents_delete_signals AFTER DELETE ON incidents BEGIN
  DELETE FROM incident_signals WHERE incident_id = old.id; END;
CREATE TABLE fits (id INTEGER PRIMARY KEY, ts REAL NOT NULL, channels INTEGER NOT NULL,
  features INTEGER NOT NULL, train_windows INTEGER NOT NULL, fit_seconds REAL,
  reason TEXT NOT NULL, model_path TEXT NOT NULL);
CREATE TABLE kv (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE VIEW incidents_view AS SELECT i.id AS id FROM incidents i;
PRAGMA user_version = 1;
INSERT INTO incidents (id, start_ts, end_ts, open, windows, peak_score, mean_score,
  detectors, subsystem, host, subsystems)
 VALUES (7, 1764800000, 1764800020, 0, 20, 3.5, 2.5, 1, 'cpu', 'old-host', 'cpu:1.000');
INSERT INTO incident_signals (incident_id, pos, name, share, baseline, value)
 VALUES (7, 0, 'cpu.busy_pct', 1.0, 15, 95);" >sql1.txt 2>&1
check "a version 1 store" test "$(sqlite3 v1.db 'PRAGMA user_version')" = 1

# ---- each, read-only, as the reader -------------------------------------

# report_ro NAME SRC FILE: copies store SRC into the folder NAME as FILE,
# makes both read-only and reports on it as the reader; the JSON goes to
# NAME.json for the checks after.
report_ro() {
	mkdir "$1" && cp "$2" "$1/$3" && chmod a-w "$1/$3" "$1"
	{ stat -c "%n %y" "$1"; ls -lA --time-style=full-iso "$1"; } >"$1.before"
	if as_reader touch "$1/probe" 2>/dev/null; then
		not_ok "$1: $READER cannot write the folder"
	else
		ok "$1: $READER cannot write the folder"
	fi
	as_reader "$REVEAL" report --store "$1/$3" >"$1.txt" 2>"$1.err"
	RC=$?
	if [ "$RC" -eq 0 ]; then
		ok "$1: text report (exit 0)"
	else
		not_ok "$1: text report (exit $RC)"
		show "$1.err"
	fi
	# the absolute path too (SQLite's URI for the immutable open)
	as_reader "$REVEAL" report --store "$IT_TMP/$1/$3" --format json >"$1.json" 2>"$1.jerr"
	RC=$?
	if [ "$RC" -eq 0 ]; then
		ok "$1: JSON report (exit 0)"
	else
		not_ok "$1: JSON report (exit $RC)"
		show "$1.jerr"
	fi
	{ stat -c "%n %y" "$1"; ls -lA --time-style=full-iso "$1"; } >"$1.after"
	if cmp -s "$1.before" "$1.after"; then
		ok "$1: the folder has no new file and the store the same size and time"
	else
		not_ok "$1: the folder changed"
		diff "$1.before" "$1.after" | sed 's/^/    # /'
	fi
	check "$1: the store's bytes are unchanged" cmp -s "$2" "$1/$3"
}

report_ro ro_cur cur.db reveal.db
check "ro_cur: the text names both incidents" \
	sh -c 'grep -q "^INCIDENT 1 " ro_cur.txt && grep -q "^INCIDENT 2 " ro_cur.txt'
check "ro_cur: the stored evidence explains incident 1" grep -q "packet-loss" ro_cur.txt
check "ro_cur: incident 2 is a follow-on phase of incident 1" \
	grep -q "^  Follow-on phase 2 of incident 1 (net)\.$" ro_cur.txt
as_reader "$REVEAL" report --store ro_cur/none.db >out.txt 2>err.txt
RC=$?
expect_rc "a store that is not there" 2
expect_err "the error names it and says it is not there" "ro_cur/none\.db: no such file"

# a name SQLite's URI must keep as it is
report_ro ro_v1 v1.db "old store?v=1%#.db"
check "ro_v1: the text has the old incident" grep -q "^INCIDENT 7 " ro_v1.txt

"$PY" - ro_cur.json ro_v1.json >json.txt 2>&1 <<'EOF'
import json, sys
cur = json.load(open(sys.argv[1]))
old = json.load(open(sys.argv[2]))
ids = [i["id"] for i in cur["incidents"]]
assert ids == [1, 2], ids
one = cur["incidents"][0]
assert one["host"] == "ro-host", one["host"]
assert one["signals"][0]["name"] == "net.tcp_retrans_segs", one["signals"]
assert one["causes"] and one["causes"][0]["id"] == "packet-loss", one["causes"]
assert (one["phase"], one["follows"], one["followed_by"]) == (1, None, [2]), one
two = cur["incidents"][1]
assert (two["phase"], two["follows"], two["followed_by"]) == (2, 1, []), two
assert [i["id"] for i in old["incidents"]] == [7], old["incidents"]
assert old["incidents"][0]["phase"] == 1 and old["incidents"][0]["follows"] is None
assert old["incidents"][0]["signals"][0]["name"] == "cpu.busy_pct"
print("json ok")
EOF
if grep -q "json ok" json.txt; then
	ok "the JSON reports hold the incidents, their phases, the evidence and the old store's" \
		"incident (phase 1)"
else
	not_ok "the JSON reports hold the incidents, their phases, the evidence and the old" \
		"store's incident (phase 1)"
	show json.txt
fi

chmod u+w ro_cur ro_v1
it_finish
