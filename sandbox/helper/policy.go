package helper

import (
	"errors"
	"strconv"
	"unicode/utf8"
)

// decode reads a policy as encoding/json writes it (package sandbox
// marshals it), and reads it as encoding/json would (null leaves a value
// as it was, and empties a list; invalid UTF-8 becomes U+FFFD). It is
// written out here because importing encoding/json would have reflect,
// fmt and the packages before them in import order initialised before
// this one (see the package comment). A field it does not know is an
// error: a rule the helper would drop must not go unseen.
func decode(s string) (Policy, error) {
	var p Policy
	r := &reader{s: s}
	err := r.object(func(key string) error {
		var err error
		switch key {
		case "write":
			p.Write, err = r.strings()
		case "read":
			p.Read, err = r.strings()
		case "strict":
			err = r.boolean(&p.Strict)
		case "net":
			err = r.string(&p.Net)
		case "ports":
			p.Ports, err = r.ports()
		case "scope":
			err = r.boolean(&p.Scope)
		case "abi":
			n := uint64(p.ABI)
			err = r.uint(&n, 1<<31-1)
			p.ABI = int(n)
		case "env":
			p.Env, err = r.strings()
		case "readonly":
			p.ReadOnly, err = r.strings()
		case "probe":
			err = r.boolean(&p.Probe)
		default:
			return errors.New("unknown field " + strconv.Quote(key))
		}
		if err != nil {
			return errors.New(key + ": " + err.Error())
		}
		return nil
	})
	if err == nil {
		r.space()
		if r.i < len(r.s) {
			err = r.fail("text after the policy")
		}
	}
	return p, err
}

// reader reads JSON from s, at i.
type reader struct {
	s string
	i int
}

func (r *reader) fail(what string) error {
	return errors.New(what + " at offset " + strconv.Itoa(r.i))
}

func (r *reader) space() {
	for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] == '\t' || r.s[r.i] == '\n' || r.s[r.i] == '\r') {
		r.i++
	}
}

// next skips white space and says whether the next byte is c, taking it
// if so.
func (r *reader) next(c byte) bool {
	r.space()
	if r.i < len(r.s) && r.s[r.i] == c {
		r.i++
		return true
	}
	return false
}

// null takes a null.
func (r *reader) null() bool {
	r.space()
	if len(r.s)-r.i >= 4 && r.s[r.i:r.i+4] == "null" {
		r.i += 4
		return true
	}
	return false
}

// object reads an object, calling field with each key, the reader then
// at its value.
func (r *reader) object(field func(key string) error) error {
	if !r.next('{') {
		return r.fail("want an object")
	}
	if r.next('}') {
		return nil
	}
	for {
		var key string
		if err := r.string(&key); err != nil {
			return err
		}
		if !r.next(':') {
			return r.fail("want :")
		}
		if err := field(key); err != nil {
			return err
		}
		if r.next('}') {
			return nil
		}
		if !r.next(',') {
			return r.fail("want , or }")
		}
	}
}

// array reads an array, calling elem at each element.
func (r *reader) array(elem func() error) error {
	if !r.next('[') {
		return r.fail("want an array")
	}
	if r.next(']') {
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if r.next(']') {
			return nil
		}
		if !r.next(',') {
			return r.fail("want , or ]")
		}
	}
}

func (r *reader) strings() ([]string, error) {
	if r.null() {
		return nil, nil
	}
	out := []string{}
	err := r.array(func() error {
		var s string
		err := r.string(&s)
		out = append(out, s)
		return err
	})
	return out, err
}

func (r *reader) ports() ([]uint16, error) {
	if r.null() {
		return nil, nil
	}
	out := []uint16{}
	err := r.array(func() error {
		var n uint64
		err := r.uint(&n, 1<<16-1)
		out = append(out, uint16(n))
		return err
	})
	return out, err
}

func (r *reader) boolean(v *bool) error {
	r.space()
	switch {
	case len(r.s)-r.i >= 4 && r.s[r.i:r.i+4] == "true":
		r.i += 4
		*v = true
	case len(r.s)-r.i >= 5 && r.s[r.i:r.i+5] == "false":
		r.i += 5
		*v = false
	case !r.null():
		return r.fail("want true or false")
	}
	return nil
}

// uint reads a whole number from 0 to most.
func (r *reader) uint(v *uint64, most uint64) error {
	if r.null() {
		return nil
	}
	start := r.i
	for r.i < len(r.s) && r.s[r.i] >= '0' && r.s[r.i] <= '9' {
		r.i++
	}
	n, err := strconv.ParseUint(r.s[start:r.i], 10, 64)
	if err != nil || n > most || (r.i-start > 1 && r.s[start] == '0') {
		r.i = start
		return r.fail("want a whole number from 0 to " + strconv.FormatUint(most, 10))
	}
	*v = n
	return nil
}

// string reads a string (or null), as encoding/json reads it.
func (r *reader) string(v *string) error {
	if r.null() {
		return nil
	}
	if !r.next('"') {
		return r.fail("want a string")
	}
	var b []byte
	for start := r.i; r.i < len(r.s); {
		c := r.s[r.i]
		switch {
		case c == '"':
			*v = string(append(b, r.s[start:r.i]...))
			r.i++
			return nil
		case c < 0x20:
			return r.fail("control character in a string")
		case c == '\\':
			var err error
			if b, err = r.escape(append(b, r.s[start:r.i]...)); err != nil {
				return err
			}
			start = r.i
		case c < utf8.RuneSelf:
			r.i++
		default:
			if c, size := utf8.DecodeRuneInString(r.s[r.i:]); c != utf8.RuneError || size != 1 {
				r.i += size
				continue
			}
			// Invalid UTF-8, a byte at a time.
			b = utf8.AppendRune(append(b, r.s[start:r.i]...), utf8.RuneError)
			r.i++
			start = r.i
		}
	}
	return r.fail("unterminated string")
}

// escape appends to b what the escape at i stands for, and takes it.
func (r *reader) escape(b []byte) ([]byte, error) {
	if r.i+1 >= len(r.s) {
		return nil, r.fail("unterminated string")
	}
	e := r.s[r.i+1]
	if c, ok := unescape(e); ok {
		r.i += 2
		return append(b, c), nil
	}
	if e != 'u' {
		return nil, r.fail("bad escape")
	}
	r.i += 2
	c, ok := r.hex4()
	if !ok {
		return nil, r.fail("bad \\u escape")
	}
	if 0xd800 <= c && c < 0xdc00 && len(r.s)-r.i >= 6 && r.s[r.i] == '\\' && r.s[r.i+1] == 'u' {
		save := r.i
		r.i += 2
		if lo, ok := r.hex4(); ok && 0xdc00 <= lo && lo < 0xe000 {
			c = 0x10000 + (c-0xd800)<<10 + (lo - 0xdc00)
		} else {
			r.i = save
		}
	}
	if 0xd800 <= c && c < 0xe000 {
		c = utf8.RuneError // a lone surrogate, as encoding/json reads it
	}
	return utf8.AppendRune(b, c), nil
}

// unescape is what \e stands for, but for \u.
func unescape(e byte) (byte, bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

func (r *reader) hex4() (rune, bool) {
	if len(r.s)-r.i < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(r.s[r.i:r.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	r.i += 4
	return rune(n), true
}
