#!/bin/sh
# A stand-in for a coding agent, run as ./agent.sh FILE: creates FILE and
# declares completion; ./agent.sh alone changes nothing.
cat >/dev/null
if [ -n "${1:-}" ]; then
	echo "done" >"$1"
	echo "agent: created $1"
	echo "<promise>COMPLETE</promise>"
else
	echo "agent: nothing to do"
fi
