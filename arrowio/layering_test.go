package arrowio

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayering keeps arrowio below the numerics and the methods: it may use
// ordinate's internal helpers, never kernels or transforms, so that reading
// and writing tables does not pull in (or cycle through) the methods.
func TestLayering(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(path, "github.com/ordinate/ordinate/"); ok && !strings.HasPrefix(rest, "internal/") {
				t.Errorf("%s imports %s: arrowio may only use ordinate's internal packages", name, path)
			}
		}
	}
}
