// Package lockfixtures reads the real lock files of pkg/lockcheck's
// testdata (its README.md says which tool wrote each, from what) for the
// tests and benchmarks of other packages.
package lockfixtures

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Read returns the fixture called name, gunzipped when it ends in .gz.
func Read(tb testing.TB, name string) string {
	tb.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("lockfixtures: cannot locate the module")
	}
	f, err := os.Open(filepath.Join(filepath.Dir(self), "..", "..", "pkg", "lockcheck", "testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			tb.Fatal(err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
