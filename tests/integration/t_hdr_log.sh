#!/bin/bash
# --hdr-log writes an HdrHistogram interval log that an independent
# implementation reads: the npm package hdr-histogram-js (installed by this
# test into a cache directory) decodes every interval of a default-mix run
# against the private Dovecot, and per command the sum of the intervals has
# the JSON summary's count, p99 and max.
#
# What "equal" means, exactly: count is equal.  p99 is equal because both
# sides take the same rank (ceil(0.99 * count)) and report the top of that
# bucket, except that our summary caps a percentile at the exact max, so the
# check is json.p99 == min(hdr.p99, json.max).  The summary's max is exact
# while a histogram only knows buckets (1/1024 of the value above 2 ms), so
# the check is hdr.max == highestEquivalentValue(json.max): the same bucket.
# A --warmup second is left out of both, so the intervals sum to the totals.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd "${DOVECOT:-/usr/sbin/dovecot}"
command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 ||
	skip "needs npm and node to install and run hdr-histogram-js"

# A cache outside TEST_TMP, so only the first run downloads.
NPM_DIR=${IMAPSTRESS_NPM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/imapstress-tests/npm}
mkdir -p "$NPM_DIR" 2>/dev/null || NPM_DIR=$TEST_TMP/npm
if [ ! -f "$NPM_DIR/node_modules/hdr-histogram-js/package.json" ]; then
	note "installing hdr-histogram-js into $NPM_DIR"
	mkdir -p "$NPM_DIR"
	run_with_timeout 300 npm install --prefix "$NPM_DIR" --no-audit --no-fund \
		--loglevel=error hdr-histogram-js@3 >"$TEST_TMP/npm.log" 2>&1 ||
		fail "npm install hdr-histogram-js failed: $(tail -n 5 "$TEST_TMP/npm.log")"
fi

dovecot_start
out=$TEST_TMP/run
run_with_timeout 120 "$IMAPSTRESS" -p "$DOVECOT_PORT" --users 1-20 -c 10 \
	--seed 7 -d 5 --warmup 1 --json "$out.json" --hdr-log "$out.hdr" -q \
	>"$out.txt" 2>&1 || fail "run failed: $(tail -n 5 "$out.txt")"

assert_match '^#\[Histogram log format version 1\.3\]$' "$(head -n 1 "$out.hdr")" "log header"
assert_match '^Tag=APPEND,[0-9.]+,[0-9.]+,[0-9.]+,HISTF' "$(cat "$out.hdr")" "an APPEND interval"

cat >"$TEST_TMP/check.js" <<'JSEOF'
const fs = require('fs');
const hdr = require('hdr-histogram-js');
const [logPath, jsonPath] = process.argv.slice(2);
const reader = new hdr.HistogramLogReader(fs.readFileSync(logPath, 'utf8'));
const sums = {};
let h, intervals = 0;
while ((h = reader.nextIntervalHistogram()) !== null) {
  intervals++;
  if (!sums[h.tag])
    sums[h.tag] = hdr.build({ lowestDiscernibleValue: 1,
      highestTrackableValue: 3600000000, numberOfSignificantValueDigits: 3,
      bitBucketSize: 'packed' });
  sums[h.tag].add(h);
}
const lines = fs.readFileSync(jsonPath, 'utf8').trim().split('\n');
const summary = JSON.parse(lines[lines.length - 1]);
let bad = 0, checked = 0;
for (const [name, c] of Object.entries(summary.commands)) {
  const n = c.ok + c.no + c.bad;
  const s = sums[name];
  if (n === 0 && !s) continue;
  if (!s) { console.log(`${name}: in the summary (${n}) but not in the log`); bad++; continue; }
  const got = { count: s.totalCount, max: s.maxValue,
                p99: Math.min(s.getValueAtPercentile(99), c.latency_us.max) };
  const want = { count: n, max: s.highestEquivalentValue(c.latency_us.max),
                 p99: c.latency_us.p99 };
  const ok = got.count === want.count && got.max === want.max && got.p99 === want.p99;
  console.log(`${name}: count ${got.count}/${want.count} max ${got.max}/${want.max}` +
              ` (json ${c.latency_us.max}) p99 ${got.p99}/${want.p99} ${ok ? 'ok' : 'DIFFERENT'}`);
  if (!ok) bad++;
  checked++;
}
for (const name of Object.keys(sums))
  if (!summary.commands[name]) { console.log(`${name}: in the log only`); bad++; }
console.log(`intervals=${intervals} commands=${checked}`);
process.exit(bad === 0 && checked >= 5 ? 0 : 1);
JSEOF
res=$(NODE_PATH="$NPM_DIR/node_modules" node "$TEST_TMP/check.js" "$out.hdr" "$out.json" 2>&1) ||
	fail "hdr-histogram-js disagrees with the JSON summary:
$res"
note "$res"
echo "PASS: $TEST_NAME"
