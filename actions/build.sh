#!/usr/bin/env bash
# Builds architect from the action's own source (ARCHITECT_SRC) with the
# runner's Go, once per source hash, Go version and platform: the binary is
# kept in the runner's tool cache. Writes the binary's path to the step
# output "bin" and puts it on PATH for later steps.
set -euo pipefail

src=${ARCHITECT_SRC:?ARCHITECT_SRC is not set}
if ! command -v go >/dev/null 2>&1; then
	echo "::error title=architect needs Go::the architect action builds architect from source with the runner's Go, and there is no go command on PATH. Install Go first (for example with actions/setup-go) or use a runner that has it."
	exit 1
fi

sum() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi; }
hash=$(
	{
		go version
		cd "$src" && find . -path ./.git -prune -o -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) ! -name '*_test.go' -print0 |
			LC_ALL=C sort -z | xargs -0 cat
	} | sum | cut -c1-16
)
dir=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}/architect/$hash/$(go env GOOS)-$(go env GOARCH)
bin=$dir/architect

if [[ -x $bin ]]; then
	echo "architect: using the cached build $bin"
else
	echo "architect: building architect ($hash) with $(go version)"
	mkdir -p "$dir"
	tmp=$(mktemp "$dir/.architect.XXXXXX")
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags "-X github.com/architect-dev/architect/cli.Version=action-$hash" -o "$tmp" ./cmd/architect)
	mv -f "$tmp" "$bin"
fi
echo "bin=$bin" >>"$GITHUB_OUTPUT"
echo "$dir" >>"$GITHUB_PATH"
