package testset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// write creates files under dir: name → content.
func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestScanFindsEachLanguagesTests(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"calc.go": "package calc\nfunc TestNotATest(t *testing.T) {}\n",
		"calc_test.go": "package calc\n\nfunc TestAdd(t *testing.T) {}\nfunc TestMain(m *testing.M) {}\n" +
			"func Testify() {}\nfunc helper() {}\nfunc FuzzParse(f *testing.F) {}\nfunc ExampleAdd() {}\nfunc Test(t *testing.T) {}\n" +
			"// func TestCommented(t *testing.T) {}\n",
		"tests/test_api.py": "import pytest\n\ndef test_get():\n    pass\n\nasync def test_post():\n    pass\n\n" +
			"class TestUser:\n    def test_name(self):\n        pass\n\n    def helper(self):\n        pass\n\ndef test_after_class():\n    pass\n\ndef testing_counts_too():\n    pass\n",
		"pkg/util_test.py":           "def test_util(): pass\n",
		"pkg/util.py":                "def test_in_source(): pass\n",
		"web/sum.test.ts":            "describe('sum', () => {\n  it('adds', () => {})\n  test.only(\"subtracts\", () => {})\n  it(`multiplies`, () => {})\n  submit('no')\n})\n",
		"web/__tests__/a.js":         "test('in a folder', () => {})\n",
		"web/app.spec.jsx":           "it('renders', () => {})\n",
		"web/app.js":                 "it('not a test file', () => {})\n",
		"src/lib.rs":                 "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {}\n    #[tokio::test]\n    #[ignore]\n    async fn waits() {}\n}\n",
		"src/main.rs":                "fn main() {}\n",
		"tests/integration.rs":       "use x;\n",
		"node_modules/dep/x.test.js": "it('theirs', () => {})\n",
		".venv/lib/test_x.py":        "def test_theirs(): pass\n",
		"skipme/a_test.go":           "func TestSkipped(t *testing.T) {}\n",
	})
	got, err := Scan(dir, []string{"skipme"})
	is.NoErr(err)
	is.Equal(got, Set{
		"calc_test.go":         {"ExampleAdd", "FuzzParse", "Test", "TestAdd"},
		"tests/test_api.py":    {"TestUser.test_name", "test_after_class", "test_get", "test_post", "testing_counts_too"},
		"pkg/util_test.py":     {"test_util"},
		"web/sum.test.ts":      {"adds", "multiplies", "subtracts"},
		"web/__tests__/a.js":   {"in a folder"},
		"web/app.spec.jsx":     {"renders"},
		"src/lib.rs":           {"adds", "waits"},
		"tests/integration.rs": {},
	})
	is.Equal(got.Count(), 4+5+1+3+1+1+2+1)
}

func TestCompare(t *testing.T) {
	cases := []struct {
		name       string
		start, now Set
		files      []string
		tests      []string
	}{
		{name: "nothing changed",
			start: Set{"a_test.go": {"TestA", "TestB"}}, now: Set{"a_test.go": {"TestA", "TestB"}}},
		{name: "a test added",
			start: Set{"a_test.go": {"TestA"}}, now: Set{"a_test.go": {"TestA", "TestB"}, "b_test.go": {"TestC"}}},
		{name: "a file deleted",
			start: Set{"a_test.go": {"TestA", "TestB"}, "b_test.go": {"TestC"}}, now: Set{"b_test.go": {"TestC"}},
			files: []string{"a_test.go"}, tests: []string{"a_test.go: TestA", "a_test.go: TestB"}},
		{name: "a function deleted",
			start: Set{"a_test.go": {"TestA", "TestB"}}, now: Set{"a_test.go": {"TestA"}},
			tests: []string{"a_test.go: TestB"}},
		{name: "a file renamed with its tests",
			start: Set{"a_test.go": {"TestA", "TestB"}}, now: Set{"calc_test.go": {"TestA", "TestB"}},
			files: []string{"a_test.go"}},
		{name: "a file renamed, one test lost on the way",
			start: Set{"a_test.go": {"TestA", "TestB"}}, now: Set{"calc_test.go": {"TestA"}},
			files: []string{"a_test.go"}, tests: []string{"a_test.go: TestB"}},
		{name: "a function moved to another file",
			start: Set{"a_test.go": {"TestA", "TestB"}, "b_test.go": {"TestC"}}, now: Set{"a_test.go": {"TestA"}, "b_test.go": {"TestB", "TestC"}}},
		{name: "a common name deleted in one file, still in another",
			start: Set{"a/test_x.py": {"test_basic"}, "b/test_y.py": {"test_basic"}}, now: Set{"a/test_x.py": {}, "b/test_y.py": {"test_basic"}},
			tests: []string{"a/test_x.py: test_basic"}},
		{name: "a duplicate name in one file lost once",
			start: Set{"x.test.js": {"works", "works"}}, now: Set{"x.test.js": {"works"}},
			tests: []string{"x.test.js: works"}},
		{name: "a file without a recognised test deleted",
			start: Set{"tests/integration.rs": {}}, now: Set{},
			files: []string{"tests/integration.rs"}, tests: []string{"tests/integration.rs"}},
		{name: "a file without a recognised test moved",
			start: Set{"tests/integration.rs": {}}, now: Set{"tests/old/integration.rs": {}},
			files: []string{"tests/integration.rs"}},
		{name: "every test of a file deleted, the file kept",
			start: Set{"a_test.go": {"TestA"}}, now: Set{"a_test.go": {}},
			tests: []string{"a_test.go: TestA"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			got := Compare(c.start, c.now)
			is.Equal(got.Files, c.files)
			is.Equal(got.Tests, c.tests)
			is.Equal(got.Any(), c.files != nil || c.tests != nil)
		})
	}
}

func TestWitness(t *testing.T) {
	cases := []struct {
		name, out  string
		want       []string
		notWitness bool // the output does not name every test that ran
	}{
		{name: "go test -json",
			out: `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0}
{"Action":"fail","Package":"p","Test":"TestB/sub","Elapsed":0}
{"Action":"skip","Package":"p","Test":"TestC","Elapsed":0}
{"Action":"pass","Package":"p","Elapsed":0}
`, want: []string{"p.TestA", "p.TestB/sub"}},
		{name: "go test -v",
			out:  "=== RUN   TestA\n--- PASS: TestA (0.00s)\n    --- FAIL: TestA/sub (0.00s)\n--- SKIP: TestC (0.00s)\nok  \tp\t0.01s\n",
			want: []string{"TestA", "TestA/sub"}},
		{name: "pytest -v",
			out: "tests/test_a.py::test_x PASSED                [ 33%]\r\ntests/test_a.py::TestK::test_y SKIPPED (why) [ 66%]\n" +
				"tests/test_a.py::test_z FAILED [100%]\n=== short test summary info ===\nFAILED tests/test_a.py::test_w - assert 1 == 2\n",
			want: []string{"tests/test_a.py::test_w", "tests/test_a.py::test_x", "tests/test_a.py::test_z"}},
		{name: "cargo test",
			out:  "running 3 tests\ntest tests::adds ... ok\ntest tests::waits ... ignored\ntest tests::fails ... FAILED\n\ntest result: FAILED. 1 passed\n",
			want: []string{"tests::adds", "tests::fails"}},
		{name: "nothing named", out: "ok\nPASS\n", want: nil, notWitness: true},
		{name: "a last line without its newline", out: "--- PASS: TestA (0.00s)", want: []string{"TestA"}},
		{name: "go test without -v names failures only",
			out: "--- FAIL: TestAdd (0.00s)\n    calc_test.go:6: no\nFAIL\nFAIL\tcalc\t0.01s\n", want: []string{"TestAdd"}, notWitness: true},
		{name: "pytest without -v names failures only",
			out: "F.                [100%]\n=== short test summary info ===\nFAILED tests/test_a.py::test_w - assert 1 == 2\n", want: []string{"tests/test_a.py::test_w"}, notWitness: true},
		{name: "go test -v where every test failed",
			out: "=== RUN   TestAdd\n--- FAIL: TestAdd (0.00s)\n", want: []string{"TestAdd"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			w := NewWitness()
			// In pieces, as a pipe delivers it.
			for s := c.out; s != ""; {
				n := min(7, len(s))
				_, _ = w.Write([]byte(s[:n]))
				s = s[n:]
			}
			got, witness := w.Ran()
			is.Equal(witness, !c.notWitness)
			is.Equal(got, c.want)
		})
	}
}

func TestWitnessIgnoresAnOverlongLine(t *testing.T) {
	is := is.New(t)
	w := NewWitness()
	_, _ = w.Write([]byte("--- PASS: TestHuge" + strings.Repeat("x", maxLine) + " (0.00s)\n--- PASS: TestA (0.00s)\n"))
	got, _ := w.Ran()
	is.Equal(got, []string{"TestA"})
	is.True(cap(w.line) <= 2*maxLine) // memory stays bounded
}

func TestShrunk(t *testing.T) {
	is := is.New(t)
	is.Equal(Shrunk([]string{"a", "b", "c"}, []string{"a", "c", "d"}), []string{"b"})
	is.Equal(Shrunk([]string{"a"}, []string{"a", "b"}), nil)
	// A test that moved to another file under the same name ran all the
	// same (pytest -v, a JUnit report, jest's): it is not gone.
	is.Equal(Shrunk([]string{"tests/test_a.py::test_x", "tests/test_a.py::test_y"},
		[]string{"tests/test_a.py::test_x", "tests/test_b.py::test_y"}), nil)
	is.Equal(Shrunk([]string{"tests.test_a::test_y"}, []string{"tests.test_b::test_y"}), nil)
	// One move covers one test: of two of that name, one is still gone.
	is.Equal(Shrunk([]string{"a.py::test_x", "b.py::test_x"}, []string{"c.py::test_x"}), []string{"b.py::test_x"})
	is.Equal(Shrunk([]string{"a.py::test_x", "b.py::test_x"}, []string{"b.py::test_x"}), []string{"a.py::test_x"})
	// Another name is another test.
	is.Equal(Shrunk([]string{"a.py::test_x"}, []string{"b.py::test_z"}), []string{"a.py::test_x"})
}

func TestJUnit(t *testing.T) {
	is := is.New(t)
	for cmd, want := range map[string]string{
		"pytest -q --junitxml=out/report.xml":        "out/report.xml",
		"python -m pytest --junit-xml 'r.xml' tests": "r.xml",
		"pytest -v":         "",
		"pytest --junitxml": "",
	} {
		is.Equal(JUnitPath(cmd), want)
	}
	report := `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="3">
<testcase classname="tests.test_a" name="test_x" time="0.001"/>
<testcase classname="tests.test_a" name="test_y" time="0"><skipped type="pytest.skip" message="later">later</skipped></testcase>
<testcase classname="tests.test_a.TestK" name="test_z" time="0.002"><failure message="assert 1 == 2">trace</failure></testcase>
</testsuite></testsuites>`
	names, ok := JUnitRan([]byte(report))
	is.True(ok)
	is.Equal(names, []string{"tests.test_a.TestK::test_z", "tests.test_a::test_x"})
	_, ok = JUnitRan([]byte("<testsuites><testcase"))
	is.True(!ok) // torn: no witness
}

func TestJSONReport(t *testing.T) {
	is := is.New(t)
	for cmd, want := range map[string]string{
		"npx jest --json --outputFile=out/jest.json":              "out/jest.json",
		"npx vitest run --reporter=json --outputFile report.json": "report.json",
		"npx vitest run --reporter json --output-file='r.json'":   "r.json",
		"npx jest --outputFile=out/jest.json":                     "", // not JSON
		"npx jest --json":                                         "", // to stdout
	} {
		is.Equal(JSONReportPath(cmd), want)
	}
	report := `{"numTotalTests":4,"testResults":[{"name":"/w/web/sum.test.ts","assertionResults":[
{"fullName":"sum adds","title":"adds","status":"passed"},
{"fullName":"sum subtracts","title":"subtracts","status":"failed"},
{"fullName":"sum later","title":"later","status":"pending"},
{"fullName":"sum todo","title":"todo","status":"todo"}]}]}`
	names, ok := JSONReportRan([]byte(report))
	is.True(ok)
	is.Equal(names, []string{"sum.test.ts::sum adds", "sum.test.ts::sum subtracts"})
	_, ok = JSONReportRan([]byte(`{"numTotalTests":`))
	is.True(!ok)
}

// A Go test file that go test leaves out runs none of its tests: a build
// constraint added, a GOOS suffix or a leading _ given by a rename remove
// its tests; a file constrained from the start, left so, removes nothing.
func TestGoTestFileLeftOut(t *testing.T) {
	const body = "package calc\n\nfunc TestAdd(t *testing.T) {}\n"
	scan := func(files map[string]string) Set {
		t.Helper()
		dir := t.TempDir()
		write(t, dir, files)
		s, err := Scan(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	start := scan(map[string]string{"calc_test.go": body, "db_test.go": "//go:build integration\n\n" + body})
	is.New(t).Equal(start["db_test.go"], []string{"TestAdd [go:build integration]"})
	for _, c := range []struct {
		name string
		now  map[string]string
		gone []string
	}{
		{"constraint added", map[string]string{"calc_test.go": "//go:build never\n\n" + body, "db_test.go": "//go:build integration\n\n" + body}, []string{"calc_test.go: TestAdd"}},
		{"old-style constraint", map[string]string{"calc_test.go": "// +build ignore\n\n" + body, "db_test.go": "//go:build integration\n\n" + body}, []string{"calc_test.go: TestAdd"}},
		{"renamed for another OS", map[string]string{"calc_windows_test.go": body, "db_test.go": "//go:build integration\n\n" + body}, []string{"calc_test.go: TestAdd"}},
		{"renamed to be ignored", map[string]string{"_calc_test.go": body, "db_test.go": "//go:build integration\n\n" + body}, []string{"calc_test.go: TestAdd"}},
		{"renamed, still built", map[string]string{"add_test.go": body, "db_test.go": "//go:build integration\n\n" + body}, nil},
		{"a constraint after the package clause is a comment", map[string]string{"calc_test.go": body + "//go:build never\n", "db_test.go": "//go:build integration\n\n" + body}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			is.New(t).Equal(Compare(start, scan(c.now)).Tests, c.gone)
		})
	}
}

// A test made not to run (skipped, a todo) is named so: skipping one that
// ran at the start removes it, as deleting it would.
func TestSkippedTestsAreNamedSo(t *testing.T) {
	cases := []struct {
		file, body string
		want       []string
	}{
		{"a.test.js", "it.skip('adds', () => {})\ntest.todo(\"later\")\nit.only('b', () => {})\nit('c', () => {})\n", []string{"adds [skip]", "b", "c", "later [todo]"}},
		{"test_a.py", "import pytest\n\n@pytest.mark.skip(reason='x')\ndef test_a():\n    pass\n\n@pytest.mark.parametrize('skip_it', [1])\ndef test_b(skip_it):\n    pass\n\ndef test_c():\n    pass\n", []string{"test_a [skip]", "test_b", "test_c"}},
		{"test_b.py", "import unittest\n\n@unittest.skip('later')\nclass TestX(unittest.TestCase):\n    def test_a(self):\n        pass\n\ndef test_after():\n    pass\n", []string{"TestX.test_a [skip]", "test_after"}},
		{"test_c.py", "import pytest\npytestmark = pytest.mark.skip\n\ndef test_a():\n    pass\n", []string{"test_a [skip]"}},
		{"test_d.py", "__test__ = False\n\ndef test_a():\n    pass\n", []string{"test_a [skip]"}},
		{"a_test.go", "package a\n\nfunc TestA(t *testing.T) {\n\tt.Skip(\"later\")\n}\n\nfunc TestB(t *testing.T) {\n\t// t.Skip()\n}\n\nfunc helper(t *testing.T) {\n\tt.Skip()\n}\n\nfunc TestC(t *testing.T) {}\n", []string{"TestA [skip]", "TestB", "TestC"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			is := is.New(t)
			dir := t.TempDir()
			write(t, dir, map[string]string{c.file: c.body})
			s, err := Scan(dir, nil)
			is.NoErr(err)
			is.Equal(s[c.file], c.want)
		})
	}
	// Skipping a test that ran at the start removes it.
	start := Set{"a_test.go": {"TestA", "TestB"}}
	now := Set{"a_test.go": {"TestA [skip]", "TestB"}}
	is.New(t).Equal(Compare(start, now).Tests, []string{"a_test.go: TestA"})
	// A test skipped at the start that runs now is not gone; nor one whose
	// build constraint was lifted.
	is.New(t).Equal(Compare(now, start).Any(), false)
	is.New(t).Equal(Compare(Set{"a_test.go": {"TestA [go:build never]"}}, Set{"b_test.go": {"TestA"}}).Tests, []string(nil))
}
