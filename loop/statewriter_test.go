package loop

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The run's state has one writer: loop/run.go. Every assignment to a
// field of the runner's state (r.st.X = …, r.st.X.Y++, r.st = …) in the
// package's other files is a finding, so that a new step keeps to reading
// it and returning what the loop then writes.
func TestOneFileWritesTheRunState(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	writes := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			var lhs []ast.Expr
			switch s := n.(type) {
			case *ast.AssignStmt:
				lhs = s.Lhs
			case *ast.IncDecStmt:
				lhs = []ast.Expr{s.X}
			}
			for _, e := range lhs {
				if !rootedAtState(e) {
					continue
				}
				if f == "run.go" {
					writes++
					continue
				}
				t.Errorf("%s: a write to the run's state outside run.go", fset.Position(e.Pos()))
			}
			return true
		})
	}
	if writes == 0 {
		t.Fatal("no write to the run's state found in run.go: the test no longer sees them")
	}
}

// rootedAtState reports whether e is r.st or a field, index or
// dereference of it.
func rootedAtState(e ast.Expr) bool {
	for {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && id.Name == "r" && x.Sel.Name == "st" {
				return true
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return false
		}
	}
}
