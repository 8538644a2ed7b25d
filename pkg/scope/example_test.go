package scope_test

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

func ExampleApply() {
	d, err := diff.Parse([]byte(`diff --git a/api/handler.go b/api/handler.go
--- a/api/handler.go
+++ b/api/handler.go
@@ -1,2 +1,3 @@
 package api
-var limit = 10
+var limit = 100
+var debug = true
diff --git a/go.sum b/go.sum
--- a/go.sum
+++ b/go.sum
@@ -1 +1 @@
-example.com/x v1.0.0 h1:aaa=
+example.com/x v1.1.0 h1:bbb=
diff --git a/docs/usage.md b/docs/usage.md
--- a/docs/usage.md
+++ b/docs/usage.md
@@ -1 +1 @@
-Old text.
+New text.
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := scope.Apply(d, []string{"docs/**"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range s.Files {
		fmt.Println("review:", f.Path())
	}
	for _, e := range s.Excluded {
		fmt.Printf("skip: %s (%s)\n", e.Path, e.Reason)
	}
	fmt.Println("executable lines:", s.ExecutableLines)
	fmt.Println("standards:", scope.StandardsPaths(s.Files))
	// Output:
	// review: api/handler.go
	// skip: go.sum (lock file)
	// skip: docs/usage.md (excluded by pattern "docs/**")
	// executable lines: 3
	// standards: [AGENTS.md CLAUDE.md api/AGENTS.md api/CLAUDE.md]
}
