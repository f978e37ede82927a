#!/bin/sh
# A stand-in for a coding agent. The prompt arrives on stdin.
# AGENT_MODE=fix: fixes calc.go and declares completion; anything else:
# changes nothing. Reports a cost of 0.25 USD per run.
prompt=$(cat)
case $prompt in
*'"; touch pwned; echo "'*'$(touch pwned)'*'`touch pwned`'*) echo "the task arrived verbatim" >.verbatim ;;
esac
echo "agent: thinking about it"
if [ "${AGENT_MODE:-}" = fix ]; then
	printf 'package calc\n\nfunc Add(a, b int) int { return a + b }\n' >calc.go
	echo "agent: fixed calc.go"
	echo "<promise>COMPLETE</promise>"
fi
printf '{"cost_usd": 0.25, "steps": 1}\n' >"$ARCHITECT_RESULT_FILE"
