package helper

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/usererr"
)

// roundTrip: what encoding/json writes (package sandbox marshals the
// policy), decode reads back as it was.
func roundTrip(t *testing.T, p Policy) {
	t.Helper()
	is := is.New(t)
	data, err := json.Marshal(p)
	is.NoErr(err)
	got, err := decode(string(data))
	is.NoErr(err) // data: see below
	// What encoding/json reads back: an empty list was left out, invalid
	// UTF-8 written as U+FFFD.
	var want Policy
	is.NoErr(json.Unmarshal(data, &want))
	is.Equal(got, want) // decoded as encoding/json decodes it
	if t.Failed() {
		t.Logf("policy: %s", data)
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	for name, p := range map[string]Policy{
		"empty":       {},
		"workspace":   {Write: []string{"/ws", "/tmp/architect-sandbox-1"}, Net: "all", Scope: true, ABI: 7, Env: []string{"TMPDIR=/tmp/x", "NO_PROXY="}},
		"strict":      {Write: []string{"/ws"}, Read: []string{"/usr", "/etc"}, Strict: true, Net: "ports", Ports: []uint16{1, 443, 65535}, ABI: 4},
		"none":        {Write: []string{"/ws"}, Net: "none", ABI: 6},
		"odd paths":   {Write: []string{`/a "quoted" \ back`, "/tab\there\nnewline\x01\x1f", "/<html>&amp;", "/é/日本/😀", "/bad\xffutf8", "/\u2028\u2029"}, ABI: 3},
		"empty lists": {Write: []string{}, Read: []string{""}, Ports: []uint16{0}, ABI: 3},
		"proxy":       {Net: "ports", Ports: []uint16{39999}, Env: []string{"HTTPS_PROXY=http://127.0.0.1:39999", "NODE_USE_ENV_PROXY=1"}, ABI: 7},
	} {
		t.Run(name, func(t *testing.T) { roundTrip(t, p) })
	}
}

// TestDecodeKnowsEveryField: each field of Policy, set alone, is read back
// (a field added to Policy and not to decode fails here, and the helper
// would refuse every policy that sets it).
func TestDecodeKnowsEveryField(t *testing.T) {
	typ := reflect.TypeFor[Policy]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			var p Policy
			v := reflect.ValueOf(&p).Elem().Field(i)
			switch v.Interface().(type) {
			case string:
				v.SetString("x")
			case bool:
				v.SetBool(true)
			case int:
				v.SetInt(7)
			case []string:
				v.Set(reflect.ValueOf([]string{"/x", "y"}))
			case []uint16:
				v.Set(reflect.ValueOf([]uint16{443, 8080}))
			default:
				t.Fatalf("Policy.%s is a %s: give this test a value of that type", f.Name, f.Type)
			}
			roundTrip(t, p)
		})
	}
}

func FuzzDecodeRoundTrip(f *testing.F) {
	f.Add("/ws", "/usr", "ports", "TMPDIR=/t", uint16(443), 7, true, true)
	f.Add("\"\\\x00\xed\xa0\x80", "", "", "", uint16(0), 0, false, false)
	f.Fuzz(func(t *testing.T, write, read, net, env string, port uint16, abi int, strict, scope bool) {
		if abi < 0 {
			abi = -abi
		}
		abi %= 1 << 31
		roundTrip(t, Policy{Write: []string{write, read}, Read: []string{read}, Strict: strict, Net: net, Ports: []uint16{port, port}, Scope: scope, ABI: abi, Env: []string{env}})
	})
}

// FuzzDecodeAgrees: any text decode takes, encoding/json takes too (its
// unknown fields refused, as decode refuses them), and reads the same.
func FuzzDecodeAgrees(f *testing.F) {
	f.Add(`{"write":["/a"],"strict":true,"strict":null,"abi":7,"ports":[1,null]}`)
	f.Add("{\"net\":\"a\xffb\\ud83d\\ude00\\u00e9\\n\"}")
	f.Add(`{"write":["/a"],"write":null,"env":["A=1"]}`)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := decode(in)
		if err != nil {
			return
		}
		var want Policy
		d := json.NewDecoder(strings.NewReader(in))
		d.DisallowUnknownFields()
		if err := d.Decode(&want); err != nil {
			t.Fatalf("decode took %q, encoding/json refused it: %v", in, err)
		}
		is.New(t).Equal(got, want) // read as encoding/json reads it
	})
}

// TestDecodeRefuses: what encoding/json would not have written is an
// error, a field decode does not know included (a rule it would drop).
func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, "want an object"},
		{`[]`, "want an object"},
		{`{"write":["/a"],"hide":["/b"],"abi":7}`, `unknown field "hide"`},
		{`{"Write":["/a"]}`, `unknown field "Write"`},
		{`{"write":"/a"}`, "write: want an array"},
		{`{"write":["/a"}`, "write: want , or ]"},
		{`{"write":["/a\q"]}`, "write: bad escape"},
		{`{"write":["/a\u12"]}`, `write: bad \u escape`},
		{"{\"write\":[\"/a\x01\"]}", "write: control character in a string"},
		{`{"write":["/a`, "write: unterminated string"},
		{`{"abi":-1}`, "abi: want a whole number from 0 to"},
		{`{"abi":3.5}`, "want , or }"},
		{`{"abi":07}`, "abi: want a whole number"},
		{`{"ports":[65536]}`, "ports: want a whole number from 0 to 65535"},
		{`{"strict":1}`, "strict: want true or false"},
		{`{"abi":7} x`, "text after the policy"},
		{`{"abi":7,}`, "want a string"},
	} {
		t.Run(c.in, func(t *testing.T) {
			is := is.New(t)
			_, err := decode(c.in)
			is.True(err != nil)                            // refused
			is.True(strings.Contains(err.Error(), c.want)) // err: see below
			if !strings.Contains(err.Error(), c.want) {
				t.Logf("error: %v", err)
			}
		})
	}
}

// TestDecodeAcceptsJSON: white space and nulls, as any JSON writer may
// put them.
func TestDecodeAcceptsJSON(t *testing.T) {
	is := is.New(t)
	p, err := decode(" {\n\t\"write\" : [ \"/a\" , \"/b\" ] ,\r\n \"read\": null, \"strict\": false, \"net\": null, \"abi\": 7 } \n")
	is.NoErr(err)
	is.Equal(p, Policy{Write: []string{"/a", "/b"}, ABI: 7})
}

// TestErrorLine: the helper's error lines are usererr's.
func TestErrorLine(t *testing.T) {
	is := is.New(t)
	var b bytes.Buffer
	usererr.Say(&b, usererr.LevelError, "sandbox: bad policy: x")
	is.Equal(errorLine("sandbox: bad policy: x"), b.String())
}

func TestMergeEnv(t *testing.T) {
	is := is.New(t)
	is.Equal(mergeEnv([]string{"A=1", "TMPDIR=/tmp", "B=2", "NOEQ"}, []string{"TMPDIR=/x", "C="}), []string{"A=1", "B=2", "NOEQ", "TMPDIR=/x", "C="})
	is.Equal(mergeEnv([]string{"A=1"}, nil), []string{"A=1"})
}
