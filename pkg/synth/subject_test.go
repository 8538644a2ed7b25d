package synth

import (
	"slices"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
)

// s3Clear is an S3 storage driver's new clear(): it lists the keys under the
// driver's base prefix and deletes them. Two different defects sit on the
// same lines: an empty base lists (and so deletes) the whole bucket, and the
// listing reads one page only (ListObjectsV2 stops at 1,000 keys).
var s3Clear = modified("src/drivers/s3.ts", 118,
	"\t}",
	"+\tasync clear(base = '') {",
	"+\t\tconst listed = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: base }))",
	"+\t\tconst keys = (listed.Contents ?? []).map((object) => ({ Key: object.Key }))",
	"+\t\tawait this.#client.send(new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects: keys } }))",
	"+\t}",
)

// xnetForeign is golang.org/x/net's html/foreign.go change of the eval case
// go-xnet-html-tolower-quadratic (CVE-2024-45338 reversed): line 43 on.
var xnetForeign = modified("html/foreign.go", 42,
	"\t\t\t\tif a.Key == \"encoding\" {",
	"+\t\t\t\t\tval := strings.ToLower(a.Val)",
	"+\t\t\t\t\tif val == \"text/html\" || val == \"application/xhtml+xml\" {",
	"\t\t\t\t\t\treturn true",
)

// fixWith gives a finding the committable suggestion sg.
func fixWith(start, end int, replacement string) func(*finding.Finding) {
	return func(f *finding.Finding) {
		f.Suggestion = &finding.Suggestion{StartLine: start, EndLine: end, Replacement: replacement}
	}
}

// TestSameDefectOtherWordsMerges is "one defect, one finding": the
// p-queue typo as correctness and typescript reported it (on one line, in
// other words, one naming the key as misspelled, the other as a typo of the
// option) is one posted finding, most severe and surest, both reviewers
// listed; the S3 driver's two defects on the same lines stay two.
func TestSameDefectOtherWordsMerges(t *testing.T) {
	const typoLine = "const throwOnTimeout = options.throwOnTimout ?? this.#throwOnTimeout;"
	tests := []struct {
		name    string
		files   []*diff.File
		results []PersonaResult
		posted  []string
		// reviewers of the first posted finding.
		reviewers []string
		sev       finding.Severity
		conf      int
	}{
		{
			name:  "p-queue throwOnTimout: correctness and typescript on line 238",
			files: []*diff.File{pQueue},
			results: []PersonaResult{
				res("correctness", fnd("Per-task throwOnTimeout is read from a misspelled key", "source/index.ts", 238, finding.P1, 75,
					why("options.throwOnTimout is never set by callers (the option is throwOnTimeout), so a per-task throwOnTimeout is ignored and the queue-wide value always wins."),
					evidence(typoLine))),
				res("typescript", fnd("Typo `throwOnTimout` in add() options", "source/index.ts", 238, finding.P2, 100,
					why("The QueueAddOptions type declares throwOnTimeout; reading options.throwOnTimout always yields undefined, so the caller's setting is silently dropped. The compiler would reject it under a typed options parameter."),
					evidence("source/index.ts:238: "+typoLine))),
			},
			posted:    []string{"Per-task throwOnTimeout is read from a misspelled key"},
			reviewers: []string{"correctness", "typescript"},
			sev:       finding.P1,
			conf:      100, // the surer member's anchor, promoted 100 stays 100
		},
		{
			// The identifier's "timeout" is no claim about a timeout: it
			// must not keep "silently ignores" apart as another kind.
			name:  "p-queue throwOnTimout: a misspelled option silently ignored",
			files: []*diff.File{pQueue},
			results: []PersonaResult{
				res("correctness", fnd("Per-task throwOnTimeout is read from a misspelled key", "source/index.ts", 238, finding.P1, 100,
					why("options.throwOnTimout is never set by callers (the option is throwOnTimeout), so a per-task throwOnTimeout is ignored and the queue-wide value always wins."),
					evidence(typoLine))),
				res("typescript", fnd("Misspelled option throwOnTimout silently ignores the caller's setting", "source/index.ts", 238, finding.P2, 75,
					why("QueueAddOptions declares throwOnTimeout; options.throwOnTimout is always undefined, so the per-task value never applies."),
					evidence(typoLine))),
			},
			posted:    []string{"Per-task throwOnTimeout is read from a misspelled key"},
			reviewers: []string{"correctness", "typescript"},
			sev:       finding.P1,
			conf:      100,
		},
		{
			name:  "S3 clear(): the whole bucket and the truncated listing stay apart",
			files: []*diff.File{s3Clear},
			results: []PersonaResult{
				res("correctness", fnd("clear(base) deletes the whole bucket when base is empty", "src/drivers/s3.ts", 120, finding.P0, 100,
					why("With the default base '' the ListObjectsV2Command prefix is empty, so every key of the bucket is listed and deleted, not only the driver's own."),
					evidence("const listed = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: base }))"))),
				res("reliability", fnd("Listing ignores truncation: only the first 1000 keys are cleared", "src/drivers/s3.ts", 120, finding.P1, 75,
					why("ListObjectsV2Command returns at most 1000 keys and sets IsTruncated; clear() never follows NextContinuationToken, so larger prefixes are left half deleted."),
					evidence("const listed = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: base }))"))),
			},
			posted:    []string{"clear(base) deletes the whole bucket when base is empty", "Listing ignores truncation: only the first 1000 keys are cleared"},
			reviewers: []string{"correctness"},
			sev:       finding.P0,
			conf:      100,
		},
		{
			// The real model's answers (recorded 2026-11-28): go and
			// security on one line, one about cost per call, the other
			// about quadratic parsing; the same replacement of lines 43-44
			// is one fix, so one defect.
			name:  "x/net html ToLower: the same fix in other words merges",
			files: []*diff.File{xnetForeign},
			results: []PersonaResult{
				res("go", fnd("strings.ToLower replaces EqualFold in a per-token predicate: full scan and allocation each call", "html/foreign.go", 43, finding.P1, 75,
					why("htmlIntegrationPoint runs for every token; ToLower copies the whole attribute value each time where EqualFold stopped after the constant's length."),
					evidence("html/foreign.go:43: val := strings.ToLower(a.Val)"),
					fixWith(43, 44, "\t\t\t\t\tif strings.EqualFold(a.Val, \"text/html\") || strings.EqualFold(a.Val, \"application/xhtml+xml\") {"))),
				res("security", fnd("strings.ToLower on attacker-controlled attribute values makes parsing quadratic (DoS)", "html/foreign.go", 43, finding.P1, 75,
					why("A page with a long annotation-xml encoding attribute repeated across tokens makes the parser do work quadratic in its size: a denial of service on any server parsing untrusted HTML."),
					evidence("html/foreign.go:44: if val == \"text/html\" || val == \"application/xhtml+xml\" {"),
					fixWith(43, 44, "\t\t\t\t\tif strings.EqualFold(a.Val, \"text/html\")  ||  strings.EqualFold(a.Val, \"application/xhtml+xml\") {"))),
			},
			posted:    []string{"strings.ToLower replaces EqualFold in a per-token predicate: full scan and allocation each call"},
			reviewers: []string{"go", "security"},
			sev:       finding.P1,
			conf:      100, // two personas at 75 on one problem: promoted
		},
		{
			// Two defects on one line need two fixes: different
			// replacements never merge on the suggestion alone.
			name:  "S3 clear(): two suggestions for the same lines, two defects",
			files: []*diff.File{s3Clear},
			results: []PersonaResult{
				res("correctness", fnd("clear(base) deletes the whole bucket when base is empty", "src/drivers/s3.ts", 120, finding.P0, 100,
					why("With the default base '' the prefix is empty, so every key of the bucket is listed and deleted."),
					evidence("const listed = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: base }))"),
					fixWith(120, 120, "\t\tconst listed = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: this.#prefix(base) }))"))),
				res("reliability", fnd("Listing ignores truncation: only the first 1000 keys are cleared", "src/drivers/s3.ts", 120, finding.P1, 75,
					why("clear() never follows NextContinuationToken."),
					evidence("const listed = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: base }))"),
					fixWith(120, 120, "\t\tfor await (const listed of paginateListObjectsV2({ client: this.#client }, { Bucket: this.#bucket, Prefix: base })) {"))),
			},
			posted:    []string{"clear(base) deletes the whole bucket when base is empty", "Listing ignores truncation: only the first 1000 keys are cleared"},
			reviewers: []string{"correctness"},
			sev:       finding.P0,
			conf:      100,
		},
		{
			name:  "S3 clear(): both naming the listing command, different defects",
			files: []*diff.File{s3Clear},
			results: []PersonaResult{
				res("correctness", fnd("Empty base makes ListObjectsV2Command list the whole bucket for deletion", "src/drivers/s3.ts", 120, finding.P0, 100,
					why("clear() with no argument deletes every object in the bucket."),
					evidence("const listed = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: base }))"))),
				res("reliability", fnd("ListObjectsV2Command result is truncated at 1000 keys", "src/drivers/s3.ts", 120, finding.P1, 75,
					why("IsTruncated is never checked, so only the first page of keys is deleted."),
					evidence("const listed = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: base }))"))),
			},
			posted:    []string{"Empty base makes ListObjectsV2Command list the whole bucket for deletion", "ListObjectsV2Command result is truncated at 1000 keys"},
			reviewers: []string{"correctness"},
			sev:       finding.P0,
			conf:      100,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range tt.results {
				for i := range r.Answer.Findings {
					r.Answer.Findings[i].Reviewers = []string{r.Persona}
				}
			}
			out := Synthesize(Input{Files: tt.files, Results: tt.results, Mode: ModeComment})
			var titles []string
			for _, f := range out.Gated {
				titles = append(titles, f.Title)
			}
			if !slices.Equal(titles, tt.posted) {
				t.Fatalf("posted %q; want %q (drops %v)", titles, tt.posted, out.DroppedByReason)
			}
			f := out.Gated[0]
			if !slices.Equal(f.Reviewers, tt.reviewers) || f.Severity != tt.sev || f.Confidence != tt.conf {
				t.Errorf("first posted: reviewers %v, %s at %d; want %v, %s at %d", f.Reviewers, f.Severity, f.Confidence, tt.reviewers, tt.sev, tt.conf)
			}
			wantDup := len(tt.results) - len(tt.posted)
			if out.DroppedByReason[ReasonDuplicate] != wantDup {
				t.Errorf("duplicates dropped %d; want %d", out.DroppedByReason[ReasonDuplicate], wantDup)
			}
		})
	}
}

// TestCodeNames pins which words of a title name code: identifiers shaped
// as code (camelCase, snake_case, dotted, a call, or in backticks), never
// plain words.
func TestCodeNames(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Per-task throwOnTimeout is read from a misspelled key", []string{"throwontimeout"}},
		{"Typo `throwOnTimout` in add() options", []string{"add", "throwontimout"}},
		{"options.throwOnTimout is not a declared property", []string{"throwontimout"}},
		{"clear(base) deletes the whole bucket", []string{"clear"}},
		{"Listing ignores truncation", nil},
		{"max_retries read as a string", []string{"max_retries"}},
		{"SQL injection via the id parameter", nil},
		{"`id` unchecked", nil}, // too short to name anything on its own
	}
	for _, tt := range tests {
		if got := codeNames(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("codeNames(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestSameName(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"throwontimeout", "throwontimeout", true},
		{"throwontimeout", "throwontimout", true}, // the typo and the name it misspells
		{"retries", "retires", false},             // too short for a one-letter slip to be the same name
		{"readtimeout", "writetimeout", false},
		{"listobjectsv2command", "deleteobjectscommand", false},
	}
	for _, tt := range tests {
		if got := sameName(tt.a, tt.b); got != tt.want {
			t.Errorf("sameName(%q, %q) = %v; want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
