// Command evalcorpus writes one real case of the eval corpus
// (fixtures/eval/real/<id>) from two versions of a few files of someone
// else's code, then checks it against the shared case format.
//
// The two versions come from directories (-base and -head, e.g. two module
// versions in the module cache or two unpacked npm tarballs) or from a git
// directory and two revisions (-git, -base-rev, -head-rev). For a bug case
// the base is the fixed version and the head the buggy one: the fix
// reversed is the change under review. ground_truth.jsonl is written by
// hand (-show prints the diff with new-side line numbers to label from);
// a clean case gets an empty one, and -later/-later-rev checks that every
// line it adds survives in a later version.
//
//	go run ./tools/evalcorpus -out fixtures/eval/real/go-x-net-http2-continuation \
//	  -base $MOD/golang.org/x/net@v0.23.0 -head $MOD/golang.org/x/net@v0.22.0 \
//	  -files http2/frame.go -lang go -license BSD-3-Clause \
//	  -source golang.org/x/net@v0.22.0 -fix golang.org/x/net@v0.23.0 -cve CVE-2023-45288 \
//	  -title "..." -body "..." -notes "..."
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/anchor-review/anchor-review/internal/evalcorpus"
	"github.com/anchor-review/anchor-review/pkg/eval"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "evalcorpus:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("evalcorpus", flag.ContinueOnError)
	var (
		out      = fs.String("out", "", "case directory to write")
		base     = fs.String("base", "", "directory of the version before the change under review")
		head     = fs.String("head", "", "directory of the version after the change under review")
		gitDir   = fs.String("git", "", "git directory to read -base-rev/-head-rev/-later-rev from")
		baseRev  = fs.String("base-rev", "", "revision before the change (with -git)")
		headRev  = fs.String("head-rev", "", "revision after the change (with -git)")
		laterRev = fs.String("later-rev", "", "later revision whose files must keep every added line (with -git, clean cases)")
		later    = fs.String("later", "", "directory of a later version whose files must keep every added line (clean cases)")
		files    = fs.String("files", "", "comma-separated repo-relative files")
		keep     = fs.String("keep", "", "hunks to keep, FILE=1,3;FILE2=2 (1-based); default all")
		show     = fs.Bool("show", false, "print the diff with new-side line numbers and write nothing")
		c        eval.Meta
		pr       struct {
			Title string `json:"title"`
			Body  string `json:"body"`
		}
	)
	fs.StringVar(&c.Language, "lang", "", "go|javascript|typescript|python|c")
	fs.StringVar(&c.Source, "source", "", "provenance of the head version")
	fs.StringVar(&c.Fix, "fix", "", "the change that fixed the bug, or the later version for a clean case")
	fs.StringVar(&c.CVE, "cve", "", "CVE id, if any")
	fs.StringVar(&c.License, "license", "", "SPDX licence id of the code")
	fs.StringVar(&c.Notes, "notes", "", "how the case was derived")
	fs.BoolVar(&c.Clean, "clean", false, "a clean case: no known defect")
	fs.StringVar(&pr.Title, "title", "", "pull request title")
	fs.StringVar(&pr.Body, "body", "", "pull request body")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c.Kind = eval.SuiteReal
	c.Files = split(*files, ",")
	if len(c.Files) == 0 {
		return errors.New("-files is required")
	}
	sel, err := parseKeep(*keep)
	if err != nil {
		return err
	}
	if *gitDir != "" {
		tmp, err := os.MkdirTemp("", "evalcorpus")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		*base, *head = filepath.Join(tmp, "base"), filepath.Join(tmp, "head")
		if err := extract(ctx, *gitDir, *baseRev, c.Files, *base); err != nil {
			return err
		}
		if err := extract(ctx, *gitDir, *headRev, c.Files, *head); err != nil {
			return err
		}
		if *laterRev != "" {
			*later = filepath.Join(tmp, "later")
			if err := extract(ctx, *gitDir, *laterRev, c.Files, *later); err != nil {
				return err
			}
		}
	}
	if *base == "" || *head == "" {
		return errors.New("give -base and -head, or -git with -base-rev and -head-rev")
	}
	patch, err := evalcorpus.Diff(ctx, *base, *head, c.Files, sel)
	if err != nil {
		return err
	}
	if *later != "" {
		gone, err := evalcorpus.Survivors(patch, *later)
		if err != nil {
			return err
		}
		if len(gone) > 0 {
			return fmt.Errorf("added lines changed later (not a clean case?):\n%s", strings.Join(gone, "\n"))
		}
	}
	if *show {
		text, err := evalcorpus.Numbered(patch)
		if err != nil {
			return err
		}
		fmt.Print(text)
		return nil
	}
	if *out == "" {
		return errors.New("-out is required")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "diff.patch"), patch, 0o644); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(*out, "case.json"), c); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(*out, "pr.json"), pr); err != nil {
		return err
	}
	gt := filepath.Join(*out, "ground_truth.jsonl")
	if c.Clean {
		if err := os.WriteFile(gt, nil, 0o644); err != nil {
			return err
		}
	} else if _, err := os.Stat(gt); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("wrote %s; now write its ground_truth.jsonl (see -show) and run again", *out)
	}
	_, err = evalcorpus.Check(*out)
	return err
}

// extract writes the files as they are at rev in gitDir under dir; a file
// absent at rev is left absent (an added file).
func extract(ctx context.Context, gitDir, rev string, files []string, dir string) error {
	if rev == "" {
		return errors.New("-git needs -base-rev and -head-rev")
	}
	for _, f := range files {
		cmd := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "show", rev+":"+f)
		b, err := cmd.Output()
		if err != nil {
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				continue // not present at rev
			}
			return fmt.Errorf("git show %s:%s: %w", rev, f, err)
		}
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func parseKeep(s string) (map[string][]int, error) {
	out := map[string][]int{}
	for _, part := range split(s, ";") {
		file, nums, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("-keep %q: want FILE=1,2", part)
		}
		for _, n := range split(nums, ",") {
			i, err := strconv.Atoi(n)
			if err != nil {
				return nil, fmt.Errorf("-keep %q: %w", part, err)
			}
			out[file] = append(out[file], i)
		}
	}
	return out, nil
}

func split(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func writeJSON(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // descriptions and bodies hold <a href> and the like
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
