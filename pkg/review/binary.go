package review

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/scope"
	"golang.org/x/sync/errgroup"
)

// readUnseen reads what scope could not judge from the diff's lines, and
// reviews as text what turns out to be code:
//
//   - a file GitHub calls binary: one NUL byte makes git call a .js binary
//     and give no patch, and node runs it all the same. Whether it is text
//     is decided from its first SniffBytes: a source name, a #! line, or
//     text with at most a few invalid bytes (scope.LooksLikeText) make it
//     text, and then both versions are read (within the run's content
//     budget) and their change becomes the file's diff. A compiled
//     executable (ELF, Mach-O, PE, wasm, Java class or jar, Python
//     bytecode) runs and no persona can read it: the review is incomplete.
//     Any other binary file is an asset, left out.
//   - a move that changes what a file is (scope.ReasonMoved): its head
//     version is reviewed whole, as a new file.
//
// A file that cannot be read, or is too large to read within the bounds,
// leaves the review incomplete: its lines reached no persona.
//
// It returns, for each file read as text, the diff's own entry of it: what
// GitHub shows, which has no line to comment on.
func (rn *reviewRun) readUnseen(ctx context.Context) map[*diff.File]*diff.File {
	// Read under the concurrency bound (a move of many files lists each
	// like this on the files and compare endpoints), then settled in order.
	type read struct {
		f, text  *diff.File
		compiled bool
		err      error
	}
	reads := make([]read, len(rn.sc.Excluded))
	var g errgroup.Group
	g.SetLimit(max(rn.o.MaxConcurrency, 1))
	for i, e := range rn.sc.Excluded {
		if reads[i].f = rn.unseenFile(e); reads[i].f != nil {
			g.Go(func() error {
				r := &reads[i]
				if e.Reason == scope.ReasonMoved {
					r.text, r.err = rn.asText(ctx, r.f)
					return nil
				}
				var text bool
				text, r.compiled, r.err = rn.sniff(ctx, r.f.Path())
				if text && r.err == nil {
					r.text, r.err = rn.asText(ctx, r.f)
				}
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
		what := "GitHub calls it binary"
		if e.Reason == scope.ReasonMoved {
			what = "it moved where it becomes something else"
		}
		switch {
		case err != nil:
			rn.o.logf("scope: %s: %s and it could not be read as text: %v", e.Path, what, err)
			rn.res.incomplete("%s changed but not reviewed: %s and it could not be read as text (%v)", e.Path, what, err)
			keep = append(keep, Excluded{Path: e.Path, Reason: "could not be read as text"})
		case reads[i].compiled:
			rn.o.logf("scope: %s: a compiled executable; no persona can read it", e.Path)
			rn.res.incomplete("%s changed but not reviewed: a compiled executable runs, and no persona can read it (exclude it in the repository's configuration to accept it)", e.Path)
			keep = append(keep, Excluded{Path: e.Path, Reason: "compiled executable"})
		case text == nil:
			keep = append(keep, e) // a binary asset
		case len(text.Hunks) == 0:
			keep = append(keep, Excluded{Path: e.Path, Reason: scope.ReasonNoChange})
		default:
			rn.o.logf("scope: %s: %s; reviewed as text", e.Path, what)
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

// unseenFile is the diff's file behind an exclusion that readUnseen reads:
// a file GitHub called binary, or a move that changes what it is; nil
// otherwise.
func (rn *reviewRun) unseenFile(e Excluded) *diff.File {
	if e.Reason != scope.ReasonBinary && e.Reason != scope.ReasonMoved {
		return nil
	}
	for _, f := range rn.in.diff.Files {
		if f.Path() == e.Path && f.Status != diff.Deleted && (f.Binary || e.Reason == scope.ReasonMoved) {
			return f
		}
	}
	return nil
}

// sniff decides from the head version's first SniffBytes whether the file
// at p is text (a source name, a #! line, or text by its content) or a
// compiled executable; neither is a binary asset.
func (rn *reviewRun) sniff(ctx context.Context, p string) (text, compiled bool, err error) {
	if rn.in.headBytes == nil {
		return false, false, fmt.Errorf("%s: no head version to read", p)
	}
	prefix, found, whole, err := rn.in.headBytes(ctx, p, SniffBytes)
	switch {
	case err != nil:
		return false, false, err
	case !found:
		return false, false, fmt.Errorf("%s is not at the head commit", p)
	case scope.Source(p) || strings.HasPrefix(prefix, "#!"):
		text = true
	case compiledMagic(prefix) || compiledExts[strings.ToLower(path.Ext(p))]:
		return false, true, nil
	case scope.LooksLikeText(prefix):
		text = true
	case strings.HasPrefix(prefix, "MZ"): // a PE executable (.exe, .dll)
		return false, true, nil
	}
	if text && whole && rn.heads.put(p, prefix) {
		rn.budget.settle(0, int64(len(prefix))) // the whole file, kept: no second read
	}
	return text, false, nil
}

// compiledExts are the names of compiled code.
var compiledExts = map[string]bool{
	".exe": true, ".dll": true, ".so": true, ".dylib": true, ".jar": true, ".war": true, ".class": true,
	".pyc": true, ".pyo": true, ".wasm": true, ".node": true, ".o": true, ".a": true,
}

// compiledMagic reports whether b starts like a compiled executable: ELF,
// Mach-O (thin or fat, which a Java class shares), WebAssembly.
func compiledMagic(b string) bool {
	for _, m := range [...]string{"\x7fELF", "\xfe\xed\xfa\xce", "\xfe\xed\xfa\xcf", "\xce\xfa\xed\xfe", "\xcf\xfa\xed\xfe", "\xca\xfe\xba\xbe", "\x00asm"} {
		if strings.HasPrefix(b, m) {
			return true
		}
	}
	return false
}

// asText reads both versions of f within the run's content budget and
// returns their change. A move that changes what the file is
// (scope.MoveChangesKind) is the whole head version, as a new file.
func (rn *reviewRun) asText(ctx context.Context, f *diff.File) (*diff.File, error) {
	newText, found, err := rn.head(ctx, f.Path())
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, fmt.Errorf("%s is not at the head commit", f.Path())
	}
	whole := (f.Status == diff.Renamed || f.Status == diff.Copied) && scope.MoveChangesKind(f.OldPath, f.NewPath)
	if whole || f.Status == diff.Added || (f.Status == diff.Modified && f.OldMode != "" && f.NewMode == "100755" && len(f.Hunks) == 0 && !f.Binary) {
		return diff.FromTexts("", f.NewPath, diff.Added, "", newText)
	}
	oldText, found, err := rn.budget.read(ctx, rn.in.oldBytes, f.OldPath)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, fmt.Errorf("%s is not at the base of the change", f.OldPath)
	}
	return diff.FromTexts(f.OldPath, f.NewPath, f.Status, oldText, newText)
}
