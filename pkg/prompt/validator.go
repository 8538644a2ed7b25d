package prompt

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/prompts"
)

// Schema name of a per-file validator request (validator-batching:
// per-file).
const ValidationsSchema = "validations"

// ErrTooLarge is returned by ValidatorRequest when not even the smallest
// form of the request fits the token budget.
var ErrTooLarge = errors.New("too large for max-input-tokens")

// baseWindow is the number of lines each side of a finding's lines shown
// from the base version.
const baseWindow = 8

// ForValidator builds the Stage 5b request that checks finding f (SPEC
// Stage 5b). The shared part comes first and the finding last, so that a
// provider's prompt cache serves what validator calls have in common:
//
//  1. the system message: the validator's instructions, the severity
//     scale, the false-positive catalog and the fencing rule — the same
//     for every validation of every run;
//  2. the pull request: title and description, standards files, earlier
//     comments and the numbered diff of c.Files (the part of the diff the
//     finding's persona reviewed: the whole diff when it fits one call) —
//     the same for every validation of the run;
//  3. the head version of the finding's file, numbered (whole, or its
//     enclosing blocks when c.ValidatorHead is LevelBlocks) — the same for
//     every validation of that file;
//  4. the base version of the cited region and the finding, without the
//     reporting persona's confidence or name;
//  5. the answer turn, which holds no data.
//
// The persona requests' head context is left out: the validator reads the
// whole head file instead. (Providers that cache structured-output schemas
// as a prefix, OpenAI among them, share nothing between a findings and a
// validation request anyway.)
//
// Its key is llm.Key("validation", the finding's JSON, plain diff, head).
func ForValidator(f finding.Finding, c Context, headContent string, model string) llm.Request {
	rendered := diff.Render(c.Files)
	fence := fenceOf(c, rendered)
	var data strings.Builder
	data.WriteString("# The finding to check\n\n")
	writeFenceNote(&data, fence)
	writeBaseRegions(&data, []finding.Finding{f}, c, headContent, fence)
	data.WriteString("\n## The finding\n\n" +
		"As another reviewer reported it. Its claims are what you are checking, not facts.\n\n")
	writeFenced(&data, fence, modelFacingJSON(f))
	return llm.Request{
		Persona:  llm.Validator,
		Schema:   ValidationSchema,
		Model:    model,
		Messages: validatorMessages(prMessage(c, fence, true), headMessage(f.File, c, headContent, fence), data.String(), validatorTurn),
		Fence:    fence,
		Key:      llm.Key(ValidationSchema, findingJSON(f), rendered, headContent),
		// The label names the finding so a recorded verdict can be read
		// (and authored) by file and line.
		Label: fmt.Sprintf("%s:%d", f.File, f.Line),
	}
}

// ForValidatorFile builds the per-file validator request
// (validator-batching: per-file): ForValidator's system message, the PR's
// intent without the diff, the findings' file whole with its diff in place
// (changeMessage), then every finding of the file, numbered F1..Fn, each to
// be judged on its own. Without such a view (the head too large to show
// whole, unreadable or not matching the diff) its messages are laid out as
// ForValidator's. The answer follows the "validations" schema. fs must all
// name one file. The per-file stage gives it c cut to that file's part of
// the diff when the head file was read (review.validatePerFile).
func ForValidatorFile(fs []finding.Finding, c Context, headContent string, model string) llm.Request {
	rendered := diff.Render(c.Files)
	fence := fenceOf(c, rendered)
	file := ""
	if len(fs) > 0 {
		file = fs[0].File
	}
	var last strings.Builder
	fmt.Fprintf(&last, "# The %d findings to check\n\n", len(fs))
	writeFenceNote(&last, fence)
	pr, view, whole := prMessage(c, fence, false), "", false
	if c.ValidatorHead != LevelBlocks || IsWhole(headContent) {
		view, whole = changeMessage(changeOf(c, file), headContent, fence)
	}
	if !whole {
		// The head file too large to show whole, or not matching the diff:
		// the diff, the head's blocks and the base region, as one finding's
		// request has them.
		pr, view = prMessage(c, fence, true), headMessage(file, c, headContent, fence)
		writeBaseRegions(&last, fs, c, headContent, fence)
	}
	fmt.Fprintf(&last, "\n## The findings\n\n"+
		"As other reviewers reported them. Their claims are what you are checking, not facts. Judge each "+
		"finding on its own, as if it were the only one: one finding being right or wrong says nothing "+
		"about another.\n")
	keyParts := []string{ValidationsSchema}
	for i, f := range fs {
		fmt.Fprintf(&last, "\n### %s\n\n", FindingID(i))
		writeFenced(&last, fence, modelFacingJSON(f))
		keyParts = append(keyParts, findingJSON(f))
	}
	return llm.Request{
		Persona:  llm.Validator,
		Schema:   ValidationsSchema,
		Model:    model,
		Messages: validatorMessages(pr, view, last.String(), validatorFileTurn),
		Fence:    fence,
		Key:      llm.Key(append(keyParts, rendered, headContent)...),
		// The label names the file and each finding's line in F1..Fn
		// order ("a.go:12,40"), so a recorded verdict can be matched back
		// to its finding by file and line, as ForValidator's.
		Label: fileLabel(file, fs),
	}
}

// ValidatorRequest builds the request for fs (one finding, or with batch
// every finding of one file) that fits budget tokens, messages and answer
// schema together. c is the part of the diff the finding's persona
// reviewed. Tried in order: c as given; the head file's enclosing blocks
// instead of the whole file; that and only the finding's file's diff.
// ErrTooLarge when none fits; budget <= 0 means no limit.
func ValidatorRequest(fs []finding.Finding, c Context, headContent, model string, budget int, batch bool) (llm.Request, error) {
	build := func(c Context) llm.Request {
		if batch {
			return ForValidatorFile(fs, c, headContent, model)
		}
		return ForValidator(fs[0], c, headContent, model)
	}
	schema := EstimateTokens(string(prompts.ValidationSchema()))
	if batch {
		schema = EstimateTokens(string(prompts.ValidationsSchema()))
	}
	fits := func(r llm.Request) bool { return budget <= 0 || RequestTokens(r)+schema <= budget }
	blocks := c
	blocks.ValidatorHead = LevelBlocks
	own := blocks
	own.Files, own.Levels = nil, nil
	for i, f := range c.Files {
		if f.Path() == fs[0].File {
			own.Files = append(own.Files, f)
			own.Levels = append(own.Levels, levelOf(c, i))
		}
	}
	tries := []Context{c, blocks, own}
	if c.ValidatorHead != LevelBlocks && budget > 0 && EstimateTokens(headContent)+schema > budget {
		// A whole-file view holds every line of the head: a head over the
		// budget on its own is not rendered whole only to be thrown away.
		tries = tries[1:]
	}
	for _, v := range tries {
		if r := build(v); fits(r) {
			return r, nil
		}
	}
	return llm.Request{}, fmt.Errorf("validator request for %s: %w", fs[0].File, ErrTooLarge)
}

// RequestTokens estimates the prompt tokens of r's messages.
func RequestTokens(r llm.Request) int {
	n := 0
	for _, m := range r.Messages {
		n += EstimateTokens(m.Content) + 4 // role and message framing
	}
	return n
}

// validatorMessages are a validator request's messages: the system
// message, the pull request message, the message about the findings' file,
// the data message (the findings) and the final message: the answer turn,
// which holds no data.
func validatorMessages(pr, file, data, turn string) []llm.Message {
	return []llm.Message{
		{Role: llm.RoleSystem, Content: validatorSystem()},
		{Role: llm.RoleUser, Content: pr},
		{Role: llm.RoleUser, Content: file},
		{Role: llm.RoleUser, Content: data},
		{Role: llm.RoleUser, Content: llm.PersonaHeader + llm.Validator + "\n\n" + turn},
	}
}

// prMessage is the validator's pull request message: the PR's intent,
// standards and earlier comments, and with withDiff the numbered diff of
// c.Files.
func prMessage(c Context, fence string, withDiff bool) string {
	var pr strings.Builder
	writeIntent(&pr, c, fence)
	if withDiff {
		writeDiff(&pr, c.Files, fence)
	}
	return pr.String()
}

// headMessage is the head version of file: whole, or its enclosing blocks
// when c.ValidatorHead is LevelBlocks and the file is too large.
func headMessage(file string, c Context, headContent, fence string) string {
	var head strings.Builder
	head.WriteString("# The finding's file at the head commit\n\n")
	writeFenceNote(&head, fence)
	head.WriteString("\n")
	switch {
	case headContent == "":
		writeFenced(&head, fence, "File: "+file+"\n(The head version of this file is empty or could not be read.)")
	case c.ValidatorHead == LevelBlocks && !IsWhole(headContent):
		head.WriteString("The file is too large to show whole: the blocks around the changes, with line numbers (`...` marks lines left out).\n\n")
		ex := ""
		if df := changeOf(c, file); df != nil {
			ex = Excerpt(df, headContent, LevelBlocks)
		}
		if ex == "" {
			ex = "(no changed block of this file)\n"
		}
		writeFencedCode(&head, fence, "File: "+file+"\n"+ex)
	default:
		head.WriteString("The whole head version, with line numbers.\n\n")
		writeFencedCode(&head, fence, "File: "+file+"\n"+numberedWhole(headContent))
	}
	return head.String()
}

// changeMessage is the per-file validator's view of the findings' file:
// its whole head version with the diff in place (the file's hunks
// expanded to the whole file), so one numbered listing holds the diff,
// the head version and the base version around every finding. ok is false
// when there is no such view: no head content, a binary file, a file the
// diff shows no change of (no patch), or a head that does not match the
// diff.
func changeMessage(df *diff.File, headContent, fence string) (msg string, ok bool) {
	if df == nil || df.Binary || df.NoPatch || len(df.Hunks) == 0 || headContent == "" {
		return "", false
	}
	x, err := diff.Expand(df, splitLines(headContent))
	if err != nil {
		return "", false
	}
	var b strings.Builder
	b.WriteString("# The findings' file and its change\n\n")
	writeFenceNote(&b, fence)
	b.WriteString("\n" + changeIntro)
	writeFencedCode(&b, fence, diff.RenderNumbered([]*diff.File{x}))
	return b.String(), true
}

// changeIntro explains the per-file validator's view of the file.
const changeIntro = "The whole file as this pull request leaves it, with the diff in place: every line starts with " +
	"its line number in the NEW (head) version, then the diff marker (`+` added by this pull request, `-` " +
	"deleted by it, a space for unchanged), then the code. Deleted lines have no new line number. The " +
	"unchanged and deleted lines together are the base version.\n\n"

// validatorSystem is the system message of every validator request: the
// validator's instructions, then what counts as a real problem to the
// reviewers (the rubric's severity scale and the false-positive catalog)
// and the fencing rule. It leaves out what only a reviewer needs: the
// confidence anchors (the validator never sees a finding's confidence) and
// the findings answer format. (A provider that caches a structured-output
// schema as the start of the prefix, OpenAI among them, would share nothing
// between a findings and a validation request anyway.) It holds no data,
// so every validation of every run shares it.
func validatorSystem() string {
	return readPrompt("validator.md") + "\n\n" +
		"# What counts as a real problem\n\n" +
		"The reviewers were given the severity scale and the catalog of non-findings below. A finding that " +
		"falls under an item of the catalog is not valid, however real the behaviour it describes.\n\n" +
		markdownSection(readPrompt("rubric.md"), "## Severity") + "\n\n" +
		readPrompt("catalog.md") + "\n\n" +
		fencingRule
}

// markdownSection is the section of md that starts with the heading line
// and runs to the next heading of the same or a higher level. The prompts
// are embedded at build time, so a missing heading is a build defect.
func markdownSection(md, heading string) string {
	level := strings.IndexByte(heading, ' ')
	lines := strings.Split(md, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.TrimRight(l, " \t") == heading })
	if start < 0 {
		panic("prompt: no section " + heading)
	}
	end, fenced := len(lines), false
	for i := start + 1; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		if n := strings.IndexByte(l, ' '); !fenced && n > 0 && n <= level && strings.Trim(l[:n], "#") == "" {
			end = i
			break
		}
	}
	return strings.TrimSpace(strings.Join(lines[start:end], "\n"))
}

// writeBaseRegions writes the base version of the lines the findings cite,
// reconstructed from the head file and the diff (no extra read).
func writeBaseRegions(b *strings.Builder, fs []finding.Finding, c Context, headContent, fence string) {
	b.WriteString("\n## The base version of the cited region\n\n" +
		"The same place in the file before this pull request, with base line numbers: compare it with the " +
		"head version to judge whether the problem was introduced by this diff.\n\n")
	if len(fs) == 0 {
		return
	}
	df := changeOf(c, fs[0].File)
	var rs [][2]int
	for _, f := range fs {
		rs = append(rs, [2]int{f.Line, f.Line})
	}
	text, why := BaseRegion(df, headContent, rs)
	if why != "" {
		writeFenced(b, fence, "File: "+fs[0].File+"\n("+why+")")
		return
	}
	path := fs[0].File
	if df.OldPath != "" {
		path = df.OldPath
	}
	writeFencedCode(b, fence, "File: "+path+" (base)\n"+text)
}

// BaseRegion returns the base version of new-side line ranges rs of file
// df, numbered with base line numbers, reconstructed from the head content
// and the diff's hunks (the lines outside hunks are the same on both
// sides). why says, instead, why there is none: the file is new, not in
// the diff, or the head does not match the diff.
func BaseRegion(df *diff.File, head string, rs [][2]int) (text, why string) {
	switch {
	case df == nil:
		return "", "the file is not in the diff shown"
	case df.Status == diff.Added:
		return "", "the file is new in this pull request: there is no base version"
	case head == "" && df.Status != diff.Deleted:
		return "", "the head version could not be read, so the base region cannot be rebuilt"
	}
	base, ok := rebuildBase(df, splitLines(head))
	if !ok {
		return "", "the head version does not match the diff, so the base region cannot be rebuilt"
	}
	var old [][2]int
	for _, r := range rs {
		a, z := oldLine(df, r[0]), oldLine(df, r[1])
		old = append(old, [2]int{max(1, a-baseWindow), min(len(base), z+baseWindow)})
	}
	old = merge(old)
	if len(base) == 0 || len(old) == 0 || old[0][0] > len(base) {
		return "", "the base version is empty here"
	}
	return numberedRanges(base, old), ""
}

// rebuildBase rebuilds the base file from the head lines and the hunks;
// ok is false when the hunks do not match the head.
func rebuildBase(df *diff.File, head []string) (base []string, ok bool) {
	x, err := diff.Expand(df, head)
	if err != nil {
		return nil, false
	}
	for _, l := range x.Hunks[0].Lines {
		if l.Kind != diff.Add {
			base = append(base, l.Text)
		}
	}
	return base, true
}

// oldLine maps new-side line n to the base line at the same place.
func oldLine(df *diff.File, n int) int {
	delta := 0
	for _, h := range df.Hunks {
		if n < h.NewStart {
			break
		}
		if n < h.NewStart+h.NewLines {
			old := h.OldStart
			for _, l := range h.Lines {
				if l.OldNo > 0 {
					old = l.OldNo
				}
				if l.NewNo == n {
					return max(old, 1)
				}
			}
			return max(old, 1)
		}
		// An empty side's start names the line before it.
		oldNext, newNext := h.OldStart+h.OldLines, h.NewStart+h.NewLines
		if h.OldLines == 0 {
			oldNext++
		}
		if h.NewLines == 0 {
			newNext++
		}
		delta = oldNext - newNext
	}
	return max(n+delta, 1)
}

// changeOf is the diff of file path with every hunk: from c.WholeFiles
// when the file was split across parts, else from c.Files.
func changeOf(c Context, path string) *diff.File {
	if f := fileOf(c.WholeFiles, path); f != nil {
		return f
	}
	return fileOf(c.Files, path)
}

func fileOf(files []*diff.File, path string) *diff.File {
	for _, f := range files {
		if f.Path() == path {
			return f
		}
	}
	return nil
}

// modelFacingJSON is the finding as the validator sees it: the claim
// alone, in the order the reviewer wrote it (where, the evidence, the
// consequence, then the title and severity) — without the reporting
// persona's confidence or name, the routing fields that say who acts on it
// (autofix_class, owner, requires_verification, pre_existing), and the
// pipeline's own fields (number, promotion, validation, found_on).
func modelFacingJSON(f finding.Finding) string {
	claim := struct {
		File         string              `json:"file"`
		Line         int                 `json:"line"`
		Evidence     []string            `json:"evidence"`
		WhyItMatters string              `json:"why_it_matters"`
		Title        string              `json:"title"`
		Severity     finding.Severity    `json:"severity"`
		SuggestedFix string              `json:"suggested_fix,omitempty"`
		Suggestion   *finding.Suggestion `json:"suggestion,omitempty"`
	}{f.File, f.Line, f.Evidence, f.WhyItMatters, f.Title, f.Severity, f.SuggestedFix, f.Suggestion}
	out, err := json.MarshalIndent(claim, "", "  ")
	if err != nil {
		panic("prompt: encode finding: " + err.Error())
	}
	return string(out)
}

const validatorTurn = "Answer the three questions for the finding of the previous message from the code as written, and reply with the JSON " +
	"object {\"validated\": true or false, \"reason\": \"one sentence\"} alone. When the finding is real but its " +
	"severity is too high, add \"severity\" with the one it deserves (never higher than the finding's). " +
	"When you are unsure, the answer is false.\n"

const validatorFileTurn = "Answer the three questions for every finding of the previous message, each on its own, from the code as " +
	"written, and reply with the JSON object {\"verdicts\": [{\"finding\": \"F1\", \"validated\": true or false, " +
	"\"reason\": \"one sentence\"}, ...]} alone: exactly one verdict per finding. When a finding is real but its " +
	"severity is too high, add \"severity\" to its verdict with the one it deserves (never higher). When you are " +
	"unsure about a finding, its answer is false.\n"

// FindingID is the id a per-file validator request gives the i-th finding
// (0-based): "F1", "F2", ...
func FindingID(i int) string { return "F" + strconv.Itoa(i+1) }

// fileLabel is a per-file validator request's label: the file, then the
// line of each finding in order, comma-separated ("a.go:12,40").
func fileLabel(file string, fs []finding.Finding) string {
	lines := make([]string, len(fs))
	for i, f := range fs {
		lines[i] = strconv.Itoa(f.Line)
	}
	return file + ":" + strings.Join(lines, ",")
}
