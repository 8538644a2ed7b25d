package prompt

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/scope"
)

// realisticCase is one of the realistic pull requests of issue 4. The diff
// is read from pkg/diff's testdata, so the parser's goldens and these
// prompt goldens describe the same text.
type realisticCase struct {
	name      string // base name of ../diff/testdata/<name>.diff
	title     string
	body      string
	standards []Standards
	comments  []string // earlier review comments from people
	// team is the persona names selection must pick, in order.
	team []string
	// finding is the one finding the validator golden checks; head is
	// the head version of its file ("" = derive it from the diff, which
	// must then show every line of the new file).
	finding finding.Finding
	head    string
}

// storeHead is pkg/store/store.go after the exported_api change: lines
// 1-7 and 21-42 are the diff's new side, the rest is the unchanged file.
const storeHead = `package store

import (
	"context"
	"database/sql"
	"errors"
)

// ErrNotFound is returned when no user has the id.
var ErrNotFound = errors.New("store: not found")

// Store reads users.
type Store struct {
	db *sql.DB
}

// New returns a Store over db.
func New(db *sql.DB) *Store {
	return &Store{db: db}
}

// User is a row of users.
type User struct {
	ID    int64  ` + "`json:\"id\"`" + `
	Name  string ` + "`json:\"name\"`" + `
	Email string ` + "`json:\"email,omitempty\"`" + `
}

// Get returns the user with the given id.
func (s *Store) Get(ctx context.Context, id int64) (*User, error) {
	var u User
	err := s.db.QueryRowContext(ctx, "SELECT id, name FROM users WHERE id = $1", id).Scan(&u.ID, &u.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// Count returns the number of users.
func (s *Store) Count() (int, error) {
	var n int
	err := s.db.QueryRow("SELECT count(*) FROM users").Scan(&n)
	return n, err
}
`

func realisticCases() []realisticCase {
	return []realisticCase{
		{
			name:  "sql_handler",
			title: "Add user search and lookup by email",
			body:  "Adds GET /users/search?q=&sort= and Store.FindByEmail for the login flow.\n\nNo tests yet, will follow up.",
			standards: []Standards{{
				Path:    "AGENTS.md",
				Content: "# Rules\n\n- SQL uses placeholders ($1, ?), never string concatenation.\n- Handlers never return raw errors to clients.\n",
			}},
			team: []string{"correctness", "testing", "project-standards", "security", "performance", "api-contract", "go"},
			finding: finding.Finding{
				Title: "SQL injection through the q and sort query parameters", Severity: finding.P0,
				File: "internal/api/users.go", Line: 17,
				WhyItMatters: "Any caller can read or change every table the service's database user can reach.",
				AutofixClass: "manual", Owner: "review-fixer", RequiresVerification: true, Confidence: 100,
				Evidence:     []string{`internal/api/users.go:17: h.DB.Query("SELECT id, name FROM users WHERE name LIKE '%" + q + "%' ORDER BY " + r.URL.Query().Get("sort"))`},
				SuggestedFix: "Pass q as a placeholder argument and map sort to a fixed list of column names.",
				Reviewers:    []string{"adversarial", "security"}, Number: 1, Promoted: true,
			},
		},
		{
			name:  "migration",
			title: "Add an email column to users",
			body:  "Backfills email from the name for existing rows and drops the unused legacy_sessions table.",
			standards: []Standards{{
				Path:    "db/AGENTS.md",
				Content: "Migrations must be reversible. Never drop a table in the release that stops using it.\n",
			}},
			team: []string{"correctness", "project-standards", "security", "data-migrations", "adversarial"},
			finding: finding.Finding{
				Title: "DROP TABLE legacy_sessions cannot be undone by the Down migration", Severity: finding.P1,
				File: "db/migrations/0007_add_email_to_users.sql", Line: 6,
				WhyItMatters: "Rolling back loses every legacy session row; the Down section does not recreate the table.",
				AutofixClass: "manual", Owner: "human", RequiresVerification: true, Confidence: 75,
				Evidence:  []string{"db/migrations/0007_add_email_to_users.sql:6: DROP TABLE legacy_sessions;"},
				Reviewers: []string{"data-migrations"}, Number: 2,
			},
		},
		{
			name:     "exported_api",
			title:    "store: take a context in Get and return *User",
			body:     "Get now honours cancellation. Callers need to pass ctx.",
			comments: []string{"bob: cmd/admin calls store.Get in three places; please update them in this PR."},
			team:     []string{"correctness", "security", "performance", "api-contract", "previous-comments", "go"},
			finding: finding.Finding{
				Title: "Exported Store.Get changes signature without a deprecation path", Severity: finding.P1,
				File: "pkg/store/store.go", Line: 30,
				WhyItMatters: "Every importer of pkg/store stops compiling: Get takes a new ctx argument and returns *User.",
				AutofixClass: "gated_auto", Owner: "downstream-resolver", RequiresVerification: true, Confidence: 100,
				Evidence:  []string{"pkg/store/store.go:30: func (s *Store) Get(ctx context.Context, id int64) (*User, error) {"},
				Reviewers: []string{"api-contract"}, Number: 1,
			},
			head: storeHead,
		},
		{
			name:  "docs_only",
			title: "docs: install instructions",
			body:  "",
			team:  []string{"correctness"},
			finding: finding.Finding{
				Title: "Install command pins v1.2.0 while the README points at the latest release", Severity: finding.P3,
				File: "docs/install.md", Line: 5,
				WhyItMatters: "Readers following the guide install an old version.",
				AutofixClass: "safe_auto", Owner: "review-fixer", Confidence: 50,
				Evidence:  []string{"docs/install.md:5:     go install github.com/example/tool@v1.2.0"},
				Reviewers: []string{"maintainability"}, Number: 1,
			},
		},
	}
}

// realisticContext parses the case's diff, scopes it as the pipeline does
// and returns the prompt context and the selection signals.
func realisticContext(t *testing.T, rc realisticCase) (Context, persona.Signals) {
	t.Helper()
	in, err := os.ReadFile(filepath.Join("..", "diff", "testdata", rc.name+".diff"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := diff.Parse(in)
	if err != nil {
		t.Fatalf("diff.Parse(%s): %v", rc.name, err)
	}
	sc, err := scope.Apply(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Files) != len(d.Files) {
		t.Fatalf("%s: scope kept %d of %d files; want all (the realistic diffs have nothing to exclude)", rc.name, len(sc.Files), len(d.Files))
	}
	c := Context{
		Repo: "acme/shop", PR: 7, Title: rc.title, Body: rc.body,
		Standards: rc.standards, PreviousComments: rc.comments,
		Files: sc.Files, Fence: testFence,
	}
	// Head context: the case's head for the finding's file, the new side
	// of every file the diff shows whole; the diff's paths stand in for the
	// head tree.
	c.Heads = map[string]Head{}
	var paths []string
	for _, f := range sc.Files {
		paths = append(paths, f.Path())
		if f.Path() == rc.finding.File && rc.head != "" {
			c.Heads[f.Path()] = Head{Content: rc.head, Found: true}
		} else if whole, ok := wholeNewSide(f); ok {
			c.Heads[f.Path()] = Head{Content: whole, Found: true}
		}
	}
	c.Tests = TestFiles(paths, paths)
	var std []string
	for _, s := range rc.standards {
		std = append(std, s.Path)
	}
	return c, persona.Signals{Files: sc.Files, ExecutableLines: sc.ExecutableLines, Standards: std, HumanReviewComments: len(rc.comments)}
}

// digest is a short description of a message for golden files.
func digest(m llm.Message) string {
	sum := sha256.Sum256([]byte(m.Content))
	return fmt.Sprintf("%s sha256=%s bytes=%d", m.Role, hex.EncodeToString(sum[:]), len(m.Content))
}

// compact renders a request for golden files: the first message (a fixed
// prompt goldened in full elsewhere) as a digest, the rest in full.
func compact(r llm.Request, full int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "persona=%s schema=%s model=%s fence=%s key=%s label=%s\n", r.Persona, r.Schema, r.Model, r.Fence, r.Key, r.Label)
	for i, m := range r.Messages {
		if i < full {
			fmt.Fprintf(&b, "message %d: %s\n", i+1, digest(m))
			continue
		}
		fmt.Fprintf(&b, "\n===== message %d: %s =====\n%s", i+1, m.Role, m.Content)
		if !strings.HasSuffix(m.Content, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func realisticGolden(t *testing.T, name, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Join("testdata", "realistic"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, filepath.Join("realistic", name+".golden"), got)
}

// wholeNewSide is newSide for files whose diff shows all of the new
// version; ok is false otherwise.
func wholeNewSide(f *diff.File) (string, bool) {
	var b strings.Builder
	for n := 1; n <= f.LastNewLine(); n++ {
		l, ok := f.NewLine(n)
		if !ok {
			return "", false
		}
		b.WriteString(l.Text + "\n")
	}
	return b.String(), f.LastNewLine() > 0
}

// newSide returns the new version of f when the diff shows all of it.
func newSide(t *testing.T, f *diff.File) string {
	t.Helper()
	var b strings.Builder
	for n := 1; n <= f.LastNewLine(); n++ {
		l, ok := f.NewLine(n)
		if !ok {
			t.Fatalf("%s: the diff does not show new line %d; give the case a head", f.Path(), n)
		}
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

// TestRealisticPersonaGolden renders, for each realistic diff, the shared
// prefix once and the request of every persona that selection picks, and
// checks that the prefix is byte-identical across the team.
func TestRealisticPersonaGolden(t *testing.T) {
	all := loadPersonas(t)
	systems := map[string]bool{}
	turns := map[string]string{} // persona -> its last message, across diffs
	for _, rc := range realisticCases() {
		c, sig := realisticContext(t, rc)
		team, err := persona.Select(all, sig, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range team {
			names = append(names, p.Name)
		}
		if got, want := strings.Join(names, ","), strings.Join(rc.team, ","); got != want {
			t.Errorf("%s: team = %s; want %s", rc.name, got, want)
		}

		var shared strings.Builder
		fmt.Fprintf(&shared, "diff: %s (%d files, %d executable changed lines)\n\nteam:\n", rc.name, len(c.Files), sig.ExecutableLines)
		for _, p := range team {
			fmt.Fprintf(&shared, "  %s\n", p)
		}
		var first llm.Request
		for i, p := range team {
			model := "model-" + p.Tier
			r := ForPersona(c, p.Persona, model)
			if len(r.Messages) != 3 {
				t.Fatalf("%s/%s: %d messages; want 3", rc.name, p.Name, len(r.Messages))
			}
			if i == 0 {
				first = r
				fmt.Fprintf(&shared, "\nkey=%s fence=%s\nmessage 1: %s\n\n===== message 2: %s =====\n%s",
					r.Key, r.Fence, digest(r.Messages[0]), r.Messages[1].Role, r.Messages[1].Content)
				realisticGolden(t, rc.name+"-shared", shared.String())
				systems[r.Messages[0].Content] = true
			}
			for j := range 2 {
				if r.Messages[j] != first.Messages[j] {
					t.Errorf("%s/%s: message %d differs from %s's; want byte-identical", rc.name, p.Name, j+1, first.Persona)
				}
			}
			if r.Key != first.Key || r.Key != llm.Key(FindingsSchema, c.Title, c.Body, diff.Render(c.Files)) {
				t.Errorf("%s/%s: key %s; want the run's key %s", rc.name, p.Name, r.Key, first.Key)
			}
			if r.Persona != p.Name || r.Model != model || r.Fence != testFence || r.Schema != FindingsSchema {
				t.Errorf("%s/%s: header %q %q %q %q; want %s %s %s %s", rc.name, p.Name, r.Persona, r.Model, r.Fence, r.Schema, p.Name, model, testFence, FindingsSchema)
			}
			// The persona's turn carries no pull-request data: it is the
			// same on every diff.
			last := r.Messages[2].Content
			if prev, ok := turns[p.Name]; ok && prev != last {
				t.Errorf("%s/%s: last message differs from the same persona's on another diff; want data only in message 2", rc.name, p.Name)
			}
			turns[p.Name] = last
			for _, f := range c.Files {
				if strings.Contains(last, f.Path()) {
					t.Errorf("%s/%s: last message names the changed file %s; want data only in message 2", rc.name, p.Name, f.Path())
				}
			}
			realisticGolden(t, rc.name+"-"+p.Name, compact(r, 2))
		}
		// Every changed path and the title reach the shared data message.
		for _, f := range c.Files {
			if !strings.Contains(first.Messages[1].Content, f.Path()) {
				t.Errorf("%s: message 2 lacks the changed file %s", rc.name, f.Path())
			}
		}
	}
	if len(systems) != 1 {
		t.Errorf("got %d different system messages across the realistic diffs; want 1", len(systems))
	}
}

// TestRealisticValidatorGolden renders the validator request of one
// finding per realistic diff.
func TestRealisticValidatorGolden(t *testing.T) {
	for _, rc := range realisticCases() {
		c, _ := realisticContext(t, rc)
		f := rc.finding
		var file *diff.File
		for _, df := range c.Files {
			if df.Path() == f.File {
				file = df
			}
		}
		if file == nil {
			t.Fatalf("%s: the finding's file %s is not in the diff", rc.name, f.File)
		}
		head := rc.head
		if head == "" {
			head = newSide(t, file)
		}
		// The head must agree with every new-side line the diff shows, and
		// the finding's line must be a changed line of it.
		lines := strings.Split(strings.TrimSuffix(head, "\n"), "\n")
		for n := 1; n <= file.LastNewLine(); n++ {
			if l, ok := file.NewLine(n); ok && (n > len(lines) || lines[n-1] != l.Text) {
				t.Fatalf("%s: head line %d does not match the diff's %q", rc.name, n, l.Text)
			}
		}
		if l, ok := file.NewLine(f.Line); !ok || l.Kind != diff.Add {
			t.Fatalf("%s: %s:%d is not an added line of the diff", rc.name, f.File, f.Line)
		}

		r := ForValidator(f, c, head, "model-validator")
		realisticGolden(t, rc.name+"-validator", compact(r, 1))

		if got, want := r.Label, fmt.Sprintf("%s:%d", f.File, f.Line); got != want {
			t.Errorf("%s: Label = %q; want %q", rc.name, got, want)
		}
		if got, want := r.Key, llm.Key(ValidationSchema, findingJSON(f), diff.Render(c.Files), head); got != want {
			t.Errorf("%s: Key = %s; want %s", rc.name, got, want)
		}
		if len(r.Messages) != 5 {
			t.Fatalf("%s: %d messages; want system, PR and diff, head file, finding, instructions", rc.name, len(r.Messages))
		}
		// The validator's first two messages are the same for every
		// finding. Its system message holds the severity scale and the
		// catalog it judges by, not what only a reviewer needs: the
		// confidence anchors and the findings answer format.
		other := ForValidator(finding.Finding{Title: "Another finding", File: f.File, Line: 1}, c, head, "model-validator")
		if r.Messages[0] != other.Messages[0] || r.Messages[1] != other.Messages[1] {
			t.Errorf("%s: validator's first two messages differ between findings; want a shared prefix", rc.name)
		}
		sys := r.Messages[0].Content
		for _, want := range []string{"# Independent validator", "## Severity", "**P0**", "# Not findings: the false-positive catalog", "# Untrusted data"} {
			if !strings.Contains(sys, want) {
				t.Errorf("%s: validator system message lacks %q", rc.name, want)
			}
		}
		for _, gone := range []string{"# How to answer", "### Anchor 75", "`residual_risks`"} {
			if strings.Contains(sys, gone) {
				t.Errorf("%s: validator system message holds the reviewers' %q", rc.name, gone)
			}
		}
		last := r.Messages[3].Content // the data message that comes last
		for _, m := range r.Messages[1:] {
			for _, gone := range f.Reviewers {
				if strings.Contains(m.Content, `"`+gone+`"`) {
					t.Errorf("%s: validator data names reporter %q; want the claim alone", rc.name, gone)
				}
			}
			if strings.Contains(m.Content, `"confidence"`) {
				t.Errorf("%s: validator data carries the persona's confidence; want it left out", rc.name)
			}
		}
		if !strings.Contains(last, f.Title) || strings.Contains(r.Messages[1].Content+r.Messages[2].Content+r.Messages[4].Content, f.Title) {
			t.Errorf("%s: the finding must be in the last data message only (shared part first, no data in the final instructions)", rc.name)
		}
		if want := fmt.Sprintf("%*d  %s\n", len(fmt.Sprint(len(lines))), f.Line, lines[f.Line-1]); !strings.Contains(r.Messages[2].Content, want) {
			t.Errorf("%s: validator head message lacks the numbered head line %q", rc.name, want)
		}
		if !strings.Contains(r.Messages[1].Content, rc.title) {
			t.Errorf("%s: validator lacks the PR title", rc.name)
		}
		for _, s := range rc.standards {
			if !strings.Contains(r.Messages[1].Content, s.Path) {
				t.Errorf("%s: validator lacks the standards file %s", rc.name, s.Path)
			}
		}
		if !strings.Contains(last, "# The base version of the cited region") {
			t.Errorf("%s: validator lacks the base region", rc.name)
		}
	}
}
