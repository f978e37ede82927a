package helper

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsStayFew: the helper and serve import only packages that Go
// initialises before os is done (or that have no init), so that serve's
// init runs right after os's and a confined process pays for nothing
// else of architect. Importing another package here (fmt, encoding/json,
// go-landlock, x/sys/unix) would have it wait for that package and all
// that comes before it in import order, as bench's sandbox scenario
// would show. A leaf package of architect's own that imports only these
// may join the list.
func TestImportsStayFew(t *testing.T) {
	allowed := map[string]bool{"errors": true, "os": true, "runtime": true, "strconv": true, "syscall": true,
		"unicode/utf8": true, "unsafe": true, "github.com/architect-dev/architect/sandbox/helper": true,
		"github.com/architect-dev/architect/sandbox/mountns": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("serve/*.go")
	for _, name := range append(files, more...) {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !allowed[path] {
				t.Errorf("%s imports %s, which would make every confined process wait for its initialisation (and for all before it)", name, path)
			}
		}
	}
}
