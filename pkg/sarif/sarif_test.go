package sarif

import (
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"

	"github.com/anchor-review/anchor-review/pkg/finding"
)

// schemaPath is the vendored SARIF 2.1.0 JSON schema (fixtures/sarif/README.md).
const schemaPath = "../../fixtures/sarif/sarif-schema-2.1.0.json"

func findings() []finding.Finding {
	return []finding.Finding{
		{Number: 1, Title: "SQL built from user input", Severity: finding.P0, File: "api/search.go", Line: 42, Confidence: 100,
			WhyItMatters: "Any user can read every table.", SuggestedFix: "Use a placeholder.", AutofixClass: "manual", Owner: "review-fixer",
			Reviewers: []string{"correctness", "security"}, Evidence: []string{"q := \"...\" + term"}},
		{Number: 2, Title: "Retry loop never sleeps", Severity: finding.P2, File: "dir with space/ünï.go", Line: 7, Confidence: 75,
			WhyItMatters: "Hammers the API \u202eevil\x1b[0m with key sk-proj-abcdefghijklmnopqrstuvwxyz012345.", AutofixClass: "gated_auto", Owner: "human",
			Reviewers: []string{"reliability"}},
		{Number: 3, Title: "Typo in log", Severity: finding.P3, File: "main.go", Line: 1, Confidence: 75, Reviewers: []string{"security"}},
	}
}

func validate(t *testing.T, b []byte) {
	t.Helper()
	schema, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(b))
	if err != nil {
		t.Fatalf("validate: %v", err)
	}
	for _, e := range res.Errors() {
		t.Errorf("SARIF schema: %s", e)
	}
}

func TestMarshalValidatesAgainstSchema(t *testing.T) {
	for name, tc := range map[string]struct {
		fs []finding.Finding
		o  Options
	}{
		"findings, complete":    {findings(), Options{Complete: true, Fingerprints: map[int]string{1: "0123456789abcdef", 2: "fedcba9876543210"}}},
		"no findings":           {nil, Options{Complete: true}},
		"incomplete, with note": {findings()[:1], Options{Note: "2 personas failed"}},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := Marshal(tc.fs, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			validate(t, b)
		})
	}
}

// TestSchemaCatchesBadLogs proves the validation is not vacuous.
// TestRulesFollowTheProblem: the same problem keeps its rule across runs
// (code scanning tracks the alert), and two problems of one persona get two.
func TestRulesFollowTheProblem(t *testing.T) {
	fs := findings()
	fs[2].Reviewers = []string{"reliability"} // two findings of one persona
	a := Build(fs, Options{Complete: true})
	b := Build(fs, Options{Complete: true})
	ra, rb := a.Runs[0].Tool.Driver.Rules, b.Runs[0].Tool.Driver.Rules
	if len(ra) != 3 || ra[1].ID == ra[2].ID {
		t.Errorf("rules %+v; want a rule per finding", ra)
	}
	for i := range ra {
		if ra[i].ID != rb[i].ID {
			t.Errorf("rule %d is %s, then %s; want the same for the same problem", i, ra[i].ID, rb[i].ID)
		}
	}
}

func TestSchemaCatchesBadLogs(t *testing.T) {
	schema, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"level":"fatal"}]}]}`,
		`{"version":"2.0.0","runs":[]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"region":{"startLine":0}}}]}]}]}`,
	} {
		res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewStringLoader(bad))
		if err != nil || res.Valid() {
			t.Errorf("schema accepted %s (err %v)", bad, err)
		}
	}
}

func TestBuild(t *testing.T) {
	l := Build(findings(), Options{Complete: true, Fingerprints: map[int]string{1: "0123456789abcdef"}, Secrets: []string{"Any user"}})
	if l.Version != "2.1.0" || len(l.Runs) != 1 {
		t.Fatalf("log %+v", l)
	}
	run := l.Runs[0]
	// One rule per finding, described by it: code scanning titles each
	// alert with its rule's short description.
	if len(run.Tool.Driver.Rules) != 3 {
		t.Fatalf("%d rules; want one per finding", len(run.Tool.Driver.Rules))
	}
	for i, f := range findings() {
		r := run.Tool.Driver.Rules[i]
		if r.ShortDescription.Text != f.Title || r.DefaultConfig.Level != Level(f.Severity) {
			t.Errorf("rule %d: %q at %s; want the finding's title %q at %s", i, r.ShortDescription.Text, r.DefaultConfig.Level, f.Title, Level(f.Severity))
		}
	}
	if r := run.Tool.Driver.Rules[0]; r.FullDescription == nil || !strings.Contains(r.FullDescription.Text, "can read every table") ||
		r.Help == nil || !strings.Contains(r.Help.Text, "Suggested fix: Use a placeholder.") {
		t.Errorf("rule 0 lacks the finding's why and fix: %+v", r)
	}
	tests := []struct {
		rule, level, uri string
		line, index      int
		fp               string
	}{
		{"anchor-review/correctness/0123456789abcdef", "error", "api/search.go", 42, 0, "0123456789abcdef"},
		{RuleID("reliability", ruleKey("", "reliability", "Retry loop never sleeps")), "warning", "dir%20with%20space/%C3%BCn%C3%AF.go", 7, 1, ""},
		{RuleID("security", ruleKey("", "security", "Typo in log")), "note", "main.go", 1, 2, ""},
	}
	for i, want := range tests {
		r := run.Results[i]
		loc := r.Locations[0].PhysicalLocation
		if r.RuleID != want.rule || r.Level != want.level || r.RuleIndex != want.index || loc.ArtifactLocation.URI != want.uri ||
			loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || loc.Region.StartLine != want.line || r.PartialFingerprints[FingerprintKey] != want.fp {
			t.Errorf("result %d: %+v; want %+v", i, r, want)
		}
	}
	msg := run.Results[0].Message.Text + run.Results[1].Message.Text
	for _, bad := range []string{"Any user", "sk-proj-", "\u202e", "\x1b"} {
		if strings.Contains(msg, bad) {
			t.Errorf("message carries %q: %s", bad, msg)
		}
	}
	if !run.Invocations[0].ExecutionSuccessful {
		t.Error("a complete review's invocation must succeed")
	}
	if inc := Build(nil, Options{}); inc.Runs[0].Invocations[0].ExecutionSuccessful || len(inc.Runs[0].Invocations[0].ToolExecutionNotifications) != 1 {
		t.Errorf("an incomplete review must not read as a successful run: %+v", inc.Runs[0].Invocations)
	}
	b, _ := json.Marshal(Build(nil, Options{Complete: true}))
	if !strings.Contains(string(b), `"results":[]`) || !strings.Contains(string(b), `"rules":[]`) {
		t.Errorf("empty log %s: results and rules must be empty arrays", b)
	}
}

func TestLevel(t *testing.T) {
	for s, want := range map[finding.Severity]string{finding.P0: "error", finding.P1: "error", finding.P2: "warning", finding.P3: "note", "P9": "note"} {
		if got := Level(s); got != want {
			t.Errorf("Level(%s) = %s; want %s", s, got, want)
		}
	}
}

// TestURIsNeverHaveAScheme: a file's URI is a relative reference whatever
// its name (issue 30): "javascript:alert(1)/x.js" must not become a URI
// with a javascript scheme, nor "//host/x" one with an authority.
func TestURIsNeverHaveAScheme(t *testing.T) {
	for _, name := range []string{"javascript:alert(1)/x.js", "data:text/html,x.js", "c:/x.go", "//evil.example/x.go", "/abs/x.go", "a/b:c/d.go", "http://x/y.go", "%2e%2e/x.go"} {
		log := Build([]finding.Finding{{Number: 1, Title: "t", Severity: finding.P1, File: name, Line: 1, Confidence: 75, Reviewers: []string{"security"}}}, Options{})
		uri := log.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI
		u, err := url.Parse(uri)
		if err != nil {
			t.Errorf("%q: URI %q does not parse: %v", name, uri, err)
			continue
		}
		if u.Scheme != "" || u.Host != "" || u.IsAbs() || strings.HasPrefix(uri, "/") {
			t.Errorf("%q: URI %q parses with scheme %q, host %q; want a relative reference", name, uri, u.Scheme, u.Host)
		}
		if back, err := url.PathUnescape(uri); err != nil || back != strings.TrimLeft(name, "/") {
			t.Errorf("%q: URI %q unescapes to %q; want the path", name, uri, back)
		}
	}
}
