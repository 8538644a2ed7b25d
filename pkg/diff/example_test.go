package diff_test

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

func ExampleParse() {
	d, err := diff.Parse([]byte(`diff --git a/handler.go b/handler.go
index 1111111..2222222 100644
--- a/handler.go
+++ b/handler.go
@@ -10,3 +10,4 @@ func Search(w http.ResponseWriter, r *http.Request) {
 	q := r.URL.Query().Get("q")
-	rows, err := db.Query("SELECT * FROM users WHERE name = $1", q)
+	rows, err := db.Query("SELECT * FROM users WHERE name = '" + q + "'")
+	defer rows.Close()
 	if err != nil {
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	f := d.Files[0]
	fmt.Println(f.Path(), f.Status, "+", f.Added(), "-", f.Deleted())
	if l, ok := f.NewLine(11); ok {
		fmt.Printf("line 11 is %c: %s\n", l.Kind, l.Text)
	}
	_, ok := f.NewLine(40)
	fmt.Println("line 40 in diff:", ok)
	// Output:
	// handler.go modified + 2 - 1
	// line 11 is +: 	rows, err := db.Query("SELECT * FROM users WHERE name = '" + q + "'")
	// line 40 in diff: false
}
