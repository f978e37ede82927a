#!/bin/sh
# Installs architect from a release archive: picks the archive for this
# machine, checks it against the release's checksums.txt, and installs the
# binary. Nothing is installed unless the checksum matches.
#
#   curl -fsSL https://raw.githubusercontent.com/architect-dev/architect/main/install.sh | sh
#
# Settings (environment):
#   ARCHITECT_VERSION      the release tag, for example v1.2.3 (default: latest)
#   ARCHITECT_INSTALL_DIR  where the binary goes (default: ~/.local/bin)
#   ARCHITECT_DOWNLOAD_URL the releases' base URL (default:
#                          https://github.com/architect-dev/architect/releases),
#                          for a mirror: it serves download/TAG/FILE and
#                          latest/download/FILE as GitHub does
#
# Exit status: 0 installed; 1 a download, the checksum or the archive
# failed; 2 this machine is not supported or a setting is wrong.
set -eu

base=${ARCHITECT_DOWNLOAD_URL:-https://github.com/architect-dev/architect/releases}
base=${base%/}
version=${ARCHITECT_VERSION:-latest}
dir=${ARCHITECT_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}

error() { printf 'architect install: error: %s\n' "$1" >&2; }
hint() { printf 'architect install: hint: %s\n' "$1" >&2; }
fail() { # fail STATUS MESSAGE [HINT]
	error "$2"
	[ -z "${3:-}" ] || hint "$3"
	exit "$1"
}

# The archive for this machine: architect_OS_ARCH.tar.gz.
kernel=$(uname -s)
machine=$(uname -m)
case $kernel in
Linux) os=linux ;;
Darwin) os=darwin ;;
MINGW* | MSYS* | CYGWIN* | Windows_NT)
	fail 2 "architect does not run on Windows ($kernel): it cannot end an agent's process tree there" \
		"install it inside WSL (wsl --install), where this script works as on Linux; see docs/platforms.md" ;;
*) fail 2 "no architect release for this system ($kernel): releases are for Linux and macOS" \
	"build it from source with Go: go install github.com/architect-dev/architect/cmd/architect@latest" ;;
esac
case $machine in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) fail 2 "no architect release for this processor ($machine): releases are for amd64 and arm64" \
	"build it from source with Go: go install github.com/architect-dev/architect/cmd/architect@latest" ;;
esac
# A shell under Rosetta reports x86_64 on an Apple silicon Mac: take the
# native binary.
if [ "$os/$arch" = darwin/amd64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
	arch=arm64
fi
name=architect_${os}_${arch}.tar.gz

case $version in
latest) url=$base/latest/download ;;
v[0-9]*) url=$base/download/$version ;;
[0-9]*) url=$base/download/v$version ;;
*) fail 2 "ARCHITECT_VERSION=$version is not a release tag" "set it to a tag such as v1.2.3, or leave it unset for the latest release" ;;
esac

if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsSL --retry 3 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -q -O "$2" "$1"; }
else
	fail 2 "neither curl nor wget is installed" "install one of them, then run this again"
fi
if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
	fail 2 "neither sha256sum nor shasum is installed: the archive cannot be checked" "install coreutils (sha256sum) or perl (shasum), then run this again"
fi

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t architect)
trap 'rm -rf "$tmp"; rm -f "$dir/.architect.$$"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

printf 'architect install: downloading %s (%s)\n' "$name" "$version" >&2
fetch "$url/checksums.txt" "$tmp/checksums.txt" || fail 1 "cannot download $url/checksums.txt" "check the version ($version) and your connection"
fetch "$url/$name" "$tmp/$name" || fail 1 "cannot download $url/$name" "check the version ($version) and your connection"

want=$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1; exit }' "$tmp/checksums.txt")
[ -n "$want" ] || fail 1 "checksums.txt of $version does not list $name: nothing installed" "the release is incomplete or not architect's; report it"
got=$(sha256 "$tmp/$name")
if [ "$got" != "$want" ]; then
	fail 1 "checksum mismatch for $name: expected $want, got $got; nothing installed" \
		"the download was corrupted or tampered with; try again, and report it if it persists"
fi

mkdir "$tmp/x"
tar -xzf "$tmp/$name" -C "$tmp/x" || fail 1 "cannot unpack $name" "the archive is damaged; try again"
bin=$tmp/x/architect_${os}_${arch}/architect
[ -f "$bin" ] || fail 1 "$name holds no architect binary" "the release is incomplete; report it"

mkdir -p "$dir" || fail 2 "cannot create $dir" "set ARCHITECT_INSTALL_DIR to a folder you can write"
# Copied beside the target, then renamed over it: a running architect keeps
# its old binary, and no half-written file is ever at the target.
cp "$bin" "$dir/.architect.$$" || fail 2 "cannot write to $dir" "set ARCHITECT_INSTALL_DIR to a folder you can write"
chmod 755 "$dir/.architect.$$"
mv -f "$dir/.architect.$$" "$dir/architect"

if ! v=$("$dir/architect" --version 2>&1); then
	fail 1 "installed $dir/architect, but it does not run here: $v" "report it with the output of uname -s -m"
fi
printf 'architect install: installed %s\n' "$v" >&2
printf 'architect install: to %s/architect (man pages and shell completions are in the archive: %s/%s)\n' "$dir" "$url" "$name" >&2
case :${PATH:-}: in
*:"$dir":*) ;;
*) hint "$dir is not on your PATH: add it, for example with  export PATH=\"$dir:\$PATH\"  in your shell's profile" ;;
esac
