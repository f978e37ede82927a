#!/usr/bin/env bash
# Installs aider, pinned, from PyPI into a virtual environment in
# .cache/aider (or $ARCHITECT_AIDER_DIR), for the real-CLI tests in e2e/.
# Idempotent: nothing is installed when the pinned version is already there.
# The executable ends up in <dir>/bin/aider, where the tests look for it.
# Costs about 40 s and 690 MB on a 2-CPU machine the first time (aider pins
# its ~100 dependencies: litellm, tree-sitter grammars, numpy, …); nothing
# after that.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${ARCHITECT_AIDER_DIR:-$repo/.cache/aider}
pin=0.86.2

log() { echo "install-aider: $*" >&2; }

if [ -x "$dir/bin/aider" ] && [ "$("$dir/bin/aider" --version 2>/dev/null)" = "aider $pin" ]; then
	log "aider $pin already installed"
	exit 0
fi

# aider-chat 0.86 supports Python 3.10 to 3.12.
python=
for p in python3 python3.12 python3.11 python3.10; do
	if command -v "$p" >/dev/null &&
		"$p" -c 'import sys; sys.exit(not ((3, 10) <= sys.version_info[:2] <= (3, 12)))' 2>/dev/null; then
		python=$p
		break
	fi
done
if [ -z "$python" ]; then
	log "error: aider $pin needs Python 3.10 to 3.12, and none was found"
	exit 1
fi

log "installing aider-chat $pin into $dir with $($python --version)"
# A half-made environment (an interrupted install) fails the version check
# above and is made again from scratch.
rm -rf "$dir"
"$python" -m venv "$dir"
"$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "aider-chat==$pin"
v=$("$dir/bin/aider" --version 2>&1) || {
	log "error: aider --version failed: $v"
	exit 1
}
log "$v"
