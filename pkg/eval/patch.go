package eval

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// spans maps a file's new path to the new-side line ranges of its hunks.
// It is the minimum of diff parsing the harness needs to check that ground
// truth points into the diff; the review pipeline uses pkg/diff.
type spans map[string][][2]int

func (s spans) contains(file string, line int) bool {
	for _, r := range s[normFile(file)] {
		if line >= r[0] && line <= r[1] {
			return true
		}
	}
	return false
}

// parseSpans reads a `git diff`: "diff --git" and "+++" headers and "@@"
// hunks, checking every hunk's body against its header counts so a
// hand-written case cannot drift from the line numbers its ground truth
// relies on.
func parseSpans(b []byte) (spans, error) {
	out := spans{}
	var (
		file        string // current new path; "" for a deletion
		inHunk      bool
		oldN, newN  int // lines still expected in the current hunk
		hunkHeader  int // line number of the current hunk header
		sawGitFiles bool
	)
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := strings.TrimSuffix(sc.Text(), "\r")
		if inHunk && (oldN > 0 || newN > 0) {
			switch {
			case strings.HasPrefix(l, "+"):
				newN--
			case strings.HasPrefix(l, "-"):
				oldN--
			case strings.HasPrefix(l, " "), l == "":
				oldN--
				newN--
			case strings.HasPrefix(l, `\`):
			default:
				return nil, fmt.Errorf("line %d: hunk from line %d ends early", n, hunkHeader)
			}
			if oldN < 0 || newN < 0 {
				return nil, fmt.Errorf("line %d: hunk from line %d is longer than its header says", n, hunkHeader)
			}
			continue
		}
		switch {
		case strings.HasPrefix(l, `\`):
		case strings.HasPrefix(l, "diff --git "):
			sawGitFiles, inHunk, file = true, false, ""
		case strings.HasPrefix(l, "+++ "):
			p := strings.TrimPrefix(l, "+++ ")
			if i := strings.IndexByte(p, '\t'); i >= 0 {
				p = p[:i]
			}
			if p == "/dev/null" {
				file = ""
			} else {
				file = normFile(strings.TrimPrefix(p, "b/"))
			}
			inHunk = false
		case strings.HasPrefix(l, "@@ "):
			start, o, nw, err := parseHunkHeader(l)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if !sawGitFiles {
				return nil, fmt.Errorf("line %d: hunk before any \"diff --git\" header", n)
			}
			inHunk, oldN, newN, hunkHeader = true, o, nw, n
			if file != "" && nw > 0 {
				out[file] = append(out[file], [2]int{start, start + nw - 1})
			}
		case inHunk && (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") || strings.HasPrefix(l, " ")):
			return nil, fmt.Errorf("line %d: hunk from line %d is longer than its header says", n, hunkHeader)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inHunk && (oldN > 0 || newN > 0) {
		return nil, fmt.Errorf("hunk from line %d is cut short at end of diff", hunkHeader)
	}
	if !sawGitFiles {
		return nil, errors.New("no \"diff --git\" header")
	}
	return out, nil
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@ ...".
func parseHunkHeader(l string) (newStart, oldLines, newLines int, err error) {
	f := strings.Fields(l)
	if len(f) < 4 || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, fmt.Errorf("malformed hunk header %q", l)
	}
	_, oldLines, err = parseRange(f[1][1:])
	if err != nil {
		return 0, 0, 0, fmt.Errorf("hunk header %q: %w", l, err)
	}
	newStart, newLines, err = parseRange(f[2][1:])
	if err != nil {
		return 0, 0, 0, fmt.Errorf("hunk header %q: %w", l, err)
	}
	return newStart, oldLines, newLines, nil
}

func parseRange(s string) (start, count int, err error) {
	a, b, has := strings.Cut(s, ",")
	count = 1
	if start, err = strconv.Atoi(a); err != nil || start < 0 {
		return 0, 0, errors.New("bad range start")
	}
	if has {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, errors.New("bad range count")
		}
	}
	if count > 1<<24 || start > 1<<30 {
		return 0, 0, errors.New("range too large")
	}
	return start, count, nil
}
