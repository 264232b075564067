# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by Tests/install/run.sh and deb.sh: `. lib.sh NAME` moves to the repository, makes
# $tmp (removed on exit) and defines the check helpers; messages start with "NAME test:".
test_name=$1
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tactus-$test_name-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

checks=0
fail() { echo "$test_name test: FAIL: $*" >&2; [ -f "$tmp/log" ] && sed 's/^/    | /' "$tmp/log" >&2; exit 1; }
ok() { checks=$((checks + 1)); }
expect_file() { [ -f "$1" ] || fail "missing $1"; ok; }
expect_absent() { [ ! -e "$1" ] && [ ! -L "$1" ] || fail "should not exist: $1"; ok; }
expect_same() { cmp -s "$1" "$2" || fail "$2 differs from $1"; ok; }
