#!/usr/bin/env bash
# Makes the README's pictures from a real run of `architect demo` (the
# README's first command), built from this checkout:
#   view.txt      the terminal view, captured with tmux during the second
#                 iteration (the first fixed one of the two bugs);
#                 also copied into README.md between its picture markers
#   report.png    the report that run wrote, shot by headless Chromium
#   report.txt    the report's headings, in order (what TestPictures compares)
# Usage: bash docs/pictures/make.sh [--view-only DIR]
#   --view-only DIR   capture the view and the report's headings into DIR
#                     only (no screenshot, README untouched): what
#                     internal/doctest's TestPictures runs to compare.
# Needs go, git, tmux, and chromium (or chromium-browser, google-chrome).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=$root/docs/pictures
only=""
if [ "${1:-}" = --view-only ]; then
	only=1
	out=$2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/architect-pictures.XXXXXX")
sock=${PICTURES_TMUX_SOCKET:-architect-pictures-$$} # the tmux server of this capture
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

CGO_ENABLED=0 go build -trimpath -o "$work/bin/architect" ./cmd/architect
mkdir -p "$work/tmp"

# A fixed 100×32 terminal. The demo runs in TMPDIR=$work/tmp, so its
# repository (architect-demo-NNN) is found there afterwards.
tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 32 \
	"env TMPDIR='$work/tmp' PATH='$work/bin:$PATH' architect demo; echo \$? >'$work/exit'; sleep 600"

# The view during the second iteration, once the first iteration's failing
# check output is on screen and the agent has started reading.
view=""
for _ in $(seq 1 600); do
	pane=$(tmux -L "$sock" capture-pane -p)
	if grep -q 'iteration 2/' <<<"$pane" && grep -q '── Output:' <<<"$pane" &&
		grep -A1 '^── iteration 2 ──' <<<"$pane" | grep -q '^  reading'; then
		view=$pane
		break
	fi
	[ -f "$work/exit" ] && break
	sleep 0.1
done
if [ -z "$view" ]; then
	echo "make.sh: the view never showed the second iteration; the pane:" >&2
	tmux -L "$sock" capture-pane -p >&2
	exit 1
fi
for _ in $(seq 1 600); do
	[ -f "$work/exit" ] && break
	sleep 0.1
done
[ -f "$work/exit" ] || { echo "make.sh: the demo did not end within a minute" >&2; exit 1; }
[ "$(cat "$work/exit")" = 0 ] || { echo "make.sh: the demo failed (exit status $(cat "$work/exit"))" >&2; tmux -L "$sock" capture-pane -p >&2; exit 1; }
report=$(ls "$work"/tmp/architect-demo-*/.architect/report.html)

mkdir -p "$out"
# Trailing blanks, and the empty lines between the panes and the keys
# squeezed to one.
sed -e 's/[[:space:]]*$//' <<<"$view" | cat -s >"$out/view.txt"
grep -o '<h[1-3][^>]*>[^<]*' "$report" | sed 's/<h\([1-3]\)[^>]*>/h\1 /' >"$out/report.txt"
[ -n "$only" ] && exit 0

chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
"$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
	--window-size=900,1100 --screenshot="$work/report.png" "file://$report" >/dev/null 2>&1
# Fewer colours keep the PNG small, where pngquant or ImageMagick is there.
pngquant --force --output "$out/report.png" 64 "$work/report.png" 2>/dev/null ||
	convert "$work/report.png" -colors 64 "PNG8:$out/report.png" 2>/dev/null ||
	cp "$work/report.png" "$out/report.png"

# The README's copy of the view, between its markers.
awk -v view="$out/view.txt" '
	/^<!-- picture: view / { print; print "```text"; while ((getline l < view) > 0) print l; print "```"; skip = 1; next }
	/^<!-- end picture -->/ { skip = 0 }
	!skip { print }
' README.md >"$work/README.md"
cp "$work/README.md" README.md
echo "docs/pictures: view.txt, report.png ($(wc -c <"$out/report.png") bytes), report.txt; README.md updated"
