#!/bin/sh
# failing-go-test.sh DIR: builds in DIR (created if missing, must not be a
# repository yet) a tiny Go module whose test fails, with one commit on
# branch main. Author, committer and dates are fixed, and the user's git
# configuration is kept out, so the commit hash is the same on every machine.
#
# The bug to fix: Add subtracts. `go test ./...` fails until it adds.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1
if [ -e "$dir/.git" ]; then
	echo "$0: $dir is already a git repository" >&2
	exit 1
fi
mkdir -p "$dir"

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="Fixture Author" GIT_AUTHOR_EMAIL=fixture@example.com
export GIT_COMMITTER_NAME="Fixture Author" GIT_COMMITTER_EMAIL=fixture@example.com
export GIT_AUTHOR_DATE="2024-01-01T00:00:00Z" GIT_COMMITTER_DATE="2024-01-01T00:00:00Z"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE

cat >"$dir/go.mod" <<'GO'
module example.com/calc

go 1.22
GO

cat >"$dir/calc.go" <<'GO'
// Package calc does arithmetic.
package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}
GO

cat >"$dir/calc_test.go" <<'GO'
package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d, want 5", got)
	}
}
GO

cat >"$dir/README.md" <<'MD'
# calc

`go test ./...` fails: make it pass.
MD

git -C "$dir" -c init.defaultBranch=main init --quiet
git -C "$dir" add go.mod calc.go calc_test.go README.md
git -C "$dir" -c commit.gpgSign=false -c core.hooksPath=/dev/null \
	commit --quiet -m "calc: add Add, with a failing test"
