package diff

import "testing"

func TestRenderNumbered(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "modified file, numbers from the + side, deletions blank",
			in: "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n" +
				"@@ -8,4 +8,4 @@ func f() {\n \ta := 1\n-\tb := 2\n+\tb := 3\n \treturn\n }\n" +
				"@@ -98,2 +98,3 @@\n x\n+y\n z\n",
			want: "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n" +
				"@@ -8,4 +8,4 @@ func f() {\n  8  \ta := 1\n    -\tb := 2\n  9 +\tb := 3\n 10  \treturn\n 11  }\n" +
				"@@ -98,2 +98,3 @@\n 98  x\n 99 +y\n100  z\n",
		},
		{
			name: "added file without newline at end",
			in:   "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n",
			want: "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n1 +one\n2 +two\n  \\ No newline at end of file\n",
		},
		{
			name: "deleted file: every line blank",
			in:   "diff --git a/d.txt b/d.txt\ndeleted file mode 100644\n--- a/d.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n",
			want: "diff --git a/d.txt b/d.txt\ndeleted file mode 100644\n--- a/d.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n  -one\n  -two\n",
		},
		{
			name: "binary file: header only",
			in:   "diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n",
			want: "diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := RenderNumbered(d.Files); got != tt.want {
				t.Errorf("RenderNumbered =\n%s\nwant\n%s", got, tt.want)
			}
			if got := Render(d.Files); got != tt.in {
				t.Errorf("Render changed:\n%s", got)
			}
		})
	}
}
