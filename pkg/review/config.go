package review

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/prompt"
	"github.com/anchor-review/anchor-review/pkg/repoconfig"
)

// configRead is the outcome of reading the repository configuration file.
type configRead struct {
	text  string
	found bool
	err   error
}

// ConfigSource reads the repository configuration of a local change.
type ConfigSource struct {
	Where string     // where it is read, for Coverage and the log ("merge base a1b2c3d")
	Read  HeadReader // reads a file there
}

// configure parses the repository configuration (SPEC section 7.5), hands
// it to o.Configure, and keeps its text and custom personas for the run.
// where names where it was read ("base commit"); d is the diff, to tell
// whether the pull request edits the file (it is reviewed with the version
// read all the same). A file that cannot be read or is invalid is an error:
// reviewing without the configuration the maintainers wrote would not be
// the review they asked for.
func configure(o *Options, cfg configRead, where string, d *diff.Diff) (*ConfigUse, error) {
	use := &ConfigUse{Path: repoconfig.Path, Where: where, Found: cfg.found}
	for _, f := range d.Files {
		if f.OldPath == repoconfig.Path || f.NewPath == repoconfig.Path {
			use.EditedByPR = true
		}
	}
	if cfg.err != nil {
		return use, fmt.Errorf("scope: read %s at the %s: %w", repoconfig.Path, where, cfg.err)
	}
	f := &repoconfig.File{Settings: map[string]any{}}
	if cfg.found {
		parsed, err := repoconfig.Parse([]byte(cfg.text))
		if err != nil {
			return use, fmt.Errorf("scope: %w", err)
		}
		f = parsed
	}
	if use.EditedByPR {
		o.logf("scope: this pull request edits %s; the review uses the version at the %s", repoconfig.Path, where)
	}
	if o.Configure != nil {
		// Configure may merge defaults (an organization's) into f: the
		// custom personas listed below are the ones the review runs.
		if err := o.Configure(o, f); err != nil {
			return use, err
		}
		o.defaults()
	}
	for _, p := range f.Personas {
		use.CustomPersonas = append(use.CustomPersonas, p.Name)
	}
	o.repo = *f
	return use, nil
}

// pathInstructions returns the path_instructions entries that match a file
// of files, each with the files it matches, in the configuration's order.
func pathInstructions(all []repoconfig.PathInstruction, files []*diff.File) []prompt.PathInstruction {
	var out []prompt.PathInstruction
	for _, pi := range all {
		var matched []string
		for _, f := range files {
			if pi.Match(f.Path()) {
				matched = append(matched, f.Path())
			}
		}
		if len(matched) > 0 {
			out = append(out, prompt.PathInstruction{Glob: pi.Glob, Text: pi.Text, Files: matched})
		}
	}
	return out
}
