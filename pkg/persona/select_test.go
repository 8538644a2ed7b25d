package persona

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// file builds a one-hunk diff.File. Each line starts with '+', '-' or ' '.
func file(path string, lines ...string) *diff.File {
	f := &diff.File{OldPath: path, NewPath: path, Status: diff.Modified}
	h := diff.Hunk{OldStart: 1, NewStart: 1}
	oldNo, newNo := 1, 1
	for _, l := range lines {
		dl := diff.Line{Kind: diff.LineKind(l[0]), Text: l[1:]}
		switch dl.Kind {
		case diff.Add:
			dl.NewNo = newNo
			newNo++
			h.NewLines++
		case diff.Delete:
			dl.OldNo = oldNo
			oldNo++
			h.OldLines++
		default:
			dl.OldNo, dl.NewNo = oldNo, newNo
			oldNo++
			newNo++
			h.OldLines++
			h.NewLines++
		}
		h.Lines = append(h.Lines, dl)
	}
	f.Hunks = []diff.Hunk{h}
	return f
}

// executable counts changed lines of scope.Executable files, as scope does.
func executable(files []*diff.File) int {
	n := 0
	for _, f := range files {
		if !scope.Executable(f.Path()) {
			continue
		}
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Kind != diff.Context {
					n++
				}
			}
		}
	}
	return n
}

func sqlHandlerPR() Signals {
	files := []*diff.File{
		file("api/users.go",
			" package api",
			" ",
			"+func (s *Server) handleUser(w http.ResponseWriter, r *http.Request) {",
			"+	id := r.URL.Query().Get(\"id\")",
			"+	query := \"SELECT id, name FROM users WHERE id = \" + id",
			"+	row := s.db.QueryRow(query)",
			"+	var u user",
			"+	if err := row.Scan(&u.ID, &u.Name); err != nil {",
			"+		http.Error(w, \"not found\", http.StatusNotFound)",
			"+		return",
			"+	}",
			"+	writeJSON(w, u)",
			"+}",
		),
		file("api/users_test.go",
			"+func TestHandleUser(t *testing.T) {",
			"+	password := \"hunter2\"",
			"+	_ = password",
			"+}",
		),
	}
	return Signals{Files: files, ExecutableLines: executable(files)}
}

func migrationPR() Signals {
	files := []*diff.File{
		file("db/migrations/20240611_add_email.sql",
			"+ALTER TABLE users ADD COLUMN email text NOT NULL;",
			"+CREATE UNIQUE INDEX users_email ON users (email);",
		),
		file("internal/model/user.go",
			" type User struct {",
			" 	ID   int64  `json:\"id\"`",
			"+	Email string `json:\"email\"`",
			" }",
		),
		file("scripts/fill_emails.go",
			"+// Backfill emails for existing users in batches of 500.",
			"+func fill(ctx context.Context, db *sql.DB) error {",
			"+	_, err := db.ExecContext(ctx, \"UPDATE users SET email = legacy_email WHERE email IS NULL\")",
			"+	return err",
			"+}",
		),
	}
	return Signals{Files: files, ExecutableLines: executable(files), Standards: []string{"AGENTS.md", "db/AGENTS.md"}}
}

func apiChangePR() Signals {
	files := []*diff.File{
		file("pkg/client/client.go",
			" // Get fetches one item.",
			"-func (c *Client) Get(ctx context.Context, id string) (*Item, error) {",
			"+func (c *Client) Get(ctx context.Context, id string, opts ...Option) (*Item, error) {",
			" 	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+\"/v2/items/\"+id, nil)",
		),
		file("api/openapi.yaml",
			"   /v2/items/{id}:",
			"-    get:",
			"+    put:",
		),
		file("pkg/client/items.go",
			" func (c *Client) List(ctx context.Context) ([]Item, error) {",
			" 	var out []Item",
			" 	for _, id := range c.ids {",
			"-		it, err := c.Get(ctx, id)",
			"+		it, err := c.Get(ctx, id, WithRetry(3))",
			" 		if err != nil {",
		),
	}
	return Signals{Files: files, ExecutableLines: executable(files), HumanReviewComments: 1}
}

func docsOnlyPR() Signals {
	files := []*diff.File{
		file("README.md", "+Set the password with `SELECT * FROM users WHERE id = ` + id.", "+Retry with a timeout."),
		file("docs/auth/login.md", "+The session token is rotated on login."),
		file("CHANGELOG.md", "+- Fixed a crash."),
	}
	return Signals{Files: files, ExecutableLines: executable(files)}
}

func deployPR() Signals {
	files := []*diff.File{
		file(".github/workflows/release.yml", "+on: pull_request_target", "+      - uses: actions/checkout@v4"),
		file("Dockerfile", "-FROM golang:1.22 AS build", "+FROM golang:1.26 AS build"),
		file("internal/billing/refund.go", "+func refund(id string) error { return nil }"),
	}
	return Signals{Files: files, ExecutableLines: executable(files)}
}

// hugePR is 3,000 plain Go files of 34 changed lines each (102,000 lines,
// SPEC's large-PR size) with a couple of signals far from the start.
func hugePR() Signals {
	files := make([]*diff.File, 0, 3000)
	for i := range 3000 {
		lines := make([]string, 0, 34)
		for j := range 34 {
			lines = append(lines, fmt.Sprintf("+	v%d := compute(a%d, b%d) * %d", j, j, i, j))
		}
		switch i {
		case 1234:
			lines[20] = "+	hash := md5.Sum([]byte(input))"
		case 2999:
			lines[33] = "+	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)"
		}
		files = append(files, file(fmt.Sprintf("pkg/mod%04d/calc.go", i), lines...))
	}
	return Signals{Files: files, ExecutableLines: executable(files), Standards: []string{"AGENTS.md", "pkg/AGENTS.md", "pkg/mod0001/CLAUDE.md", "pkg/mod0002/CLAUDE.md"}, HumanReviewComments: 3}
}

func TestSelectGolden(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	scenarios := []struct {
		name string
		s    Signals
	}{
		{"sql-handler", sqlHandlerPR()},
		{"migration", migrationPR()},
		{"api-change", apiChangePR()},
		{"docs-only", docsOnlyPR()},
		{"deploy-and-billing", deployPR()},
		{"3000-files", hugePR()},
	}
	var b strings.Builder
	for _, sc := range scenarios {
		team, err := Select(all, sc.s, nil)
		if err != nil {
			t.Fatalf("%s: %v", sc.name, err)
		}
		fmt.Fprintf(&b, "== %s (%d files, %d executable lines)\n", sc.name, len(sc.s.Files), sc.s.ExecutableLines)
		for _, p := range team {
			fmt.Fprintln(&b, p)
		}
		b.WriteString("\n")
	}
	golden(t, "select.golden", b.String())
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestSelectRestrict(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	s := sqlHandlerPR()
	tests := []struct {
		name     string
		restrict []string
		want     []string
	}{
		{"none", nil, []string{"correctness", "security", "performance", "go"}},
		{"blank entries only", []string{"", " "}, []string{"correctness", "security", "performance", "go"}},
		{"limits", []string{" security", "correctness "}, []string{"correctness", "security"}},
		{"never adds an unfired persona", []string{"security", "data-migrations"}, []string{"security"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			team, err := Select(all, s, tt.restrict)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range team {
				got = append(got, p.Name)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("team = %v; want %v", got, tt.want)
			}
		})
	}

	_, err = Select(all, s, []string{"security", "sekurity"})
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("err = %v; want ErrUnknown", err)
	}
	for _, want := range append([]string{`"sekurity"`}, Names()...) {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q; want it to contain %s", err, want)
		}
	}
}

func TestSelectSmallSignals(t *testing.T) {
	all, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		s       Signals
		persona string
		want    string // "" = not selected
	}{
		{"one comment", Signals{HumanReviewComments: 1}, "previous-comments", "1 review comment from people on the pull request"},
		{"no comments", Signals{}, "previous-comments", ""},
		{"one standards file", Signals{Standards: []string{"CLAUDE.md"}}, "project-standards", "standards file CLAUDE.md applies to a changed file"},
		{"49 lines", Signals{ExecutableLines: 49}, "adversarial", ""},
		{"50 lines", Signals{ExecutableLines: 50}, "adversarial", "50 executable changed lines"},
		{"deleted auth check", Signals{Files: []*diff.File{file("web/h.go", "-	if !user.IsAdmin() {")}}, "security", "authentication or authorization check in web/h.go"},
		{"author is not auth", Signals{Files: []*diff.File{file("pkg/author/name.go", "+x := 1")}}, "security", "code that can run changed in pkg/author/name.go"},
		{"goroutine", Signals{Files: []*diff.File{file("srv/run.go", "+	go s.flush()")}}, "reliability", "background job or goroutine in srv/run.go"},
		{"I/O in loop beats plain loop", Signals{Files: []*diff.File{file("a.go", "+for _, id := range ids {", "+	x := f(id)", "+	resp, err := http.Get(base + id)")}}, "performance", "query or I/O inside a loop in a.go"},
		{"unexported Go func", Signals{Files: []*diff.File{file("a.go", "+func helper(x int) int {")}}, "api-contract", ""},
		{"exported type", Signals{Files: []*diff.File{file("a.go", "-type Options struct {")}}, "api-contract", "exported Go signature Options changed in a.go"},
		{"versioned route", Signals{Files: []*diff.File{file("r.ts", `+  const url = "/api/v3/users"`)}}, "api-contract", "API versioning in r.ts"},
		{"proto", Signals{Files: []*diff.File{file("proto/user.proto", "+  string email = 4;")}}, "api-contract", "protobuf schema in proto/user.proto"},
		{"two files counted", Signals{Files: []*diff.File{file("a.py", "+except Exception:"), file("b.py", "+    except:")}}, "reliability", "broad except in a.py (and 1 more file)"},
		{"stronger signal later wins", Signals{Files: []*diff.File{file("a.go", "+	_ = f.Close()"), file("b.go", "+	backoff := 2 * backoff")}}, "reliability", "retry logic in b.go (and 1 more file)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			team, err := Select(all, tt.s, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, p := range team {
				if p.Name == tt.persona {
					got = p.Reason
				}
			}
			if got != tt.want {
				t.Errorf("%s reason = %q; want %q", tt.persona, got, tt.want)
			}
		})
	}
}

func TestExportedGoDecl(t *testing.T) {
	tests := []struct{ line, want string }{
		{"func Parse(b []byte) (*Diff, error) {", "Parse"},
		{"func (c *Client) Do(ctx context.Context) error {", "Do"},
		{"func (c *client) do() {", ""},
		{"func Map[K comparable, V any](m map[K]V) {", "Map"},
		{"type Options struct {", "Options"},
		{"type Alias = string", "Alias"},
		{"type options struct{", ""},
		{"	func Nested() {}", ""},
		{"func (broken", ""},
		{"func ", ""},
	}
	for _, tt := range tests {
		if got := exportedGoDecl(tt.line); got != tt.want {
			t.Errorf("exportedGoDecl(%q) = %q; want %q", tt.line, got, tt.want)
		}
	}
}

func BenchmarkSelect3000Files(b *testing.B) {
	all, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	s := hugePR()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Select(all, s, nil); err != nil {
			b.Fatal(err)
		}
	}
}
