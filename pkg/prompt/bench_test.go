package prompt

import (
	"fmt"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/diff"
)

// diff500 builds a 500-changed-line diff over 10 Go files.
func diff500() []*diff.File {
	var files []*diff.File
	for i := range 10 {
		f := &diff.File{OldPath: fmt.Sprintf("pkg/m%d/m.go", i), NewPath: fmt.Sprintf("pkg/m%d/m.go", i), Status: diff.Modified}
		for k := range 5 {
			h := diff.Hunk{OldStart: 1 + 40*k, NewStart: 1 + 40*k, NewLines: 10}
			for j := range 10 {
				h.Lines = append(h.Lines, diff.Line{Kind: diff.Add, NewNo: h.NewStart + j, Text: fmt.Sprintf("\tv%d := compute(ctx, items[%d], opts) // step %d of the pipeline", j, j, k)})
			}
			f.Hunks = append(f.Hunks, h)
		}
		files = append(files, f)
	}
	return files
}

// BenchmarkForPersonaAll11 builds all 11 persona prompts for a 500-line
// diff and reports which share of the prompt bytes is the prefix shared
// by every persona (messages 1 and 2), the part a provider can cache.
func BenchmarkForPersonaAll11(b *testing.B) {
	c := testContext(b)
	c.Files = diff500()
	n := 0
	for _, f := range c.Files {
		n += f.Added()
	}
	if n != 500 {
		b.Fatalf("diff has %d added lines; want 500", n)
	}
	all := loadPersonas(b)
	var shared, total int
	b.ReportAllocs()
	for b.Loop() {
		shared, total = 0, 0
		for _, p := range all {
			r := ForPersona(c, p, "m")
			shared += len(r.Messages[0].Content) + len(r.Messages[1].Content)
			total += len(r.Messages[0].Content) + len(r.Messages[1].Content) + len(r.Messages[2].Content)
		}
	}
	b.ReportMetric(100*float64(shared)/float64(total), "shared-prefix-%")
	b.ReportMetric(float64(total)/float64(len(all)), "prompt-bytes/persona")
}
