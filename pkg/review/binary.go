package review

import (
	"context"
	"fmt"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/scope"
	"golang.org/x/sync/errgroup"
)

// readBinarySource reviews as text every changed file GitHub calls binary
// that is source code by its name, or text by its content: one NUL byte
// makes git call a .js binary and give no patch, and node runs it all the
// same. Both versions are read and their change becomes the file's diff.
// A file that cannot be read leaves the review incomplete: its lines
// reached no persona. Every such file is read, whatever its name: node
// loads a required ./x.png as JavaScript all the same.
//
// It returns, for each file read as text, the diff's own entry of it: what
// GitHub shows, which has no line to comment on.
func (rn *reviewRun) readBinarySource(ctx context.Context) map[*diff.File]*diff.File {
	// Read under the concurrency bound (a move of many files lists each
	// like this on the files and compare endpoints), then settled in order.
	type read struct {
		f, text *diff.File
		err     error
	}
	reads := make([]read, len(rn.sc.Excluded))
	var g errgroup.Group
	g.SetLimit(max(rn.o.MaxConcurrency, 1))
	for i, e := range rn.sc.Excluded {
		if reads[i].f = rn.binaryFile(e); reads[i].f != nil {
			g.Go(func() error {
				reads[i].text, reads[i].err = rn.asText(ctx, reads[i].f)
				return nil
			})
		}
	}
	_ = g.Wait() // the goroutines return no error
	listed := map[*diff.File]*diff.File{}
	var keep []Excluded
	for i, e := range rn.sc.Excluded {
		f, text, err := reads[i].f, reads[i].text, reads[i].err
		if f == nil {
			keep = append(keep, e)
			continue
		}
		switch {
		case err != nil:
			rn.o.logf("scope: %s: GitHub calls it binary and it could not be read as text: %v", e.Path, err)
			rn.res.incomplete("%s changed but not reviewed: GitHub calls it binary and it could not be read as text", e.Path)
			keep = append(keep, Excluded{Path: e.Path, Reason: "binary per GitHub; could not be read as text"})
		case text == nil:
			keep = append(keep, e) // binary by its content too
		case len(text.Hunks) == 0:
			keep = append(keep, Excluded{Path: e.Path, Reason: scope.ReasonNoChange})
		default:
			rn.o.logf("scope: %s: GitHub calls it binary; reviewed as text", e.Path)
			rn.sc.Files = append(rn.sc.Files, text)
			listed[text] = f
			if scope.Executable(text.Path()) {
				rn.sc.ExecutableLines += text.Added() + text.Deleted()
			}
		}
	}
	rn.sc.Excluded = keep
	return listed
}

// binaryFile is the diff's file behind an exclusion when GitHub called it
// binary; nil otherwise.
func (rn *reviewRun) binaryFile(e Excluded) *diff.File {
	if e.Reason != scope.ReasonBinary {
		return nil
	}
	for _, f := range rn.in.diff.Files {
		if f.Path() == e.Path && f.Binary && f.Status != diff.Deleted {
			return f
		}
	}
	return nil
}

// asText reads both versions of f and returns their change; nil when the
// new version is binary by its content too and neither its name nor a #!
// line makes it source.
func (rn *reviewRun) asText(ctx context.Context, f *diff.File) (*diff.File, error) {
	newText, found, err := rn.head(ctx, f.Path())
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, fmt.Errorf("%s is not at the head commit", f.Path())
	}
	// A #! line makes a file a script whatever its name (bin/deploy, a
	// git hook): source, however many NUL bytes a comment of it holds.
	if !scope.Source(f.Path()) && !strings.HasPrefix(newText, "#!") && !scope.LooksLikeText(newText) {
		return nil, nil
	}
	oldText := ""
	if f.Status != diff.Added {
		if rn.in.old == nil {
			return nil, fmt.Errorf("%s: no base version to read", f.OldPath)
		}
		var found bool
		oldText, found, err = rn.in.old(ctx, f.OldPath)
		switch {
		case err != nil:
			return nil, err
		case !found:
			return nil, fmt.Errorf("%s is not at the base of the change", f.OldPath)
		}
	}
	return diff.FromTexts(f.OldPath, f.NewPath, f.Status, oldText, newText)
}
