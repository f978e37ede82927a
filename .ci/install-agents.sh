#!/usr/bin/env bash
# Installs the agent CLIs architect's real-CLI tests run, pinned, with npm,
# into .cache/agents (or $ARCHITECT_AGENT_DIR). Idempotent: a package already
# installed at its pinned version is not installed again. The binaries end up
# in <dir>/node_modules/.bin, where the tests look for them (or set
# ARCHITECT_AGENT_BIN_DIR).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${ARCHITECT_AGENT_DIR:-$repo/.cache/agents}

pins=(
	@anthropic-ai/claude-code@2.1.197
	@openai/codex@0.169.0
	@google/gemini-cli@0.61.0
)

log() { echo "install-agents: $*" >&2; }

installed_version() { # package → version installed in $dir, or nothing
	local pj="$dir/node_modules/$1/package.json"
	[ -f "$pj" ] && node -p 'require(process.argv[1]).version' "$pj" 2>/dev/null || true
}

mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"private": true}' >"$dir/package.json"

todo=()
for pin in "${pins[@]}"; do
	pkg=${pin%@*} want=${pin##*@}
	have=$(installed_version "$pkg")
	if [ "$have" = "$want" ]; then
		log "$pkg $want already installed"
	else
		log "installing $pkg $want${have:+ (found $have)}"
		todo+=("$pin")
	fi
done
if [ ${#todo[@]} -gt 0 ]; then
	npm install --prefix "$dir" --save-exact --no-audit --no-fund --loglevel=error "${todo[@]}"
fi

# Claude Code ships its native binary in a platform package; its postinstall
# puts it in place of bin/claude.exe. When npm skipped the postinstall
# (ignore-scripts), copy it there ourselves.
claude_pkg=$dir/node_modules/@anthropic-ai/claude-code
if ! "$dir/node_modules/.bin/claude" --version >/dev/null 2>&1; then
	case "$(uname -m)" in
	x86_64 | amd64) arch=x64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) arch=$(uname -m) ;;
	esac
	native=
	for p in "linux-$arch" "linux-$arch-musl"; do
		if [ -x "$dir/node_modules/@anthropic-ai/claude-code-$p/claude" ] &&
			"$dir/node_modules/@anthropic-ai/claude-code-$p/claude" --version >/dev/null 2>&1; then
			native=$dir/node_modules/@anthropic-ai/claude-code-$p/claude
			break
		fi
	done
	if [ -z "$native" ]; then
		log "error: claude does not run and no native binary was found under $dir/node_modules/@anthropic-ai/"
		exit 1
	fi
	log "postinstall was skipped: copying $native to $claude_pkg/bin/claude.exe"
	cp -f "$native" "$claude_pkg/bin/claude.exe.tmp"
	chmod +x "$claude_pkg/bin/claude.exe.tmp"
	mv -f "$claude_pkg/bin/claude.exe.tmp" "$claude_pkg/bin/claude.exe"
fi

for b in claude codex gemini; do
	v=$("$dir/node_modules/.bin/$b" --version 2>&1 | head -n1) || {
		log "error: $b --version failed: $v"
		exit 1
	}
	log "$b: $v"
done
