package helper

import (
	"strconv"
	"strings"
)

// profile is p as a Seatbelt profile: everything allowed, then writes
// denied except beneath p.Write and the devices; in strict mode reads too.
func profile(p Policy) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*\n")
	for _, d := range append(append([]string(nil), p.Write...), Devices...) {
		b.WriteString("  (subpath " + strconv.Quote(d) + ")\n")
	}
	b.WriteString(")\n")
	if p.Strict {
		b.WriteString("(deny file-read*)\n(allow file-read*\n  (literal \"/\")\n")
		for _, d := range append(append([]string(nil), p.Read...), p.Write...) {
			b.WriteString("  (subpath " + strconv.Quote(d) + ")\n")
		}
		b.WriteString(")\n")
	}
	return b.String()
}
