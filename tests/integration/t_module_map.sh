#!/bin/bash
# scripts/module-map on a small tree of its own: the maps in README.md and
# docs/layout.md are rewritten from src/ (--write) and checked (--check,
# which make check runs): a map that no longer matches the tree fails with
# exit 1 and a diff naming the row; nested folders (src/drivers/pop3/)
# get their own row, their line from the header named after them; a file
# with no role sentence is named; and the real tree's maps are current.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd python3
MAP=$ROOT/scripts/module-map

# The real tree first: README.md and docs/layout.md match src/.
RC=0
OUT=$("$MAP" --check 2>&1) || RC=$?
[ "$RC" = 0 ] || fail "the repository's module maps differ from src/ (scripts/module-map --write):
$OUT"

T=$(make_tmpdir)
mkdir -p "$T/src/conn" "$T/src/drivers/pop3" "$T/docs"
printf '/* conn.h: one session.  More after the first sentence. */\n' >"$T/src/conn/conn.h"
printf '/* conn.c: see conn.h. */\n#include "conn/conn.h"\n' >"$T/src/conn/conn.c"
printf '/* pop3.h: a POP3 session, as a driver.  Not this. */\n' >"$T/src/drivers/pop3/pop3.h"
printf '/* pop3.c: see pop3.h. */\n#include "conn/conn.h"\n#include "util/log.h"\n' \
	>"$T/src/drivers/pop3/pop3.c"
printf '/* main.c: start everything. */\n#include "drivers/pop3/pop3.h"\n' >"$T/src/main.c"
printf '# t\n\n<!-- module-map:folders begin -->\n<!-- module-map:folders end -->\n\nafter\n' >"$T/README.md"
printf '# layout\n<!-- module-map:files begin -->\n<!-- module-map:files end -->\n' >"$T/docs/layout.md"

map() {
	RC=0
	OUT=$("$MAP" "$@" --root "$T" 2>&1) || RC=$?
}
map --check
assert_eq 1 "$RC" "--check on empty maps"
assert_match '^module-map: the folders map in README.md differs from src/ \(scripts/module-map --write rewrites it\):$' \
	"$OUT" "--check names the map and the command"
assert_match '^\+\| `src/drivers/pop3/` \| a POP3 session, as a driver\. \| conn \|$' "$OUT" \
	"a nested folder's row: its header's first sentence, the folders it includes (util left out)"

map --write
assert_eq 0 "$RC" "--write: $OUT"
map --check
assert_eq 0 "$RC" "--check after --write: $OUT"
grep -qx 'after' "$T/README.md" || fail "--write lost what follows the block"
assert_match '^\| `src/` \| the entry point and the version \| drivers/pop3 \|$' "$(cat "$T/README.md")" \
	"src/ itself has a row"
assert_match '^\| `conn.c`, `conn.h` \| one session\. \|$' "$(cat "$T/docs/layout.md")" \
	"a unit's role is its header's first sentence"
assert_match '^\| \*\*`src/drivers/`\*\* \| \*\*the drivers of the connection engine' "$(cat "$T/docs/layout.md")" \
	"a folder of folders has its FOLDERS line"

# The tree moves on: a new file changes the map, and --check says where.
printf '/* conn_io.c: the bytes of a session. */\n' >"$T/src/conn/conn_io.c"
map --check
assert_eq 1 "$RC" "--check after a new file"
assert_match '^\+\| `conn_io.c` \| the bytes of a session\. \|$' "$OUT" "the new file's row is shown"
assert_match '^@@ -[0-9]+,?[0-9]* \+[0-9]+' "$OUT" "a unified diff"

# A file without a role sentence, and a folder with no line, are named.
printf 'int x;\n' >"$T/src/conn/bare.c"
mkdir "$T/src/odd"
printf '/* odd_a.c: something. */\n' >"$T/src/odd/odd_a.c"
map --write
assert_eq 1 "$RC" "--write with problems"
assert_match '^module-map: src/conn/bare.c: no role sentence' "$OUT" "a file with no role sentence"
assert_match '^module-map: src/odd/: no line for the folder' "$OUT" "a folder with no line"

echo "PASS: module-map: --write, --check and its diff, nested folders, missing roles"
