package action

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"
)

// Step outputs are written here, not through go-githubactions' SetOutput:
// it frames every value with one fixed, public delimiter, so a value that
// contains that delimiter line (a skip reason, a carried verdict read back
// from a comment) could end its own value and inject outputs of its own.
// Each value here gets a fresh random delimiter that it cannot contain.

// Values the enum outputs may take; anything else is written as "".
var (
	verdictValues    = []string{"", "ready", "ready-with-fixes", "not-ready", "degraded"}
	conclusionValues = []string{"", "success", "failure", "neutral", "skipped", "action_required"}
)

// outputWriter appends step outputs to the runner's GITHUB_OUTPUT file.
type outputWriter struct {
	path string
	// delimiter returns a fresh random delimiter (tests may fix it).
	delimiter func() string
}

func newOutputWriter(a *githubactions.Action) outputWriter {
	return outputWriter{path: a.Getenv("GITHUB_OUTPUT"), delimiter: randomDelimiter}
}

func randomDelimiter() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return "ghadelimiter_" + hex.EncodeToString(b)
}

// frame renders one output in the runner's heredoc form.
func (w outputWriter) frame(name, value string) (string, error) {
	for range 4 {
		d := w.delimiter()
		if !strings.Contains(value, d) {
			return name + "<<" + d + "\n" + value + "\n" + d + "\n", nil
		}
	}
	return "", fmt.Errorf("output %s: no delimiter absent from its value", name)
}

// write appends every output in order, or none: a file command half written
// would be worse than none.
func (w outputWriter) write(outputs [][2]string) error {
	if w.path == "" {
		return fmt.Errorf("GITHUB_OUTPUT is not set: the step outputs cannot be written")
	}
	var b strings.Builder
	for _, o := range outputs {
		s, err := w.frame(o[0], o[1])
		if err != nil {
			return err
		}
		b.WriteString(s)
	}
	f, err := os.OpenFile(w.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open GITHUB_OUTPUT: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return fmt.Errorf("write GITHUB_OUTPUT: %w", err)
	}
	return f.Close()
}

// oneOf is v when it is one of the allowed values, else "".
func oneOf(v string, allowed []string) string {
	if slices.Contains(allowed, v) {
		return v
	}
	return ""
}

// stepOutputs lists the documented outputs of o, enums checked.
func stepOutputs(o StepOutputs) [][2]string {
	findings := strconv.Itoa(o.Findings)
	if o.Findings < 0 {
		findings = "" // not known (FindingsUnknown)
	}
	return [][2]string{
		{OutputSkipped, strconv.FormatBool(o.Skipped)},
		{OutputSkipReason, o.SkipReason},
		{OutputFindings, findings},
		{OutputVerdict, oneOf(o.Verdict, verdictValues)},
		{OutputConclusion, oneOf(o.Conclusion, conclusionValues)},
		{OutputCommentURL, o.CommentURL},
		{OutputReportPath, o.ReportPath},
		{OutputSARIFPath, o.SARIFPath},
		{OutputCost, o.Cost},
	}
}
