package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/anchor-review/anchor-review/fixtures"
	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/pkg/marker"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/prompts"
)

// demoPR is fixtures/demo/NAME/pr.json.
type demoPR struct {
	Number  int    `json:"number"`
	Title   string `json:"title"`
	Body    string `json:"body"`
	State   string `json:"state"`
	Draft   bool   `json:"draft"`
	Merged  bool   `json:"merged"`
	Author  string `json:"author"`
	HeadSHA string `json:"head_sha"`
	BaseSHA string `json:"base_sha"`
}

type demoComment struct {
	Author string `json:"author"`
	Body   string `json:"body"`
}

// demoCompare is fixtures/demo/NAME/compare.json, when the fixture is a
// push after a review: the compare API's answer for base...head.
type demoCompare struct {
	Base    string   `json:"base"`
	Head    string   `json:"head"`
	Status  string   `json:"status"`
	Commits []string `json:"commits"`
	Files   []struct {
		Filename  string `json:"filename"`
		Status    string `json:"status"`
		Patch     string `json:"patch"`
		Additions int    `json:"additions"`
		Deletions int    `json:"deletions"`
	} `json:"files"`
}

const (
	demoOwner = "octo-shop"
	demoRepo  = "shopfront"
	demoBot   = "github-actions[bot]"
)

// runDemo runs the whole pipeline on a fixture PR, offline: an in-process
// fake GitHub serving the fixture, and the model's recorded answers.
func runDemo(ctx context.Context, f *Factory, args []string) error {
	stdout := f.Stdout
	fl := flag.NewFlagSet("demo", flag.ContinueOnError)
	name := fl.String("pr", "buggy", "fixture pull request under fixtures/demo/ (buggy, clean, dependabot, reviewed, followup)")
	list := fl.Bool("list", false, "list the fixture pull requests and exit")
	inlineReview := fl.Bool("inline", false, "also post the findings on their lines as one pull-request review (the inline input) and print it")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "Usage: anchor-review demo [--pr NAME] [--inline] [--list]\n\nRuns skip check, selection, dispatch, synthesis, validator, report and check\noffline on a fixture pull request, and prints what it would post.\n\nFlags:")
		fl.PrintDefaults()
	}
	if help, err := parseFlags(fl, args, false, stdout, f.Stderr); help || err != nil {
		return err
	}
	names, err := demoNames()
	if err != nil {
		return err
	}
	if *list {
		for _, n := range names {
			fmt.Fprintln(stdout, n)
		}
		return nil
	}
	if !slices.Contains(names, *name) {
		return fmt.Errorf("%w: no demo pull request %q (have: %s)", ErrUsage, *name, strings.Join(names, ", "))
	}
	return demo(ctx, *name, *inlineReview, stdout)
}

func demoNames() ([]string, error) {
	entries, err := fs.ReadDir(fixtures.FS, "demo")
	if err != nil {
		return nil, fmt.Errorf("demo fixtures: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// demo is the demo proper, replaying the fixture's recorded answers.
func demo(ctx context.Context, name string, inlineReview bool, stdout io.Writer) error {
	model, closeModel, err := demoModel(name)
	if err != nil {
		return err
	}
	defer closeModel()
	return demoWith(ctx, name, model, inlineReview, stdout)
}

// demoWith runs the demo with the given model (tests record the cassettes
// through it).
func demoWith(ctx context.Context, name string, model llm.Completer, inlineReview bool, stdout io.Writer) error {
	dir := path.Join("demo", name)
	var pr demoPR
	if err := readJSON(path.Join(dir, "pr.json"), &pr); err != nil {
		return err
	}
	var comments []demoComment
	if err := readJSON(path.Join(dir, "comments.json"), &comments); err != nil {
		return err
	}
	patch, err := fs.ReadFile(fixtures.FS, path.Join(dir, "diff.patch"))
	if err != nil {
		return fmt.Errorf("demo fixture: %w", err)
	}

	srv := githubtest.New()
	defer srv.Close()
	srv.AddPR(githubtest.PR{
		Number: pr.Number, Title: pr.Title, Body: pr.Body, State: pr.State, Author: pr.Author,
		Draft: pr.Draft, Merged: pr.Merged, HeadSHA: pr.HeadSHA, BaseSHA: pr.BaseSHA,
		HeadRepo: demoOwner + "/" + demoRepo, BaseRepo: demoOwner + "/" + demoRepo,
	})
	srv.SetDiff(pr.Number, string(patch))
	for _, c := range comments {
		if c.Author == "github-actions[bot]" {
			// The Action's own earlier report, posted with the check run
			// that names it.
			srv.AddReport(pr.Number, c.Author, c.Body)
			continue
		}
		srv.AddComment(pr.Number, c.Author, c.Body)
	}
	if err := serveTree(srv, path.Join(dir, "head"), pr.HeadSHA, ".txt"); err != nil {
		return err
	}
	if err := serveTree(srv, path.Join(dir, "base"), pr.BaseSHA, ""); err != nil {
		return err
	}
	// The repository's own configuration, at the base commit. It lives
	// beside base/ because go:embed leaves out dot-directories.
	if b, err := fs.ReadFile(fixtures.FS, path.Join(dir, "anchor-review.yml")); err == nil {
		srv.SetContent(pr.BaseSHA, repoconfig.Path, string(b))
	}
	// A push after a review: the compare API's answer for the new commits.
	if _, err := fs.Stat(fixtures.FS, path.Join(dir, "compare.json")); err == nil {
		var c demoCompare
		if err := readJSON(path.Join(dir, "compare.json"), &c); err != nil {
			return err
		}
		set := githubtest.Compare{Status: c.Status, Commits: c.Commits}
		for _, f := range c.Files {
			set.Files = append(set.Files, githubtest.File{Filename: f.Filename, Status: f.Status, Patch: f.Patch, Additions: f.Additions, Deletions: f.Deletions})
		}
		srv.SetCompare(c.Base, c.Head, set)
	}
	before := map[int64]bool{}
	for _, c := range srv.Comments(pr.Number) {
		before[c.ID] = true
	}

	gh, err := newGitHub(srv.HTTPClient(), srv.URL+"/", "demo-token")
	if err != nil {
		return err
	}
	personas, err := loadTeam(nil)
	if err != nil {
		return err
	}

	w := &demoWriter{w: stdout}
	fmt.Fprintf(stdout, "anchor-review demo: %s/%s#%d %q (fixture %q; offline: fake GitHub, recorded model answers)\n\n", demoOwner, demoRepo, pr.Number, pr.Title, name)
	rv := review.Reviewer{GitHub: gh, Model: model, Personas: personas}
	// The workflow's inputs, as the action reads them: the model and the
	// bot login are set, everything else is left at its default, so the
	// repository configuration can set it.
	inputs := map[string]string{
		"INPUT_GITHUB-TOKEN": "demo-token", "INPUT_BASE-URL": "http://127.0.0.1:1/v1",
		"INPUT_MODEL": "gpt-4.1", "INPUT_BOT-LOGIN": demoBot,
	}
	cfg, err := action.LoadConfig(func(k string) string { return inputs[k] })
	if err != nil {
		return fmt.Errorf("demo inputs: %w", err)
	}
	rc := &action.RepoConfig{Config: cfg}
	opts := cfg.ReviewOptions()
	opts.Owner, opts.Repo, opts.PR, opts.Logf, opts.Configure = demoOwner, demoRepo, pr.Number, w.logf, rc.Configure
	res, got, err := rv.ReviewPR(ctx, opts)
	var invalid *repoconfig.Error
	if errors.As(err, &invalid) {
		fmt.Fprint(stdout, invalid.Lines())
		return fmt.Errorf("%w: %w", action.ErrUsage, err)
	}
	if err != nil && !errors.Is(err, review.ErrAllPersonasFailed) {
		return fmt.Errorf("demo review: %w", err)
	}
	cfg = rc.Config
	res.Coverage.Settings = rc.Settings
	ro := report.Options{ServerURL: "https://github.com", Repo: demoOwner + "/" + demoRepo, HeadSHA: res.HeadSHA, FailOn: cfg.FailOn, Quiet: cfg.Quiet, Secrets: cfg.Secrets()}
	n := &textNotifier{w: stdout}
	out := action.Publish(ctx, action.PublishOptions{
		GitHub: gh, Notifier: n, Logf: w.logf,
		Owner: demoOwner, Repo: demoRepo, PR: pr.Number, BotLogin: demoBot, Mode: cfg.Mode, FailOn: cfg.FailOn, Quiet: cfg.Quiet,
		Inline: inlineReview,
	}, res, got, ro)

	fmt.Fprintln(stdout)
	posted := srv.Comments(pr.Number)
	var body string
	edited := false
	for _, c := range posted {
		if c.Author == demoBot && marker.HasReport(c.Body) {
			body, edited = c.Body, before[c.ID] && c.Edits > 0
		}
	}
	switch {
	case res.Skipped:
		fmt.Fprintf(stdout, "== Skipped by rule %d: %s. No model call was made.\n", res.SkipRule, res.SkipReason)
	case body == "":
		fmt.Fprintln(stdout, "== No comment posted.")
	case edited:
		fmt.Fprintln(stdout, "== The report comment (the earlier report, edited in place on the fake GitHub) ==")
		fmt.Fprintln(stdout, body)
	default:
		fmt.Fprintln(stdout, "== The report comment (posted to the fake GitHub) ==")
		fmt.Fprintln(stdout, body)
	}
	fmt.Fprintln(stdout)
	if inlineReview {
		printReviews(stdout, srv, pr.Number)
	}
	for _, cr := range srv.CheckRuns() {
		fmt.Fprintf(stdout, "== Check run %q on %s: %s — %s (%d annotations)\n", cr.Name, short(cr.HeadSHA), cr.Conclusion, cr.Title, len(cr.Annotations))
		for _, a := range cr.Annotations {
			fmt.Fprintf(stdout, "   %s %s:%d %s\n", a.Level, a.Path, a.StartLine, a.Title)
		}
	}
	if len(srv.CheckRuns()) == 0 {
		fmt.Fprintln(stdout, "== No check run (skipped before review).")
	}
	findings := strconv.Itoa(out.Findings)
	if out.Findings < 0 {
		findings = "" // the carried report does not record them all
	}
	fmt.Fprintf(stdout, "\noutputs: skipped=%t verdict=%s conclusion=%s findings=%s cost=%s\n", out.Skipped, out.Verdict, out.Conclusion, findings, out.Cost)
	// The demo always exits 0 (it demonstrates; it does not gate): it says
	// what the Action's step would have exited with instead.
	code := ExitCode(action.Outcome(res, out, "P1", err))
	fmt.Fprintf(stdout, "exit code: the Action's step would exit %d (%s); the demo itself exits 0\n", code, exitMeaning[code])
	fmt.Fprintf(stdout, "cost: %d GitHub requests, %d model calls\n", gh.Requests(), res.Coverage.Usage.Calls)
	if res.Coverage.Usage.Calls > 0 {
		fmt.Fprintln(stdout, "(model answers replayed from fixtures/cassettes by a fake model endpoint; its token counts, and so the")
		fmt.Fprintln(stdout, "estimated cost, are the demo's estimate (four bytes a token, a simulated prompt cache), not a provider's)")
	}
	return nil
}

// exitMeaning says what each exit code means (README "Outputs and exit
// codes").
var exitMeaning = map[int]string{
	0: "success, neutral or skipped",
	1: "blocking findings",
	2: "usage or configuration error",
	3: "the review could not run",
}

// demoModel replays the fixture's recorded answers through a fake model
// endpoint; stop stops it. A fixture with no recording must make no model
// call at all.
func demoModel(name string) (model llm.Completer, stop func(), err error) {
	p := path.Join("cassettes", "demo-"+name+".jsonl")
	if _, err := fs.Stat(fixtures.FS, p); err != nil {
		return noModel{}, func() {}, nil
	}
	r, err := llm.LoadCassette(fixtures.FS, p)
	if err != nil {
		return nil, nil, err
	}
	if r, err = r.WithSchemas(prompts.Schemas()); err != nil {
		return nil, nil, err
	}
	e, srv, err := newReplayEndpoint(r)
	if err != nil {
		return nil, nil, err
	}
	return e, srv.Close, nil
}

// newReplayEndpoint starts the fake model endpoint that serves r's answers
// and the client that asks it; close the server when done.
func newReplayEndpoint(r *llm.Replay) (*replayEndpoint, *llmtest.Server, error) {
	srv := llmtest.New()
	// A provider reports each answer's usage, cached prefix included; the
	// fake estimates it from the request text (see llmtest.Request). The
	// counts do not depend on timing: every call the dispatch holds back
	// until a warm-up's first token shares no more with the others than
	// with that warm-up (TestDemoCachedTokensIgnoreTiming).
	srv.SimulatePromptCache(true)
	client, err := newModel(modelConfig{BaseURL: srv.URL + "/v1"})
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	e := &replayEndpoint{replay: r, client: client, answers: map[string]string{}}
	srv.SetDefault(e.serve)
	return e, srv, nil
}

// replayEndpoint answers each request from a cassette, but over the wire:
// the recorded answer is handed to the fake model endpoint, and the real
// client asks it. The demo's calls thus stream, report usage and meet the
// simulated prompt cache as a live run's do, and Coverage can price them.
type replayEndpoint struct {
	replay *llm.Replay
	client *llm.Client

	mu sync.Mutex
	// answers holds the recorded answer of each request on its way, by
	// the text of its messages (the cassette's key is not on the wire).
	answers map[string]string
}

func (e *replayEndpoint) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	rec, err := e.replay.Complete(ctx, req)
	if err != nil {
		return rec, err
	}
	e.mu.Lock()
	e.answers[llmtest.PromptText(req.Messages)] = string(rec.JSON)
	e.mu.Unlock()
	return e.client.Complete(ctx, req)
}

// serve is the fake endpoint's answer to a request.
func (e *replayEndpoint) serve(r llmtest.Request) llmtest.Reply {
	e.mu.Lock()
	a, ok := e.answers[llmtest.PromptText(r.Messages)]
	e.mu.Unlock()
	if !ok {
		return llmtest.BadRequest("demo: no recorded answer for this request")
	}
	return llmtest.OK(a)
}

type noModel struct{}

func (noModel) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, errors.New("demo: this fixture expects no model call")
}

// serveTree serves every file under dir at ref, trimming suffix from names.
func serveTree(srv *githubtest.Server, dir, ref, suffix string) error {
	if _, err := fs.Stat(fixtures.FS, dir); err != nil {
		return nil
	}
	return fs.WalkDir(fixtures.FS, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fixtures.FS, p)
		if err != nil {
			return err
		}
		srv.SetContent(ref, strings.TrimSuffix(strings.TrimPrefix(p, dir+"/"), suffix), string(b))
		return nil
	})
}

func readJSON(p string, v any) error {
	b, err := fs.ReadFile(fixtures.FS, p)
	if err != nil {
		return fmt.Errorf("demo fixture: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("demo fixture %s: %w", p, err)
	}
	return nil
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// demoWriter prints progress lines as stages finish.
type demoWriter struct {
	w io.Writer
}

func (d *demoWriter) logf(format string, args ...any) {
	fmt.Fprintf(d.w, "  "+format+"\n", args...)
}

// textNotifier is the Notifier of the command line: everything to a
// terminal writer.
type textNotifier struct{ w io.Writer }

func (n *textNotifier) Warningf(format string, args ...any) {
	fmt.Fprintf(n.w, "warning: "+format+"\n", args...)
}

func (n *textNotifier) Errorf(format string, args ...any) {
	fmt.Fprintf(n.w, "error: "+format+"\n", args...)
}

func (n *textNotifier) AddStepSummary(string) {}

func (n *textNotifier) Annotate(level, file string, line, endLine int, title, message string) {
	fmt.Fprintf(n.w, "%s %s:%d: %s: %s\n", level, file, line, title, message)
}

// printReviews prints the pull-request reviews the run posted to the fake,
// each line comment with its place, as GitHub would show them.
func printReviews(stdout io.Writer, srv *githubtest.Server, n int) {
	rvs := srv.Reviews(n)
	if len(rvs) == 0 {
		fmt.Fprintln(stdout, "== No inline review posted.")
		fmt.Fprintln(stdout)
		return
	}
	byID := map[int64]githubtest.Comment{}
	for _, c := range srv.ReviewComments(n) {
		byID[c.ID] = c
	}
	for _, rv := range rvs {
		fmt.Fprintf(stdout, "== The inline review (posted to the fake GitHub): event %s on %s, %d comments ==\n", rv.Event, short(rv.CommitID), len(rv.Comments))
		fmt.Fprintln(stdout, rv.Body)
		for _, id := range rv.Comments {
			c := byID[id]
			place := fmt.Sprintf("%s:%d", c.Path, c.Line)
			if c.StartLine > 0 {
				place = fmt.Sprintf("%s:%d-%d", c.Path, c.StartLine, c.Line)
			}
			fmt.Fprintf(stdout, "\n--- %s (%s)\n%s", place, c.Side, c.Body)
		}
		fmt.Fprintln(stdout)
	}
}
