package synth

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGolden runs a realistic review's answers through Synthesize and
// compares the whole Output, as JSON, with testdata/<name>.golden.json.
func TestGolden(t *testing.T) {
	files := []*diff.File{
		modified("internal/auth/session.go", 40,
			"func (s *Store) Load(id string) (*Session, error) {",
			"-\trow := s.db.QueryRow(\"SELECT data FROM sessions WHERE id = ?\", id)",
			"+\trow := s.db.QueryRow(\"SELECT data FROM sessions WHERE id = '\" + id + \"'\")",
			"+\tvar data []byte",
			"+\t_ = row.Scan(&data) //nolint:errcheck",
			"\treturn decode(data)",
			"}",
		),
		added("internal/auth/session_test.go",
			"package auth",
			"",
			"func TestLoad(t *testing.T) {",
			"\tt.Skip(\"todo\")",
			"}",
		),
		added("web/login.ts",
			"export async function login(u: string, p: string) {",
			"  // @ts-ignore",
			"  const r = await fetch(\"/login?u=\" + u + \"&p=\" + p);",
			"  return r.ok;",
			"}",
		),
	}
	with := func(fix, owner string, verify bool) func(*finding.Finding) {
		return func(f *finding.Finding) { f.AutofixClass, f.Owner, f.RequiresVerification = fix, owner, verify }
	}
	in := Input{Files: files, Mode: ModeComment, Results: []PersonaResult{
		res("security",
			fnd("SQL injection via session id", "internal/auth/session.go", 41, finding.P0, 100,
				evidence(`session.go:41 "... WHERE id = '" + id + "'"`), with("safe_auto", "review-fixer", false)),
			fnd("Password sent in the query string", "web/login.ts", 3, finding.P1, 75),
			fnd("Timing-unsafe comparison", "internal/auth/session.go", 12, finding.P2, 50),
			fnd("Session fixation", "internal/auth/old.go", 5, finding.P0, 75),
		),
		res("correctness",
			fnd("SQL injection via session ID!", "./internal/auth/session.go", 42, finding.P1, 75,
				evidence("session.go:42 db.QueryRow", `session.go:41 "... WHERE id = '" + id + "'"`), with("gated_auto", "human", true)),
			fnd("errcheck: Scan error ignored", "internal/auth/session.go", 43, finding.P2, 75),
			fnd("decode of nil data", "internal/auth/session.go", 44, finding.P0, 50),
			fnd("Session rows never expire", "internal/auth/session.go", 40, finding.P2, 75, preExisting),
		),
		res("reliability",
			fnd("Timing unsafe comparison", "internal/auth/session.go", 14, finding.P2, 50),
		),
		res("testing",
			fnd("Load has no test for a missing row", "internal/auth/session_test.go", 4, finding.P2, 75, advisory),
			fnd("TestLoad is skipped", "internal/auth/session_test.go", 4, finding.P1, 75),
			fnd("No test for login failure", "web/login.ts", 4, finding.P2, 75, advisory),
		),
		res("maintainability",
			fnd("Load has no test for a missing row.", "internal/auth/session_test.go", 5, finding.P3, 75),
			fnd("URL built by concatenation", "web/login.ts", 9, finding.P3, 75),
			fnd("Vague name r", "web/login.ts", 3, finding.P3, 72),
			fnd("Long function", "internal/auth/session.go", 40, finding.P3, 50),
		),
	}}
	for _, mode := range []string{ModeComment, ModeReportOnly} {
		t.Run(mode, func(t *testing.T) {
			in.Mode = mode
			got, err := json.MarshalIndent(Synthesize(in), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "review."+mode+".golden.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got output differing from %s (go test -update rewrites it):\n%s", path, got)
			}
		})
	}
}
