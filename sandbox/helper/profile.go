package helper

import "strconv"

// profile is p as a Seatbelt profile: everything allowed, then writes
// denied except beneath p.Write and the devices; in strict mode reads too.
func profile(p Policy) string {
	var b []byte
	b = append(b, "(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*\n"...)
	for _, d := range append(append([]string(nil), p.Write...), Devices...) {
		b = append(b, "  (subpath "+strconv.Quote(d)+")\n"...)
	}
	b = append(b, ")\n"...)
	if p.Strict {
		b = append(b, "(deny file-read*)\n(allow file-read*\n  (literal \"/\")\n"...)
		for _, d := range append(append([]string(nil), p.Read...), p.Write...) {
			b = append(b, "  (subpath "+strconv.Quote(d)+")\n"...)
		}
		b = append(b, ")\n"...)
	}
	return string(b)
}
