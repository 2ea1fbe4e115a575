#!/bin/bash
# scripts/check-layers on small trees of its own: each tree is a few C
# files compiled to objects (the script reads only `nm` of objects), laid
# out as src/ is, with one known fault or none.  A module circle, each
# forbidden arrow (conn -> a driver, run -> a driver, a driver -> another
# driver, conn -> run) and a file circle in a FILE_RULE folder (src/conn/,
# src/run/, a driver's folder) fail with exit 1 and a line naming the
# modules or files; nested folders are modules by their path
# (drivers/stress).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd cc nm python3
LAYERS=$ROOT/scripts/check-layers

# tree: start a new tree; T is its root.
tree() {
	T=$(make_tmpdir)
	mkdir -p "$T/src" "$T/build/src"
}

# unit PATH CALLS...: src/PATH.c defines the function named after PATH
# (slashes as underscores) and calls the functions of the units CALLS;
# compiled to build/src/PATH.o.
fname() { printf 'f_%s' "${1//\//_}"; }
unit() {
	local path=$1 c o callee body=""
	shift
	c=$T/src/$path.c
	o=$T/build/src/$path.o
	mkdir -p "$(dirname "$c")" "$(dirname "$o")"
	{
		for callee in "$@"; do
			printf 'int %s(void);\n' "$(fname "$callee")"
			body="$body + $(fname "$callee")()"
		done
		printf 'int %s(void);\nint %s(void) { return 0%s; }\n' \
			"$(fname "$path")" "$(fname "$path")" "$body"
	} >"$c"
	cc -c -O0 -o "$o" "$c" || fail "cc $c"
}

# layers [ARGS]: check-layers on the tree; output in OUT, status in RC.
layers() {
	RC=0
	OUT=$("$LAYERS" "$@" --src "$T/src" "$T/build" 2>&1) || RC=$?
}
expect() { # STATUS REGEX WHAT
	[ "$RC" = "$1" ] || fail "$3: exit $RC, expected $1; output:
$OUT"
	assert_match "$2" "$OUT" "$3"
}

# A clean tree in the target's shape: main -> run -> conn; the stress
# driver uses the runner's contract and the engine.
clean_tree() {
	tree
	unit main run/run
	unit run/run run/worker
	unit run/worker conn/conn
	unit run/driver
	unit conn/conn conn/conn_io
	unit conn/conn_io
	unit drivers/stress/stress drivers/stress/plan run/driver conn/conn
	unit drivers/stress/plan conn/conn
	unit drivers/users/users run/driver conn/conn
}
clean_tree
layers
expect 0 '^check-layers: 5 modules, 6 edges, no cycle, no forbidden edge; no file circle in src/conn/ src/drivers/stress/ src/drivers/users/ src/run/$' \
	"a clean tree passes"
layers --dot
expect 0 '^  "drivers/stress" -> "run";$' "a nested folder is the module drivers/stress"

clean_tree
unit conn/conn_io run/worker
layers
expect 1 '^check-layers: modules call each other: conn run$' "a module circle fails"

clean_tree
unit conn/conn_io drivers/stress/plan
layers
expect 1 '^check-layers: conn must not use drivers/stress \(the engine never uses a driver\): f_drivers_stress_plan$' \
	"conn -> a driver fails"

clean_tree
unit run/worker conn/conn drivers/users/users
layers
expect 1 '^check-layers: run must not use drivers/users \(the runner reaches a driver only through run/driver.h\): f_drivers_users_users$' \
	"run -> a driver fails"

clean_tree
unit drivers/users/users run/driver conn/conn drivers/stress/plan
layers
expect 1 '^check-layers: drivers/users must not use drivers/stress \(a driver never uses another driver\): f_drivers_stress_plan$' \
	"a driver -> another driver fails"

clean_tree
unit drivers/stress/plan conn/conn drivers/stress/stress
layers
expect 1 '^check-layers: files of src/drivers/stress/ call each other: plan stress$' \
	"a file circle in a driver's folder fails"
assert_match '^  plan -> stress: f_drivers_stress_stress$' "$OUT" "the circle's edges are named"

clean_tree
unit run/worker conn/conn run/driver
unit run/driver run/run
layers
expect 1 '^check-layers: files of src/run/ call each other: driver run worker$' \
	"a file circle in src/run/ fails"

# src/conn/ is a FILE_RULE folder since its circle was broken (issue 28).
clean_tree
unit conn/conn_io conn/conn
layers
expect 1 '^check-layers: files of src/conn/ call each other: conn conn_io$' \
	"a file circle in src/conn/ fails"

# --files: every file a module, named by its path; a file circle anywhere
# fails there (information for whoever breaks circles).
layers --files
expect 1 '^check-layers: files call each other: conn/conn conn/conn_io$' "--files names files by path"

echo "PASS: check-layers: circles, forbidden arrows, file rules on nested folders"
