#!/bin/sh
# A stand-in for `go test`: fails, naming a file and line, until calc.go adds.
if grep -q 'return a + b' calc.go; then
	echo "ok  	example.com/calc	0.001s"
	exit 0
fi
echo "--- FAIL: TestAdd (0.00s)"
echo "    calc.go:3:34: Add(1, 2) = -1, want 3"
echo "FAIL"
exit 1
